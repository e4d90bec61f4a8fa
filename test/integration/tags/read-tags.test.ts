import { availableParallelism } from 'node:os';

import { parseFile, parseFromTokenizer } from 'music-metadata';
import { beforeAll, describe, expect, it } from 'vitest';

import { finishScan, type ScanEntry } from '../../../src-main/core/model/read-result.js';
import { CachedFileTokenizer } from '../../../src-main/core/tags/cached-file-tokenizer.js';
import { listFiles, scanFolder } from '../../../src-main/core/tags/scan-folder.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import {
  combos,
  expectedTrack,
  fixtureFolder,
  isrcOf,
  longAiff,
  longWav,
  nfdName,
} from './fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`tag tests need ${missing.join(', ')}`);
  console.warn(`skipping tag integration tests: missing ${missing.join(', ')}`);
}

describe.skipIf(missing.length > 0)('scanFolder()', () => {
  let entries: ScanEntry[];
  let root: string;
  beforeAll(async () => {
    root = await fixtureFolder();
    entries = finishScan(await scanFolder(root, { threads: 0 }));
  });
  const entry = (file: string) => {
    const found = entries.find((e) => e.file === file);
    expect(found, file).toBeDefined();
    return found!;
  };

  it('lists every file, with NFC paths and forward slashes, sorted', () => {
    const files = entries.map((e) => e.file);
    expect(files).toEqual([...files].sort());
    expect(files).toContain('Björk/Café.flac');
    expect(files).not.toContain(nfdName);
    expect(files).toHaveLength(combos.length + 3 + 5 + 2);
  });

  const full = combos.filter((c) => c.family !== 'riff-info' && c.family !== 'bwf');
  it.each(full.map((c) => [c.name, c] as const))('maps every field of %s', (name, combo) => {
    const i = combos.indexOf(combo);
    const { track, findings } = entry(name);
    const v23 = combo.family === 'id3v2.3';
    // ID3v2.3 holds "Alice/Bob": one string, offered as a split rather than split silently (the
    // version joins values with "/", and the other files credit Alice and Bob on their own).
    // The fixtures make one album across folders. The RIFF INFO and BWF files (positions 8 and
    // 10) carry no album artist, but sit in a folder of that album: they are its tracks, and the
    // album has no gap (what they lack is said on them: see below).
    expect(findings).toEqual([
      ...(v23 ? [expect.objectContaining({ level: 'warning', field: 'artists' })] : []),
    ]);
    expect(track).toStrictEqual(expectedTrack(i, name, combo.family));
  });

  it('reads RIFF INFO text written as UTF-8 and its ISRC', () => {
    const i = combos.findIndex((c) => c.family === 'riff-info');
    const { track, findings } = entry('wav/riff-info.wav');
    expect(track).toMatchObject({
      outer_id: isrcOf(i),
      title: `Ünïcode — 日本語 ${i}`,
      isrc: isrcOf(i),
      release_date: 20200229,
      albums: [{ title: 'The Album', release_date: '20200229', track_position: String(i + 1) }],
      artists: [{ name: 'Alice; Bob', role: 'Main' }],
    });
    // One RIFF artist string holding two names is offered as a split; RIFF INFO has no UPC nor
    // label, which the other tracks of its album have: the album review says so on this track.
    expect(findings.map((f) => `${f.level}:${f.field}`)).toEqual([
      'warning:artists',
      'warning:album.upc',
      'warning:album.label',
    ]);
    expect(findings[1]!.message).toBe(
      "UPC is missing, while the other 10 tracks of 'The Album' have 5099902988023; use the album panel to set one UPC on every track",
    );
  });

  it('reads the ISRC of a BWF file from its bext description', () => {
    const i = combos.findIndex((c) => c.family === 'bwf');
    expect(entry('wav/bwf.wav').track).toStrictEqual({
      outer_id: isrcOf(i),
      primary_media: 'wav/bwf.wav',
      isrc: isrcOf(i),
    });
  });

  it('names an NFD file by its NFC name and offers to split a featuring credit', () => {
    const { track, findings } = entry('Björk/Café.flac');
    expect(track).toMatchObject({
      outer_id: 'Café',
      primary_media: 'Björk/Café.flac',
      title: 'Naïve',
    });
    expect(findings.map((f) => f.field)).toEqual(['artists']);
  });

  it('reads tags stored after the audio of long WAV and AIFF files', () => {
    expect(entry(longWav).track?.title).toBe('Long WAV');
    expect(entry(longAiff).track).toMatchObject({ title: 'Long AIFF', release_date: 19991231 });
  });

  it('parses every audio file exactly as music-metadata parseFile does', async () => {
    const paths = (await listFiles(root)).filter(
      (p) => !p.includes('/broken/') && /\.(mp3|flac|ogg|opus|m4a|wav|aiff)$/.test(p),
    );
    for (const path of paths) {
      const viaTokenizer = await CachedFileTokenizer.open(path).then(async (t) => {
        try {
          return await parseFromTokenizer(t, { skipCovers: true, duration: false });
        } finally {
          await t.close();
        }
      });
      const viaParseFile = await parseFile(path, { skipCovers: true, duration: false });
      expect({ ...viaTokenizer, quality: null }, path).toEqual({ ...viaParseFile, quality: null });
    }
  });

  it('gives the same results when worker threads read some of the files', async () => {
    const by: string[] = [];
    const results = await scanFolder(root, {
      threads: 1,
      chunkSize: 2,
      concurrency: 1,
      onChunk: (chunk) => by.push(chunk.by),
    });
    expect(finishScan(results)).toEqual(entries);
    expect(by).toContain('worker');
  });

  it('reads a folder under 10,000 files on its own thread when it may block, else with workers', async () => {
    // One file a chunk: a scan that can't block takes workers from 20 files; one that may block
    // (the CLI's) only from 10,000, as below that a worker's warm-up costs more than it reads.
    expect(entries.length).toBeGreaterThan(20);
    const threadsOf = async (blockingReads: boolean) => {
      const by = new Set<string>();
      const results = await scanFolder(root, {
        chunkSize: 1,
        blockingReads,
        onChunk: (chunk) => by.add(chunk.by),
      });
      expect(finishScan(results)).toEqual(entries);
      return [...by].sort();
    };
    expect(await threadsOf(true)).toEqual(['main']);
    expect(await threadsOf(false)).toEqual(
      availableParallelism() > 1 ? ['main', 'worker'] : ['main'],
    );
  });

  it('stops a scan on its own thread once it is asked to (Ctrl-C in the CLI)', async () => {
    const controller = new AbortController();
    const results = await scanFolder(root, {
      chunkSize: 1,
      blockingReads: true,
      signal: controller.signal,
      onChunk: () => controller.abort(),
    });
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThan(entries.length);
  });

  it('turns broken and foreign files into findings without stopping', () => {
    expect(entry('broken/empty.mp3')).toEqual({
      file: 'broken/empty.mp3',
      track: null,
      findings: [{ level: 'error', message: 'empty file (0 bytes)' }],
    });
    for (const file of ['broken/text.mp3', 'broken/truncated.m4a', 'broken/song.wma']) {
      const e = entry(file);
      expect(e.track, file).toBeNull();
      expect(e.findings[0]?.level, file).toBe('error');
    }
    const opus = entry('broken/truncated.opus');
    // Its tags are read; what is missing is its end, a blocking error the label may accept.
    expect(opus.findings[0]).toMatchObject({
      level: 'error',
      code: 'cut-short',
      message: expect.stringMatching(/^the master is cut short: it ends at 0:0\d\.\d/),
    });
    for (const file of ['cover.jpg', 'notes.txt']) {
      expect(entry(file).findings).toEqual([
        { level: 'warning', message: 'ignored: not an audio file' },
      ]);
    }
  });
});
