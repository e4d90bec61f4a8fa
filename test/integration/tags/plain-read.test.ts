/**
 * The lean readers (`core/model/mp3-read.ts`, `mp4-read.ts`, `flac-read.ts`, `ogg-read.ts`,
 * `wav-read.ts`, `aiff-read.ts`) against music-metadata on real
 * files: every file one reads gives exactly what music-metadata's parser gives (format, native
 * tags, common tags, warnings), and every file it is not sure of is left to music-metadata. Read
 * on the real-world corpus, the generated masters, and files tagged as iTunes, MusicBrainz Picard
 * and the fixture writer tag them.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { type IAudioMetadata, parseFromTokenizer } from 'music-metadata';
import { beforeAll, describe, expect, it } from 'vitest';

import { readPlainAiff } from '../../../src-main/core/model/aiff-read.js';
import { BlockTokenizer, bytesSource } from '../../../src-main/core/model/block-tokenizer.js';
import { readPlainFlac } from '../../../src-main/core/model/flac-read.js';
import { readPlainMp3 } from '../../../src-main/core/model/mp3-read.js';
import { readPlainMp4 } from '../../../src-main/core/model/mp4-read.js';
import { readPlainOgg } from '../../../src-main/core/model/ogg-read.js';
import { readPlainWav } from '../../../src-main/core/model/wav-read.js';
import { fileCache, openFileSource } from '../../../src-main/core/tags/cached-file-tokenizer.js';
import {
  makeAudio,
  missingFixtureTools,
  systemPython,
  writeTags,
} from '../../support/audio-fixtures.js';
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
    const read = readerFor(path);
    const plain = await read({
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

/** The lean reader of `path`, by its extension. */
function readerFor(path: string): typeof readPlainMp4 {
  if (/\.mp3$/i.test(path)) return readPlainMp3;
  if (/\.flac$/i.test(path)) return readPlainFlac;
  if (/\.(ogg|oga|opus)$/i.test(path)) return readPlainOgg;
  if (/\.wav$/i.test(path)) return readPlainWav;
  if (/\.aiff?$/i.test(path)) return readPlainAiff;
  return readPlainMp4;
}

/** Every MP3, MP4, FLAC, Ogg, WAV and AIFF file under `dir`. */
async function plainFormatFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter(
      (e) => e.isFile() && /\.(mp3|m4a|m4b|mp4|flac|ogg|oga|opus|wav|aif|aiff)$/i.test(e.name),
    )
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

describe.skipIf(missing.length > 0)('the lean readers of MP3, MP4, FLAC, Ogg, WAV and AIFF', () => {
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
    // An ID3v1 tag after the boxes or the audio (some taggers add one to anything), and an
    // ID3v2 tag before a FLAC's marker: music-metadata reads those tags.
    const trailer = new Uint8Array(128);
    trailer.set(new TextEncoder().encode('TAGTitle from ID3v1'));
    const aac = await readFile(join(fixtures, 'm4a/aac.m4a'));
    await writeFile(join(extra, 'id3v1-after.m4a'), Buffer.concat([aac, trailer]));
    const mp3 = await readFile(join(fixtures, 'mp3/id3v24.mp3'));
    await writeFile(join(extra, 'id3v1-after.mp3'), Buffer.concat([mp3, trailer]));
    const flac = await readFile(join(fixtures, 'lossless/flac.flac'));
    await writeFile(join(extra, 'id3v1-after.flac'), Buffer.concat([flac, trailer]));
    const id3 = new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]);
    await writeFile(join(extra, 'id3v2-before.flac'), Buffer.concat([id3, flac]));
    // MP3s as LAME writes them: CBR with an Info header, VBR with a Xing header, MPEG 2.5 at
    // 8 kHz, and CBR without any (music-metadata works the length out from the file's size).
    const lame: [string, string[]][] = [
      ['cbr.mp3', ['-ac', '2', '-c:a', 'libmp3lame', '-b:a', '192k']],
      ['vbr.mp3', ['-ac', '2', '-c:a', 'libmp3lame', '-q:a', '2']],
      ['mpeg25.mp3', ['-ac', '1', '-ar', '8000', '-c:a', 'libmp3lame', '-b:a', '16k']],
      ['no-xing.mp3', ['-ac', '2', '-c:a', 'libmp3lame', '-b:a', '128k', '-write_xing', '0']],
    ];
    for (const [name, args] of lame) {
      await run('ffmpeg', [
        ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=10'],
        ...args,
        ...['-metadata', `title=${name}`, join(extra, name)],
      ]);
    }
    // "ID3" with its bytes' high bits set, which music-metadata's seven-bit decoding still reads.
    const cbr = await readFile(join(extra, 'cbr.mp3'));
    await writeFile(
      join(extra, 'high-bit-id3.mp3'),
      Buffer.concat([Buffer.from([0xc9, 0xc4, 0xb3]), cbr.subarray(3)]),
    );
    // Ogg files of more than twelve pages, where music-metadata stops reading once it has the tags.
    await makeAudio('ogg', join(extra, 'long.ogg'), { seconds: 30, metadata: { title: 'Long' } });
    await makeAudio('opus', join(extra, 'long.opus'), { seconds: 30, metadata: { title: 'Long' } });
    // An AIFF with a NAME chunk before its ID3 chunk (some DAWs write both).
    const aiff = await readFile(join(fixtures, 'aiff/id3v24.aiff'));
    const name = Buffer.concat([
      Buffer.from('NAME'),
      Buffer.from([0, 0, 0, 4]),
      Buffer.from('Café'),
    ]);
    const form = Buffer.concat([aiff.subarray(0, 12), name, aiff.subarray(12)]);
    form.writeUInt32BE(form.length - 8, 4);
    await writeFile(join(extra, 'named.aiff'), form);
    // A FLAC tagged with a cover and the ARTISTS tag, as Picard writes it.
    await makeAudio('flac', join(extra, 'picard.flac'));
    await writeTags([
      {
        path: join(extra, 'picard.flac'),
        family: 'vorbis',
        tags: {
          title: 'Sinner’s Prayer',
          artists: ['Beth Hart & Joe Bonamassa'],
          artistsTag: ['Beth Hart', 'Joe Bonamassa'],
          cover: 5000,
        },
      },
    ]);
  }, 60_000);

  it('reads the masters ffmpeg and mutagen write exactly as music-metadata does', async () => {
    const files = [
      join(fixtures, 'mp3/id3v23.mp3'),
      join(fixtures, 'mp3/id3v24.mp3'),
      ...['cbr.mp3', 'vbr.mp3', 'mpeg25.mp3', 'no-xing.mp3', 'high-bit-id3.mp3'].map((name) =>
        join(extra, name),
      ),
      join(fixtures, 'm4a/aac.m4a'),
      join(fixtures, 'm4a/alac.m4a'),
      join(extra, 'itunes-m4a-aac.m4a'),
      join(extra, 'itunes-m4a-alac.m4a'),
      join(fixtures, 'lossless/flac.flac'),
      join(fixtures, 'Bjo\u0308rk/Cafe\u0301.flac'),
      join(extra, 'picard.flac'),
      join(fixtures, 'ogg/vorbis.ogg'),
      join(fixtures, 'ogg/opus.opus'),
      join(extra, 'long.ogg'),
      join(extra, 'long.opus'),
      join(fixtures, 'wav/riff-info.wav'),
      join(fixtures, 'wav/id3-chunk.wav'),
      join(fixtures, 'aiff/id3v24.aiff'),
      join(fixtures, 'aiff/id3v23.aiff'),
      join(fixtures, 'long/tail-tags.wav'),
      join(fixtures, 'long/tail-tags.aiff'),
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
    const picard = (await bothReadings(join(extra, 'picard.flac'))).plain;
    expect(picard?.common.artists).toEqual(['Beth Hart', 'Joe Bonamassa']);
    expect(picard?.format.codec).toBe('FLAC');
  });

  it('leaves to music-metadata the files it cannot read as plainly', async () => {
    for (const name of [
      'really-mp3.m4a',
      'id3v1-after.m4a',
      'id3v1-after.flac',
      'id3v2-before.flac',
    ]) {
      expect((await bothReadings(join(extra, name))).plain, name).toBeNull();
    }
    // Boxes nested thousands deep (a hostile file): left to music-metadata, no stack overflow.
    const depth = 50_000;
    const nested = new Uint8Array(8 * depth);
    for (let i = 0; i < depth; i++) {
      new DataView(nested.buffer).setUint32(8 * i, 8 * (depth - i));
      nested.set(new TextEncoder().encode(i === 0 ? 'moov' : 'udta'), 8 * i + 4);
    }
    const ftyp = new Uint8Array([0, 0, 0, 16, ...new TextEncoder().encode('ftypM4A \0\0\0\0')]);
    const deep = Buffer.concat([ftyp, nested]);
    const deepSource = {
      size: deep.length,
      read: async (t: Uint8Array, p: number) => {
        const part = deep.subarray(p, p + t.length);
        t.set(part);
        return part.length;
      },
    };
    expect(await readPlainMp4(deepSource)).toBeNull();
    // Cut short: music-metadata's lenient reading and the integrity check say what is missing.
    // A BWF's bext chunk, and an AIFF's text chunks, are music-metadata's to read.
    expect((await bothReadings(join(fixtures, 'wav/bwf.wav'))).plain).toBeNull();
    expect((await bothReadings(join(extra, 'named.aiff'))).plain).toBeNull();
    for (const name of ['broken/truncated.m4a', 'broken/truncated.opus']) {
      expect((await bothReadings(join(fixtures, name))).plain, name).toBeNull();
    }
  });

  it("gives music-metadata's reading or none for damaged files, never another (600 mutations)", async () => {
    const masters = [
      'mp3/id3v23.mp3',
      'mp3/id3v24.mp3',
      'm4a/aac.m4a',
      'm4a/alac.m4a',
      'lossless/flac.flac',
      'ogg/vorbis.ogg',
      'ogg/opus.opus',
      'wav/riff-info.wav',
      'wav/id3-chunk.wav',
      'aiff/id3v24.aiff',
    ];
    let seed = 20261124;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    let taken = 0;
    for (let k = 0; k < 600; k++) {
      const name = masters[k % masters.length]!;
      const bytes = new Uint8Array(await readFile(join(fixtures, name)));
      // Cut at a random length, or a few bytes changed in the headers or at the end.
      let damaged = bytes;
      if (random() < 0.15) damaged = bytes.subarray(0, Math.floor(random() * bytes.length));
      else {
        for (let i = 0; i < 1 + Math.floor(random() * 4); i++) {
          const at =
            random() < 0.8
              ? Math.floor(random() * Math.min(4096, bytes.length))
              : bytes.length - 1 - Math.floor(random() * Math.min(512, bytes.length));
          bytes[at] = Math.floor(random() * 256);
        }
      }
      const cache = { blockSize: 64 * 1024, maxBlocks: 8 };
      const source = bytesSource(damaged);
      const tokenizer = new BlockTokenizer(source, { path: name }, cache);
      const plain = await readerFor(name)({
        size: source.size,
        read: (target, position) => tokenizer.readAt(target, position),
      });
      if (plain === null) continue;
      taken++;
      const parsed = await parseFromTokenizer(
        new BlockTokenizer(bytesSource(damaged), { path: name }, cache),
        { skipCovers: true, duration: false },
      );
      expect(plain, `${name}, mutation ${k}`).toEqual(parsed);
    }
    // Most changes touch audio or tag text, which both read alike; the rest are left.
    expect(taken).toBeGreaterThan(100);
  });

  it.skipIf(!existsSync(corpusRoot) && process.env.CI !== 'true')(
    'reads every real-world file it takes exactly as music-metadata does, and takes tagged music',
    async () => {
      const files = await plainFormatFiles(corpusRoot);
      expect(files.length).toBeGreaterThan(60);
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
      expect(taken).toContain("MusicBrainz - Beth Hart - Sinner's Prayer.flac");
      expect(taken).toContain("MusicBrainz - Beth Hart - Sinner's Prayer.ogg");
      expect(taken).toContain("MusicBrainz - Beth Hart - Sinner's Prayer [id3v2.4].V2.mp3");
      // Chapters (an audiobook) stay music-metadata's.
      expect(taken).not.toContain('mp4/issue-127.m4b');
    },
    60_000,
  );
});
