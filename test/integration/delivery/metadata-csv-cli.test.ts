import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';
import writeExcelFile from 'write-excel-file/node';

import type { DeliveryRecord } from '../../../src-main/core/delivery/delivery-record.js';
import type { PlanFinding } from '../../../src-main/core/delivery/plan.js';
import { textCells } from '../../../src-main/core/model/metadata-sheet.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { isrcOf, makeTaggedTracks, useCliSandbox } from './delivery-helpers.js';

const missing = missingFixtureTools();

/** Windows-1252 bytes, as Excel's plain "CSV" writes them on a Western-European Windows. */
function cp1252(text: string): Buffer {
  const high: Record<string, number> = { '’': 0x92, '€': 0x80 };
  return Buffer.from([...text].map((c) => high[c] ?? c.charCodeAt(0)));
}

interface DryRun {
  blocked: boolean;
  plan: DeliveryRecord;
  findings: PlanFinding[];
}

describe.skipIf(missing.length > 0)('courier deliver --metadata', () => {
  const cli = useCliSandbox();
  let dir: string;

  beforeAll(async () => {
    dir = join(cli.home, 'masters');
    await makeTaggedTracks(join(dir, 'CD1'), 2);
    // Same ISRC as CD1/001.mp3 (a track on two releases).
    await makeTaggedTracks(join(dir, 'CD2'), 1, () => '04 Ebb.mp3');
    // The fixture helper leaves its template beside the folders it fills.
    for (const name of await readdir(dir)) {
      if (name.startsWith('.template-')) await rm(join(dir, name));
    }
    await mkdir(join(cli.home, 'csv'), { recursive: true });
  });

  async function dryRun(csv: string | Buffer, name = 'metadata.csv', ...more: string[]) {
    const path = join(cli.home, 'csv', name);
    await writeFile(path, csv);
    const run = await cli.deliver(dir, 'json', '--dry-run', '--json', '--metadata', path, ...more);
    const output = run.stdout.trim() ? (JSON.parse(run.stdout) as DryRun) : undefined;
    const tracks = output?.plan.tracks?.flat() ?? [];
    return {
      run,
      output,
      tracks,
      byFile: (f: string) => tracks.find((t) => t.primary_media.endsWith(f)),
    };
  }

  it('reads a semicolon CSV saved in Windows-1252 by a spreadsheet: accents and ’ intact', async () => {
    const { run, byFile } = await dryRun(
      cp1252('file;title\r\nCD1/001.mp3;Été indien\r\nCD1/002.mp3;L’amour à 5 €\r\n'),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(byFile('CD1/001.mp3')?.title).toBe('Été indien');
    expect(byFile('CD1/002.mp3')?.title).toBe('L’amour à 5 €');
  });

  it('reads the encoding --metadata-encoding declares, and refuses bytes it cannot decode', async () => {
    const bytes = cp1252('file;title\r\nCD1/001.mp3;Été indien\r\n');
    const declared = await dryRun(bytes, 'declared.csv', '--metadata-encoding', 'windows-1252');
    expect(declared.run.code).toBe(0);
    expect(declared.byFile('CD1/001.mp3')?.title).toBe('Été indien');

    const wrong = await dryRun(bytes, 'declared.csv', '--metadata-encoding', 'utf-8');
    expect(wrong.run.code).not.toBe(0);
    expect(wrong.run.stderr.trim().split('\n')).toHaveLength(1);
    expect(wrong.run.stderr).toMatch(/utf-8/i);
    expect(wrong.run.stdout).not.toContain('\uFFFD');

    const unknown = await dryRun(bytes, 'declared.csv', '--metadata-encoding', 'latin9');
    expect(unknown.run.code).toBe(2);
    expect(unknown.run.stderr).toMatch(/--metadata-encoding must be one of auto, utf-8/);
  });

  it('summarises a 10,000-row CSV whose rows match no file in a few lines', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => `elsewhere/${i}.mp3,Title ${i}`);
    const path = join(cli.home, 'csv', 'big.csv');
    await writeFile(path, ['file,title', ...rows].join('\n'));
    const run = await cli.deliver(dir, 'json', '--dry-run', '--metadata', path);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /10000 rows of big\.csv match no track \(row 2 \(file elsewhere\/0\.mp3\), row 3 .* and 9997 more\)/,
    );
    expect(run.stdout.split('\n').length).toBeLessThan(20);
  });

  it('takes a CSV exported by the app unchanged (column ids, UTF-8 BOM, formula-safe cells)', async () => {
    const exported =
      '\ufefffile,outer_id,title,artists,album,upc,isrc,release_date,track,disk,album_type,customer_tags,lyrics\r\n' +
      `CD1/001.mp3,FOG-1,'-20 Degrees,Joe Dassin; Claude François,Le Jardin,5099749189126,${isrcOf(1)},1975-06-01,1,1,Album,Mood: Calm,"la la\nla"\r\n`;
    const { run, byFile, output } = await dryRun(exported, 'courier-tracks.csv');
    expect(output?.findings.filter((f) => f.level === 'error')).toEqual([]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(byFile('CD1/001.mp3')).toEqual({
      outer_id: 'FOG-1',
      primary_media: expect.stringMatching(/CD1\/001\.mp3$/),
      title: '-20 Degrees',
      isrc: isrcOf(1),
      lyrics: 'la la\nla',
      release_date: 19750601,
      albums: [
        {
          title: 'Le Jardin',
          upc: '5099749189126',
          release_date: '19750601',
          type: 'Album',
          track_position: '1',
          disk_number: '1',
        },
      ],
      artists: [
        { id: 'Joe Dassin', name: 'Joe Dassin', role: 'Main' },
        { id: 'Claude François', name: 'Claude François', role: 'Main' },
      ],
      customer_tags: [{ category: 'Mood', tag: 'Calm' }],
    });
  });

  it('stops with one line naming an unknown column, before reading any audio', async () => {
    const { run } = await dryRun(`isrc,title,mood\n${isrcOf(1)},X,calm\n`);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^courier deliver: metadata\.csv: unknown column\(s\) 'mood'; rename them to one of file\/path/,
    );
  });

  it('refuses a workbook saved as .csv, and a broken .xlsx, with one line each', async () => {
    const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0x06, 0, 0x08, 0, 0, 0, 0x21, 0]);
    const csv = await dryRun(zip, 'tracks.csv');
    expect(csv.run.code).toBe(1);
    expect(csv.run.stderr).toBe(
      'courier deliver: tracks.csv is not a text CSV (it holds binary data); save the sheet as "CSV UTF-8" and try again\n',
    );
    const xlsx = await dryRun(zip, 'tracks.xlsx');
    expect(xlsx.run.code).toBe(1);
    expect(xlsx.run.stderr.trim().split('\n')).toHaveLength(1);
    expect(xlsx.run.stderr).toMatch(
      /^courier deliver: tracks\.xlsx cannot be read as an \.xlsx workbook \(.+\); save it again/,
    );
  });

  it('reads an .xlsx workbook the app exported: text cells keep the leading zeros', async () => {
    const rows = [
      ['file', 'title', 'composer', 'upc', 'catalog_number', 'label', 'track'],
      ['CD1/002.mp3', 'Ebb Tide', 'Ann Lee', '0036000291452', '0042', 'Tidal', '02'],
    ];
    const workbook = await writeExcelFile(textCells(rows)).toBuffer();
    const { run, byFile } = await dryRun(workbook, 'courier-tracks.xlsx');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const track = byFile('CD1/002.mp3')!;
    expect(track.title).toBe('Ebb Tide');
    expect(track.artists).toContainEqual({ id: 'Ann Lee', name: 'Ann Lee', role: 'Composer' });
    expect(track.albums?.[0]).toMatchObject({
      upc: '0036000291452',
      track_position: '2',
      references: [{ id: '0042', source: 'catalog_number' }],
    });
  });

  it('validates what the CSV brings, track by track: a bad ISRC blocks, nothing is sent', async () => {
    const { run, output } = await dryRun(
      'file,isrc,release_date\nCD1/002.mp3,GB-XX-1,2021-02-30\n',
    );
    expect(run.code).toBe(3);
    expect(output?.blocked).toBe(true);
    const errors = output!.findings.filter((f) => f.level === 'error');
    expect(errors.map((f) => [f.path, f.field])).toEqual([
      ['CD1/002.mp3', 'isrc'],
      ['CD1/002.mp3', 'release_date'],
    ]);
  });

  it('a row naming a file changes only that file; a row matching two tracks changes nothing', async () => {
    const { run, output, byFile } = await dryRun(
      `file,outer_id,isrc,title\nCD1/001.mp3,,${isrcOf(1)},Live\n,,${isrcOf(1)},Which one?\n,NOPE,,None\n`,
    );
    expect(run.code).toBe(0);
    expect(byFile('CD1/001.mp3')?.title).toBe('Live');
    expect(byFile('CD2/04 Ebb.mp3')?.title).toBe('Track 1');
    const messages = output!.findings.map((f) => f.message);
    expect(messages).toContain(
      `metadata.csv row 3 (ISRC ${isrcOf(1)}) matches 2 tracks (CD1/001.mp3, CD2/04 Ebb.mp3); nothing from it was applied: add a file column to say which`,
    );
    expect(messages).toContain(
      'metadata.csv row 4 (outer_id NOPE) matches no track; nothing from it was applied',
    );
  });
});
