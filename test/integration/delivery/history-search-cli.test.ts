/**
 * History search and the catalog ledger from the command line (#15): a small catalog delivered
 * to the sandbox (json, then audio_mapping) is found again by ISRC, outer_id and title; a
 * track's body is printed as sent; `courier ledger` says what the catalog holds, as a table and
 * as CSV.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { HistorySearchResult } from '../../../src-main/core/delivery/history-search.js';
import type { CatalogLedgerView } from '../../../src-main/core/ledger/ledger-view.js';
import { parseCsvText } from '../../../src-main/core/model/csv-text.js';
import type { Track } from '../../../src-main/core/model/track.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { isrcOf, makeTaggedTracks, useCliSandbox } from './delivery-helpers.js';

const missing = missingFixtureTools();
if (missing.length > 0)
  console.warn(`Skipping history search tests: missing ${missing.join(', ')}`);

describe.skipIf(missing.length > 0)('courier history --search and courier ledger', () => {
  const cli = useCliSandbox();
  let jsonId: string;
  let mappedId: string;
  let catalogName: string;

  /** What the sandbox's catalog stored for an outer_id. */
  const stored = async (outerId: string) =>
    (
      (await cli.sandbox.api(`/sandbox/catalogs/${cli.catalog}/entries`)).body.data as Array<{
        outer_id: string;
        metadata: Record<string, unknown>;
      }>
    ).find((e) => e.outer_id === outerId);

  beforeAll(async () => {
    catalogName = cli.sandbox.info.catalogs[0]!.name;
    const album = join(cli.home, 'Album');
    await makeTaggedTracks(album, 3);
    const csv = join(cli.home, 'titles.csv');
    await writeFile(csv, 'file,title\n002.mp3,Straße der Sterne\n003.mp3,=HYPERLINK("x")\n');
    const json = await cli.deliver(album, 'json', '--metadata', csv);
    expect(json.code, json.stderr).toBe(0);
    const mapped = join(cli.home, 'Mapped');
    await makeTaggedTracks(
      mapped,
      2,
      (i) => `MAP-00${i}_${i === 1 ? 'First Light' : 'Second Wind'}.mp3`,
    );
    const mapping = await cli.deliver(
      mapped,
      'audio_mapping',
      '--separator',
      '_',
      '--columns',
      'outer_id,title',
    );
    expect(mapping.code, mapping.stderr).toBe(0);
    const history = JSON.parse((await cli.run(['history', '--json'])).stdout) as Array<{
      id: string;
      mode: string;
    }>;
    jsonId = history.find((d) => d.mode === 'json')!.id;
    mappedId = history.find((d) => d.mode === 'audio_mapping')!.id;
  }, 120_000);

  it('finds a delivery by ISRC typed in lower case with hyphens, with the body the service got', async () => {
    const run = await cli.run(['history', '--search', 'gbabc-26-00001', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as HistorySearchResult;
    expect(result.deliveries.map((d) => [d.id, d.catalog_name, d.state])).toEqual([
      [jsonId, catalogName, 'accepted'],
    ]);
    const [track] = result.deliveries[0]!.tracks;
    expect(track).toMatchObject({
      outer_id: isrcOf(1),
      isrc: isrcOf(1),
      title: 'Track 1',
      file: '001.mp3',
      request_index: 0,
      request_state: 'accepted',
      matched: ['isrc'],
    });
    const body = track!.body as Track;
    const entry = await stored(isrcOf(1));
    expect(body.title).toBe(entry!.metadata.title);
    expect(body.isrc).toBe(entry!.metadata.isrc);
    expect(body.artists?.map((a) => a.name)).toEqual(['Artist 1']);
  });

  it('lists matches by outer_id and by title words in any case and Unicode form', async () => {
    const byId = await cli.run(['history', '--search', isrcOf(3)]);
    expect(byId.code).toBe(0);
    const lines = byId.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^DELIVERY\s+STATE\s+CATALOG\s+MODE\s+REQUEST\s+OUTER_ID\s+ISRC\s+TITLE\s+MATCHED$/,
    );
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${jsonId}\\s+accepted\\s+${catalogName}\\s+json\\s+1 accepted\\s+${isrcOf(3)}\\s+${isrcOf(3)}\\s+=HYPERLINK\\("x"\\)\\s+isrc,outer_id$`,
        ),
      ),
    ]);
    const byTitle = await cli.run(['history', '--search', 'STRASSE']);
    expect(byTitle.code).toBe(0);
    expect(byTitle.stdout).toContain('Straße der Sterne');
    expect(byTitle.stdout).toContain(isrcOf(2));
    expect(byTitle.stdout).not.toContain(isrcOf(1));
  });

  it('finds the tracks of an audio_mapping call by the name and title its file names gave', async () => {
    const run = await cli.run(['history', '--search', 'second wind', '--json']);
    const result = JSON.parse(run.stdout) as HistorySearchResult;
    expect(result.deliveries.map((d) => d.id)).toEqual([mappedId]);
    expect(result.deliveries[0]!.tracks).toEqual([
      expect.objectContaining({
        outer_id: 'MAP-002',
        title: 'Second Wind',
        request_state: 'accepted',
        matched: ['title', 'file'],
      }),
    ]);
    expect(result.deliveries[0]!.tracks[0]!.body).toBeUndefined();
  });

  it('says so on stderr, and exits 0, when nothing matches', async () => {
    const run = await cli.run(['history', '--search', 'no such song']);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect(run.stderr.trimEnd()).toBe(
      'No delivery holds a track matching "no such song" (ISRC, outer_id or title).',
    );
  });

  it('prints one track’s body exactly as sent, and lists a delivery’s tracks', async () => {
    const run = await cli.run(['history', jsonId, '--track', isrcOf(2)]);
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout) as Track;
    expect(body).toMatchObject({
      outer_id: isrcOf(2),
      title: 'Straße der Sterne',
      isrc: isrcOf(2),
    });
    expect(body.primary_media).toMatch(/\/002\.mp3$/);
    expect((await stored(isrcOf(2)))!.metadata.title).toBe(body.title);

    const tracks = await cli.run(['history', jsonId]);
    expect(tracks.code).toBe(0);
    expect(tracks.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^REQUEST\s+STATE\s+OUTER_ID\s+ISRC\s+TITLE\s+FILE$/),
      expect.stringMatching(
        new RegExp(`^1\\s+accepted\\s+${isrcOf(1)}\\s+${isrcOf(1)}\\s+Track 1\\s+001\\.mp3$`),
      ),
      expect.stringContaining('Straße der Sterne'),
      expect.stringContaining('=HYPERLINK("x")'),
    ]);
  });

  it('exits 2 with one line for an unknown delivery or track, a folder call’s body, or bad arguments', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['history', '20990101-000000-abcdef', '--track', 'X'],
        /^courier history: No delivery 20990101-000000-abcdef in the history\.$/,
      ],
      [
        ['history', jsonId, '--track', 'NOPE'],
        /^courier history: Delivery \S+ carries no track with outer_id "NOPE"\.$/,
      ],
      [
        ['history', mappedId, '--track', 'MAP-001'],
        /^courier history: Delivery \S+ was an audio_mapping call: .* no metadata body was sent\.$/,
      ],
      [['history', '--search', '  '], /^courier history: the search is empty/],
      [
        ['history', '--search', 'x', '--pickup', jsonId],
        /^courier history: --search and --pickup do not go together$/,
      ],
      [['history', '--track', 'X'], /^courier history: --track needs a delivery/],
      [['history', '--search', 'x', '--limit', '0'], /^courier history: --limit must be/],
      [['history', 'a', 'b'], /^courier history: expected at most one delivery id/],
    ];
    for (const [args, line] of cases) {
      const run = await cli.run(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
    }
  });

  it('says what the catalog holds from this workstation, by catalog name or id', async () => {
    const run = await cli.run(['ledger', 'Test', catalogName.toUpperCase()]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.trimEnd()).toBe(
      `${catalogName} (${cli.catalog}) on profile Test holds 5 track(s) from this workstation:`,
    );
    const [header, ...rows] = run.stdout.trimEnd().split('\n');
    expect(header).toMatch(
      /^OUTER_ID\s+ISRC\s+TITLE\s+ARTISTS\s+MODE\s+MD5\s+DELIVERY\s+DELIVERED$/,
    );
    expect(rows.map((r) => r.split(/\s{2,}/)[0])).toEqual([
      isrcOf(1),
      isrcOf(2),
      isrcOf(3),
      'MAP-001',
      'MAP-002',
    ]);
    expect(rows[0]).toMatch(
      new RegExp(`${isrcOf(1)}\\s+Track 1\\s+Artist 1\\s+json\\s+[0-9a-f]{32}\\s+${jsonId}`),
    );
    const json = JSON.parse(
      (await cli.run(['ledger', 'Test', cli.catalog, '--json'])).stdout,
    ) as CatalogLedgerView;
    expect(json).toMatchObject({
      profile: 'Test',
      catalog_id: cli.catalog,
      catalog_name: catalogName,
      total: 5,
    });
    expect(json.entries[3]).toMatchObject({
      outer_id: 'MAP-001',
      title: 'First Light',
      mode: 'audio_mapping',
      delivery: mappedId,
    });
  });

  it('exports the ledger as formula-safe CSV to a file or to the output', async () => {
    const file = join(cli.home, 'exports', 'main.csv');
    const run = await cli.run(['ledger', 'Test', cli.catalog, '--csv', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd()).toBe(
      `Wrote the 5 track(s) ${catalogName} (${cli.catalog}) on profile Test holds from this workstation to ${file}.`,
    );
    const text = await readFile(file, 'utf8');
    const [header, ...rows] = parseCsvText(text);
    expect(header).toEqual([
      'outer_id',
      'title',
      'isrc',
      'artists',
      'mode',
      'audio',
      'file',
      'local_path',
      'md5',
      'size',
      'delivery',
      'delivered_at',
    ]);
    expect(rows.map((r) => [r[0], r[1]])).toEqual([
      [isrcOf(1), 'Track 1'],
      [isrcOf(2), 'Straße der Sterne'],
      [isrcOf(3), '=HYPERLINK("x")'], // read back as written
      ['MAP-001', 'First Light'],
      ['MAP-002', 'Second Wind'],
    ]);
    expect(text).toContain(`"'=HYPERLINK(""x"")"`); // a spreadsheet shows it as text
    const stdout = await cli.run(['ledger', 'Test', cli.catalog, '--csv', '-']);
    expect(stdout.stdout.trimEnd()).toBe(text.trimEnd());
  });

  it('exits 2 with one line for an unknown profile or catalog, or bad arguments', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['ledger', 'Nope', 'x'],
        /^courier ledger: No profile named "Nope" \(profiles: .*Test.*\)\.$/,
      ],
      [
        ['ledger', 'Test', 'Side Catalog'],
        /^courier ledger: Profile "Test" has no catalog "Side Catalog" \(catalogs: .*Main Catalog.*\)\.$/,
      ],
      [['ledger', 'Test'], /^courier ledger: expected a profile and a catalog/],
      [
        ['ledger', 'Test', cli.catalog, '--csv', 'x.csv', '--json'],
        /^courier ledger: --csv and --json do not go together$/,
      ],
      [
        ['ledger', 'Test', cli.catalog, '--bogus'],
        /^courier ledger: Unknown option '--bogus'.*\(usage: courier ledger/,
      ],
    ];
    for (const [args, line] of cases) {
      const run = await cli.run(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
    }
  });

  it('says a catalog holds nothing yet', async () => {
    const other = cli.sandbox.info.catalogs[1]!;
    const run = await cli.run(['ledger', 'Test', other.id]);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect(run.stderr.trimEnd()).toBe(
      `${other.name} (${other.id}) on profile Test holds nothing from this workstation yet.`,
    );
  });
});
