/**
 * The lean MP4 reader (`core/model/mp4-read.ts`) against music-metadata on real files: every MP4
 * it reads gives exactly what music-metadata's parser gives (format, native tags, common tags,
 * warnings), and every file it is not sure of is left to music-metadata. Read on the real-world
 * corpus, the generated masters, and files tagged as iTunes and MusicBrainz Picard tag them.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { type IAudioMetadata, parseFromTokenizer } from 'music-metadata';
import { beforeAll, describe, expect, it } from 'vitest';

import { BlockTokenizer } from '../../../src-main/core/model/block-tokenizer.js';
import { readPlainMp4 } from '../../../src-main/core/model/mp4-read.js';
import { fileCache, openFileSource } from '../../../src-main/core/tags/cached-file-tokenizer.js';
import { makeAudio, missingFixtureTools, systemPython } from '../../support/audio-fixtures.js';
import { corpusRoot } from '../../support/corpus-oracle.js';
import { fixtureFolder } from './fixtures.js';

const run = promisify(execFile);

/** What both readers give for `path`: the lean reader's result (null: left) and music-metadata's. */
async function bothReadings(
  path: string,
): Promise<{ plain: IAudioMetadata | null; parsed: IAudioMetadata | Error }> {
  const source = await openFileSource(path);
  const tokenizer = new BlockTokenizer(source, { path }, fileCache);
  try {
    const plain = await readPlainMp4({
      size: source.size,
      read: (target, position) => tokenizer.readAt(target, position),
    });
    const parsed = await parseFromTokenizer(new BlockTokenizer(source, { path }, fileCache), {
      skipCovers: true,
      duration: false,
    }).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    return { plain, parsed };
  } finally {
    await tokenizer.close();
  }
}

/** Every MP4 file under `dir`. */
async function mp4Files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.(m4a|m4b|mp4)$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Tags iTunes writes that the fixture writer does not: integers of every width, a genre by number, a cover. */
const itunesScript = String.raw`
import sys
from mutagen.mp4 import MP4, MP4Cover
f = MP4(sys.argv[1])
f['\xa9nam'] = ['Tempo and more']
f['\xa9ART'] = ['Beth Hart & Joe Bonamassa']
f['tmpo'] = [120]
f['cpil'] = True
f['pgap'] = False
f['rtng'] = [1]
f['stik'] = [1]
f['plID'] = [123456789012]
f['trkn'] = [(3, 12)]
f['disk'] = [(1, 2)]
f['covr'] = [MP4Cover(b'\xff\xd8\xff\xe0' + b'\x00' * 3000, imageformat=MP4Cover.FORMAT_JPEG)]
f.save()
`;

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`the MP4 reader tests need ${missing.join(', ')}`);
  console.warn(`skipping the MP4 reader tests: missing ${missing.join(', ')}`);
}

describe.skipIf(missing.length > 0)('readPlainMp4()', () => {
  let fixtures: string;
  let extra: string;

  beforeAll(async () => {
    fixtures = await fixtureFolder();
    extra = await mkdtemp(join(tmpdir(), 'courier-mp4-'));
    for (const format of ['m4a-aac', 'm4a-alac'] as const) {
      const path = join(extra, `itunes-${format}.m4a`);
      await makeAudio(format, path);
      await run(systemPython, ['-c', itunesScript, path]);
    }
    // An MP3 named .m4a, as a mislabelled download is: music-metadata's MP4 parser is tried.
    await makeAudio('mp3', join(extra, 'really.mp3'));
    await writeFile(join(extra, 'really-mp3.m4a'), await readFile(join(extra, 'really.mp3')));
    // An ID3v1 tag after the boxes (some taggers add one to anything).
    const aac = await readFile(join(fixtures, 'm4a/aac.m4a'));
    const trailer = new Uint8Array(128);
    trailer.set(new TextEncoder().encode('TAG'));
    await writeFile(join(extra, 'id3v1-after.m4a'), Buffer.concat([aac, trailer]));
  }, 60_000);

  it('reads the masters ffmpeg and mutagen write exactly as music-metadata does', async () => {
    const files = [
      join(fixtures, 'm4a/aac.m4a'),
      join(fixtures, 'm4a/alac.m4a'),
      join(extra, 'itunes-m4a-aac.m4a'),
      join(extra, 'itunes-m4a-alac.m4a'),
    ];
    for (const file of files) {
      const { plain, parsed } = await bothReadings(file);
      expect(plain, file).not.toBeNull();
      expect(plain, file).toEqual(parsed);
    }
    const { plain } = await bothReadings(join(extra, 'itunes-m4a-alac.m4a'));
    expect(plain?.format.codec).toBe('ALAC');
    expect(plain?.format.lossless).toBe(true);
    expect(plain?.native.iTunes?.find((t) => t.id === 'plID')?.value).toBe(123456789012);
    expect(plain?.common.artist).toBe('Beth Hart & Joe Bonamassa');
  });

  it('leaves to music-metadata the files it cannot read as plainly', async () => {
    for (const name of ['really-mp3.m4a', 'id3v1-after.m4a']) {
      expect((await bothReadings(join(extra, name))).plain, name).toBeNull();
    }
    // Cut inside its index: music-metadata's lenient reading and the integrity check say what is missing.
    expect((await bothReadings(join(fixtures, 'broken/truncated.m4a'))).plain).toBeNull();
  });

  it.skipIf(!existsSync(corpusRoot) && process.env.CI !== 'true')(
    'reads every real-world MP4 it takes exactly as music-metadata does, and takes tagged music',
    async () => {
      const files = await mp4Files(corpusRoot);
      expect(files.length).toBeGreaterThan(10);
      const taken: string[] = [];
      for (const file of files) {
        const { plain, parsed } = await bothReadings(file);
        if (plain === null) continue;
        taken.push(file.slice(corpusRoot.length + 1));
        expect(parsed, file).not.toBeInstanceOf(Error);
        expect(plain, file).toEqual(parsed);
      }
      // Picard's and an iTunes store file: the real tags of music, read here.
      expect(taken).toContain("MusicBrainz - Beth Hart - Sinner's Prayer.m4a");
      expect(taken).toContain('mp4/01. Trumpsta (Djuro Remix).m4a');
      // Chapters (an audiobook) stay music-metadata's.
      expect(taken).not.toContain('mp4/issue-127.m4b');
    },
    60_000,
  );
});
