/**
 * Changes only (#15): a re-run of a delivered folder sends nothing; a title fixed in the
 * metadata CSV is sent alone, without its audio; a replaced master is uploaded and sent alone;
 * `--all` sends everything again.
 */
import { mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { missingFixtureTools, writeTags } from '../../support/audio-fixtures.js';
import { isrcOf, makeTaggedTracks, useCliSandbox } from './delivery-helpers.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`Skipping changes-only tests: missing ${missing.join(', ')}`);

interface Request {
  path: string;
  status: number;
  query: Record<string, string>;
  outer_ids?: string[];
}

describe.skipIf(missing.length > 0)('courier deliver sends only what changed', () => {
  const cli = useCliSandbox();
  const ingestions = async () => {
    const all = (await cli.sandbox.api('/sandbox/requests')).body.data as Request[];
    await cli.sandbox.api('/sandbox/requests', { method: 'DELETE' });
    return all.filter((r) => r.status < 300 && r.path.startsWith('/ingestion/'));
  };
  const entry = async (outerId: string) =>
    (
      (await cli.sandbox.api(`/sandbox/catalogs/${cli.catalog}/entries`)).body.data as Array<{
        outer_id: string;
        metadata: Record<string, unknown>;
        audio_key: string | null;
      }>
    ).find((e) => e.outer_id === outerId);

  it('re-run: nothing; a CSV fix: that track alone, audio kept; a new master: uploaded alone', async () => {
    const dir = join(cli.home, 'album');
    const paths = await makeTaggedTracks(dir, 30);
    const csv = join(cli.home, 'fixes.csv');
    await writeFile(csv, 'file,title\n003.mp3,Track Three\n');
    const deliver = () => cli.deliver(dir, 'json', '--metadata', csv);
    expect((await deliver()).code).toBe(0);
    expect((await ingestions()).map((r) => r.outer_ids?.length)).toEqual([25, 5]);
    const audio = (await entry(isrcOf(3)))?.audio_key;
    expect(audio).toBeTruthy();

    const again = await deliver();
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(
      /^courier deliver: nothing changed since delivery \S+ \(\d{4}-\d{2}-\d{2}\): its 30 track\(s\) are in the catalog as they are on disk; nothing was sent/m,
    );
    expect(await ingestions()).toEqual([]);

    await writeFile(csv, 'file,title\n003.mp3,Track Three (fixed)\n');
    const fixed = await deliver();
    expect(fixed.code).toBe(0);
    expect(fixed.stderr).toMatch(
      /: 0 file\(s\) to .*, 1 request\(s\) \(tracks: 1 with new metadata only, 29 unchanged, not sent\)/,
    );
    const [request, ...more] = await ingestions();
    expect(more).toEqual([]);
    expect(request!.outer_ids).toEqual([isrcOf(3)]);
    expect(request!.query.overwrite_audio_file).toBe('false');
    expect((await entry(isrcOf(3)))?.metadata.title).toBe('Track Three (fixed)');
    expect((await entry(isrcOf(3)))?.audio_key).toBe(audio);

    // A master replaced (other bytes): uploaded, and sent alone with its audio.
    await writeTags([
      {
        path: paths[9]!,
        family: 'id3v2.4',
        tags: { title: 'Track 10', isrc: isrcOf(10), artists: ['Artist 10', 'Guest'] },
      },
    ]);
    const master = await deliver();
    expect(master.code).toBe(0);
    expect(master.stderr).toMatch(
      /: 1 file\(s\) to .*\(tracks: 1 with new audio, 29 unchanged, not sent\)/,
    );
    const [sent] = await ingestions();
    expect(sent!.outer_ids).toEqual([isrcOf(10)]);
    expect(sent!.query.overwrite_audio_file).not.toBe('false');

    const all = await cli.deliver(dir, 'json', '--metadata', csv, '--all');
    expect(all.code).toBe(0);
    expect((await ingestions()).map((r) => r.outer_ids?.length)).toEqual([25, 5]);
  });

  it('a re-delivery keeps the fields sent before that are not given now, and says so', async () => {
    const dir = join(cli.home, 'keep');
    await makeTaggedTracks(dir, 2, (i) => `keep-${i}.mp3`);
    const csv = join(cli.home, 'keep.csv');
    await writeFile(csv, 'file,title,lyrics,customer_tags\nkeep-1.mp3,First,La la la,Mood:Dark\n');
    expect((await cli.deliver(dir, 'json', '--metadata', csv, '--all')).code).toBe(0);
    await ingestions();
    const id = (await entry(isrcOf(1)))!;
    expect(id.metadata.lyrics).toBe('La la la');

    // A title fix from a CSV that no longer carries the lyrics and the customer tags.
    await writeFile(csv, 'file,title\nkeep-1.mp3,First (fixed)\n');
    const fixed = await cli.deliver(dir, 'json', '--metadata', csv);
    expect(fixed.code).toBe(0);
    expect(fixed.stderr).toMatch(
      /warning keep-1\.mp3: keeps lyrics, customer_tags as delivery \S+ sent them: not given now/,
    );
    const [request] = await ingestions();
    expect(request!.outer_ids).toEqual([isrcOf(1)]);
    const stored = (await entry(isrcOf(1)))!.metadata;
    expect(stored.title).toBe('First (fixed)');
    expect(stored.lyrics).toBe('La la la');
    expect(stored.customer_tags).toEqual([{ category: 'Mood', tag: 'Dark' }]);
  });

  it('the dry-run says nothing changed; a large delivery gets the reminder to announce it', async () => {
    const dir = join(cli.home, 'announce');
    await makeTaggedTracks(dir, 3, (i) => `announce-${i}.mp3`);
    // A settings file edited by hand: announce from 3 tracks (default 1,000 or 20 GiB).
    const settings = join(cli.home, 'settings.json');
    await writeFile(settings, JSON.stringify({ announceAbove: { tracks: 3, gib: 20 } }));
    try {
      const dry = await cli.deliver(dir, 'json', '--dry-run', '--all');
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(
        /warning: a large ingestion: the interface asks that it be announced to the provider beforehand; send them: "Catalog .+ \(.+\): 3 track\(s\), 0\.0 GiB, json delivery planned for \d{4}-\d{2}-\d{2} by Catalog Courier"/,
      );
      expect((await cli.deliver(dir, 'json', '--all')).code).toBe(0);
      await ingestions();
      const after = await cli.deliver(dir, 'json', '--dry-run');
      expect(after.code).toBe(0);
      expect(after.stdout).toMatch(/^nothing changed since delivery \S+ \(\d{4}-\d{2}-\d{2}\)/);
    } finally {
      await rm(settings, { force: true });
    }
  });

  it('never takes another file for a delivered one: same name, size and mtime elsewhere is hashed', async () => {
    const first = join(cli.home, 'twin-a');
    const [original] = await makeTaggedTracks(first, 1, () => 'twin.mp3');
    expect((await cli.deliver(first, 'json', '--all')).code).toBe(0);
    await ingestions();

    // Another folder, the same relative name, size and mtime, other audio bytes.
    const second = join(cli.home, 'twin-b');
    await mkdir(second);
    const bytes = await readFile(original!);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    const copy = join(second, 'twin.mp3');
    await writeFile(copy, bytes);
    const { mtime } = await stat(original!);
    await utimes(copy, mtime, mtime);

    const run = await cli.deliver(second, 'json');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\(tracks: 1 with new audio\)/);
    expect((await ingestions()).map((r) => r.outer_ids)).toEqual([[isrcOf(1)]]);
  });

  it('--skip-invalid leaves the track with errors out, listed; a file gone from the folder is listed', async () => {
    const dir = join(cli.home, 'skip');
    const paths = await makeTaggedTracks(dir, 3, (i) => `skip-${i}.mp3`);
    await writeTags([
      { path: paths[1]!, family: 'id3v2.4', tags: { title: 'Two', isrc: 'BADISRC' } },
    ]);
    const blocked = await cli.deliver(dir, 'json');
    expect(blocked.code).toBe(3);
    expect(await ingestions()).toEqual([]);

    // Other tests delivered these ISRCs: --all sends them again whatever the catalog holds.
    const dry = await cli.deliver(dir, 'json', '--skip-invalid', '--all', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/against the catalog: .*1 skipped \(errors\)\n/);
    expect(dry.stdout).toMatch(
      /warning: 1 track\(s\) with errors skipped, not delivered \(first: skip-2\.mp3: /,
    );
    const skipped = await cli.deliver(dir, 'json', '--skip-invalid', '--all');
    expect(skipped.code).toBe(0);
    expect((await ingestions()).map((r) => r.outer_ids?.sort())).toEqual([
      [isrcOf(1), isrcOf(3)].sort(),
    ]);

    // The third master leaves the folder: the next run says so, and sends nothing for it.
    await rm(paths[2]!);
    const gone = await cli.deliver(dir, 'json', '--skip-invalid', '--dry-run');
    expect(gone.code).toBe(0);
    expect(gone.stdout).toMatch(
      /1 track\(s\) delivered to this catalog from this folder are no longer in it \(first: skip-3\.mp3\); the interface has no delete/,
    );
    // The user's files are untouched.
    await expect(stat(paths[1]!)).resolves.toBeTruthy();
  });
});
