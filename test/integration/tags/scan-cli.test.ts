import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { beforeAll, describe, expect, it } from 'vitest';

import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { combos, expectedTrack, fixtureFolder } from './fixtures.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const missing = missingFixtureTools();

/** Runs `courier` from the sources as a child process; resolves even on a non-zero exit. */
async function courier(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/courier.mjs', ...args], {
      cwd: repo,
      env: { ...process.env, COURIER_HOME: '/nonexistent-courier-home' },
      maxBuffer: 32 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe.skipIf(missing.length > 0)('courier scan', () => {
  let root: string;
  beforeAll(async () => {
    root = await fixtureFolder();
  });

  it('prints one JSON array, one element per file: file, track, findings and the audio QC', async () => {
    const { code, stdout } = await courier(['scan', root, '--json']);
    expect(code).toBe(0);
    const entries = JSON.parse(stdout) as Record<string, unknown>[];
    expect(Array.isArray(entries)).toBe(true);
    expect(entries).toHaveLength(combos.length + 3 + 5 + 2);
    for (const entry of entries) {
      // A file read as audio has its QC properties; others have none.
      expect(Object.keys(entry)).toEqual(
        entry.audio ? ['file', 'track', 'findings', 'audio'] : ['file', 'track', 'findings'],
      );
      expect(typeof entry.file).toBe('string');
      expect(entry.file).not.toMatch(/\\|^\//);
      for (const finding of entry.findings as Record<string, unknown>[]) {
        expect(['error', 'warning']).toContain(finding.level);
        expect(typeof finding.message).toBe('string');
        for (const key of Object.keys(finding))
          expect(['level', 'field', 'message', 'code', 'fix']).toContain(key);
      }
      const track = entry.track as Record<string, unknown> | null;
      if (track) {
        expect(track.primary_media).toBe(entry.file);
        for (const value of Object.values(track)) {
          expect(value === '' || (Array.isArray(value) && value.length === 0)).toBe(false);
        }
      }
    }
    const flac = entries.find((e) => e.file === 'lossless/flac.flac');
    const i = combos.findIndex((c) => c.name === 'lossless/flac.flac');
    expect(flac).toStrictEqual({
      file: 'lossless/flac.flac',
      track: expectedTrack(i, 'lossless/flac.flac', 'vorbis'),
      audio: {
        format: 'flac',
        container: 'FLAC',
        codec: 'FLAC',
        lossless: true,
        sampleRate: 8000,
        bitDepth: 16,
        channels: expect.any(Number),
        duration: expect.any(Number),
        bitrate: expect.any(Number),
        md5: true,
      },
      // The fixtures share one album; the gaps the combos left out of this folder leave in it
      // are the album's (below), not said on each of its tracks.
      findings: [],
    });
    // An offered artist split says what to apply, for a script as for the app.
    const featuring = entries.find((e) => e.file === 'Björk/Café.flac')!;
    expect(featuring.findings).toContainEqual({
      level: 'warning',
      field: 'artists',
      message:
        "'Björk feat. Thom Yorke' looks like several artists; split into Björk (Main), Thom Yorke (Featured)?",
      fix: {
        kind: 'split-artist',
        index: 0,
        name: 'Björk feat. Thom Yorke',
        into: [
          { name: 'Björk', role: 'Main' },
          { name: 'Thom Yorke', role: 'Featured' },
        ],
      },
    });
    expect(entries.find((e) => e.file === 'notes.txt')).toStrictEqual({
      file: 'notes.txt',
      track: null,
      findings: [{ level: 'warning', message: 'ignored: not an audio file' }],
    });
  });

  it('prints a table and a summary line without --json, exit 0 despite errors', async () => {
    const { code, stdout } = await courier(['scan', root]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^FILE\s+OUTER_ID\s+TITLE\s+ISRC\s+STATUS/);
    expect(stdout).toContain('Björk/Café.flac');
    expect(stdout).toContain(
      "\n    warning Artists: 'Björk feat. Thom Yorke' looks like several artists; split into Björk (Main), Thom Yorke (Featured)?\n",
    );
    // Each track's masters QC line, under its row.
    expect(stdout).toMatch(/\n {4}FLAC · lossless · 8 kHz · 16-bit · mono · 0:00 · \d+ kb\/s\n/);
    expect(stdout.trim().split('\n').at(-1)).toMatch(
      /^22 file\(s\): 16 track\(s\), 2 ignored, 4 unreadable; \d+ error\(s\), \d+ warning\(s\)$/,
    );
  });

  it('says an album once, with its gaps, in the albums section of --json --albums and of the table', async () => {
    const { code, stdout } = await courier(['scan', root, '--json', '--albums']);
    expect(code).toBe(0);
    const { files, albums } = JSON.parse(stdout) as {
      files: { file: string; findings: { message: string }[] }[];
      albums: {
        title: string;
        files: string[];
        missing: string[];
        findings: { level: string; field: string; message: string }[];
      }[];
    };
    expect(files.find((e) => e.file === 'lossless/flac.flac')).toBeDefined();
    const album = albums.find((a) => a.files.includes('lossless/flac.flac'))!;
    expect(album.title).toBe('The Album');
    expect(album.missing.length).toBeGreaterThan(0);
    // The BWF file of the album's folder has no tags: no position (10 is missing), no UPC.
    expect(album.missing).toEqual(['10']);
    expect(album.findings.filter((f) => f.field === 'album.track_position')).toEqual([
      {
        level: 'warning',
        field: 'album.track_position',
        message:
          'no track 10: a track is missing or numbered wrong (add it, or correct the Track # of the others)',
      },
    ]);
    expect(album.findings.find((f) => f.field === 'album.upc')?.message).toBe(
      '2 tracks disagree on UPC: 10 have 5099902988023, 2 have none (bwf.wav, riff-info.wav)',
    );
    const everyFinding = files.flatMap((e) => e.findings.map((f) => f.message));
    expect(everyFinding.filter((m) => m.startsWith('no track'))).toEqual([]);
    const table = await courier(['scan', root]);
    expect(table.stdout).toMatch(/\nAlbums: \d+, 1 with findings\n/);
    expect(table.stdout.match(/warning Track #: no track/g)).toHaveLength(1);
  });

  it('uses another outer_id strategy when asked', async () => {
    const { stdout } = await courier(['scan', root, '--json', '--outer-id', 'file-name']);
    const entries = JSON.parse(stdout) as { file: string; track: { outer_id?: string } | null }[];
    expect(entries.find((e) => e.file === 'mp3/id3v24.mp3')?.track?.outer_id).toBe('id3v24');
  });

  it('exits 2 on a usage error', async () => {
    expect((await courier(['scan'])).code).toBe(2);
    const noFolder = await courier(['scan', '/nonexistent/folder', '--json']);
    expect(noFolder.code).toBe(2);
    expect(noFolder.stderr).toContain('is not a folder');
    expect((await courier(['scan', root, '--bogus'])).code).toBe(2);
    expect((await courier(['scan', root, '--outer-id', 'tag:nope'])).code).toBe(2);
  });
});
