/**
 * What was planned is what is sent: a file changed between planning and upload is not sent with
 * the old file's metadata; re-running the same command reads it afresh (tags re-merged and
 * validated again) and delivers it, keeping what the service already accepted.
 */
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { DeliveryRecord } from '../../../src-main/core/delivery/delivery-record.js';
import { runDelivery } from '../../../src-main/core/delivery/run-delivery.js';
import { missingFixtureTools, writeTags } from '../../support/audio-fixtures.js';
import { listKeys } from '../../support/s3-peers.js';
import {
  connectionTo,
  isrcOf,
  makeTaggedTracks,
  planInProcess,
  useCliSandbox,
} from './delivery-helpers.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`Skipping planned-files tests: missing ${missing.join(', ')}`);

interface Entry {
  outer_id: string;
  metadata: { title?: string; primary_media?: string };
}

describe.skipIf(missing.length > 0)('a file changed after planning', () => {
  const cli = useCliSandbox();
  const entriesOf = async (record: DeliveryRecord): Promise<Entry[]> =>
    (
      (await cli.sandbox.api(`/sandbox/catalogs/${record.catalogId}/entries`)).body.data as Entry[]
    ).filter((e) => e.metadata.primary_media?.startsWith(`${record.folder}/`));
  const ingestions = async () =>
    (
      (await cli.sandbox.api('/sandbox/requests')).body.data as Array<{
        path: string;
        status: number;
      }>
    ).filter((r) => r.path.startsWith('/ingestion/') && r.status === 200);

  /** A planned (not run) delivery of `count` tagged tracks, as `courier deliver DIR` plans it. */
  async function planned(
    name: string,
    mode: 'json' | 'audio_only',
    count: number,
    prefix?: string,
  ) {
    const dir = join(cli.home, name);
    const paths = await makeTaggedTracks(
      dir,
      count,
      prefix ? (i) => `${prefix}-${i}.mp3` : undefined,
    );
    const { plan, store } = await planInProcess(cli.sandbox, cli.home, { mode, dir });
    expect(plan.blocked).toBe(false);
    const run = () =>
      runDelivery({ record: plan.record, store, ...connectionTo(cli.sandbox), dataDir: cli.home });
    return { dir, paths, record: plan.record, run };
  }

  it('is not sent with the old metadata; the same command then sends it with its new tags', async () => {
    await cli.sandbox.api('/sandbox/requests', { method: 'DELETE' });
    const { dir, paths, record, run } = await planned('changed-json', 'json', 3);
    expect(record.files.every((f) => /^[0-9a-f]{32}$/.test(f.md5 ?? ''))).toBe(true);
    // Retagged after planning: same file, other bytes.
    await writeTags([
      {
        path: paths[1]!,
        family: 'id3v2.4',
        tags: { title: 'Retitled', isrc: isrcOf(2), artists: ['Artist 2'] },
      },
    ]);

    const first = await run();
    expect(first.state).toBe('failed');
    const changed = first.files.find((f) => f.path === '002.mp3')!;
    expect(changed.state).toBe('failed');
    expect(changed.error).toMatch(
      /changed on disk after the delivery was planned; it was not sent/,
    );
    expect(await ingestions()).toHaveLength(0); // its request waits: nothing sent with old tags
    expect(await listKeys(connectionTo(cli.sandbox).bucket)).not.toContain(changed.key);

    const again = await cli.deliver(dir, 'json');
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(
      /^1 file\(s\) changed on disk since delivery \S+ was planned \(first: 002\.mp3\)/m,
    );
    const entries = await entriesOf(record);
    expect(entries.map((e) => e.metadata.title).sort()).toEqual(['Retitled', 'Track 1', 'Track 3']);
    const history = JSON.parse((await cli.run(['history', '--json'])).stdout) as Array<{
      id: string;
      state: string;
    }>;
    expect(history.filter((h) => h.id === record.id).map((h) => h.state)).toEqual(['accepted']);
  });

  it('keeps the requests already accepted when a re-run plans a changed file again', async () => {
    await cli.sandbox.api('/sandbox/requests', { method: 'DELETE' });
    const { dir, paths, record, run } = await planned('changed-late', 'json', 30);
    await writeTags([
      {
        path: paths[29]!,
        family: 'id3v2.4',
        tags: { title: 'Late fix', isrc: isrcOf(30), artists: ['Artist 30'] },
      },
    ]);
    const first = await run();
    expect(first.batches.map((b) => b.state)).toEqual(['accepted', 'pending']);

    const again = await cli.deliver(dir, 'json');
    expect(again.code).toBe(0);
    const tracks = (
      (await cli.sandbox.api('/sandbox/requests')).body.data as Array<{
        path: string;
        status: number;
        tracks: number | null;
      }>
    )
      .filter((r) => r.path.startsWith('/ingestion/') && r.status === 200)
      .map((r) => r.tracks);
    expect(tracks).toEqual([25, 5]); // the first request was not sent again
    const entries = await entriesOf(record);
    expect(entries).toHaveLength(30);
    expect(entries.find((e) => e.outer_id === isrcOf(30))?.metadata.title).toBe('Late fix');
  });

  it('is not sent when rewritten with the same size and date: the bucket checks the planned MD5', async () => {
    const { paths, run } = await planned('same-stat', 'json', 2);
    const { mtime } = await stat(paths[1]!);
    const bytes = await readFile(paths[1]!);
    bytes[bytes.length - 1] = bytes.at(-1)! ^ 0xff;
    await writeFile(paths[1]!, bytes);
    await utimes(paths[1]!, mtime, mtime);

    const first = await run();
    expect(first.state).toBe('failed');
    const changed = first.files.find((f) => f.path === '002.mp3')!;
    expect(changed.error).toMatch(
      /changed on disk after the delivery was planned; it was not sent/,
    );
    expect(await listKeys(connectionTo(cli.sandbox).bucket)).not.toContain(changed.key);
  });

  it('is sent when only touched: the same bytes are the planned file', async () => {
    const { paths, record, run } = await planned('touched', 'json', 2);
    const later = new Date(Date.now() + 60_000);
    await utimes(paths[0]!, later, later);
    const done = await run();
    expect(done.error).toBeUndefined();
    expect(done.state).toBe('accepted');
    expect(await entriesOf(record)).toHaveLength(2);
  });

  it('blocks the re-run (exit 3) when the file now fails validation, and keeps the record', async () => {
    const { dir, paths, record, run } = await planned('now-invalid', 'json', 2);
    await writeFile(paths[0]!, ''); // a copy that failed halfway
    expect((await run()).state).toBe('failed');
    const records = join(cli.home, 'deliveries', `${record.id}.json`);
    const before = await readFile(records, 'utf8');
    const again = await cli.deliver(dir, 'json');
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/001\.mp3/);
    expect(await readFile(records, 'utf8')).toBe(before);
  });

  it('removes from the bucket a file left out since, so a folder call does not deliver it', async () => {
    const { dir, paths, record, run } = await planned('dropped', 'audio_only', 3, 'dropped');
    await writeFile(paths[2]!, Buffer.concat([await readFile(paths[2]!), Buffer.from('x')]));
    const first = await run(); // 1 and 2 uploaded; 3 changed, so the folder call waits
    expect(first.state).toBe('failed');
    const uploaded = first.files.find((f) => f.path === 'dropped-2.mp3')!.key;
    const { bucket } = connectionTo(cli.sandbox);
    expect(await listKeys(bucket)).toContain(uploaded);

    await rm(paths[1]!); // the user drops dropped-2 from the delivery
    const again = await cli.deliver(dir, 'audio_only');
    expect(again.code).toBe(0);
    // A folder call names each entry after its file; no other test delivers these names.
    const entries = (await cli.sandbox.api(`/sandbox/catalogs/${record.catalogId}/entries`)).body
      .data as Entry[];
    const delivered = entries.map((e) => e.outer_id).filter((id) => id.startsWith('dropped-'));
    expect(delivered.sort()).toEqual(['dropped-1.mp3', 'dropped-3.mp3']);
    expect(await listKeys(bucket)).not.toContain(uploaded);
  });
});
