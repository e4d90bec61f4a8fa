/** The folder of generated masters the tag integration tests read. */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  extensionOf,
  type FixtureFormat,
  type FixtureTags,
  makeAudio,
  type TagFamily,
  type TagJob,
  writeTags,
} from '../../support/audio-fixtures.js';

/** Every format with each tag family it carries. */
export const combos: { format: FixtureFormat; family: TagFamily; name: string }[] = [
  { format: 'mp3', family: 'id3v2.3', name: 'mp3/id3v23.mp3' },
  { format: 'mp3', family: 'id3v2.4', name: 'mp3/id3v24.mp3' },
  { format: 'flac', family: 'vorbis', name: 'lossless/flac.flac' },
  { format: 'ogg', family: 'vorbis', name: 'ogg/vorbis.ogg' },
  { format: 'opus', family: 'vorbis', name: 'ogg/opus.opus' },
  { format: 'm4a-aac', family: 'mp4', name: 'm4a/aac.m4a' },
  { format: 'm4a-alac', family: 'mp4', name: 'm4a/alac.m4a' },
  { format: 'wav', family: 'riff-info', name: 'wav/riff-info.wav' },
  { format: 'wav', family: 'id3v2.4', name: 'wav/id3-chunk.wav' },
  { format: 'wav', family: 'bwf', name: 'wav/bwf.wav' },
  { format: 'aiff', family: 'id3v2.4', name: 'aiff/id3v24.aiff' },
  { format: 'aiff', family: 'id3v2.3', name: 'aiff/id3v23.aiff' },
];

/** ISRC of the i-th combo (unique, so the default outer_id is the ISRC). */
export function isrcOf(i: number): string {
  return `GBAYE06${String(10000 + i).padStart(5, '0')}`;
}

/** The full tag set written to combo i. */
export function tagsOf(i: number, family: TagFamily): FixtureTags {
  const genres = family === 'id3v2.3' ? ['Rock'] : ['Rock', 'Pop'];
  return {
    title: `Ünïcode — 日本語 ${i}`,
    artists: ['Alice', 'Bob'],
    album: 'The Album',
    isrc:
      family === 'bwf'
        ? undefined
        : `${isrcOf(i).slice(0, 2)}-${isrcOf(i).slice(2, 5)}-${isrcOf(i).slice(5, 7)}-${isrcOf(i).slice(7)}`.toLowerCase(),
    barcode: '5099902988023',
    barcodeKey: (['BARCODE', 'UPC', 'EAN'] as const)[i % 3],
    track: `${i + 1}/20`,
    disk: '1/2',
    date: '2020-02-29',
    lyrics: 'first line\nsecond line',
    genres,
    mood: 'Happy',
    label: 'Parlophone',
    catalogNumber: 'CAT-001',
    compilation: true,
    description: `ISRC:${isrcOf(i)}`,
  };
}

/** The NFD-named file in an NFD-named folder (as macOS writes them). */
export const nfdName = 'Bjo\u0308rk/Cafe\u0301.flac';

/** Files longer than the tokenizer's blocks, tags at the end. */
export const longWav = 'long/tail-tags.wav';
export const longAiff = 'long/tail-tags.aiff';

let ready: Promise<string> | undefined;

/** Generates the folder once per test process. */
export function fixtureFolder(): Promise<string> {
  ready ??= (async () => {
    const root = await mkdtemp(join(tmpdir(), 'courier-tags-'));
    const jobs: TagJob[] = [];
    for (const [i, combo] of combos.entries()) {
      const path = join(root, combo.name);
      await makeAudio(combo.format, path);
      const tags = tagsOf(i, combo.family);
      if (tags.isrc === undefined) delete tags.isrc;
      jobs.push({ path, family: combo.family, tags });
    }
    // Longer files whose tags sit past the first 64 KiB (WAV/AIFF chunks after the audio).
    await makeAudio('wav', join(root, longWav), { seconds: 12 });
    jobs.push({ path: join(root, longWav), family: 'id3v2.4', tags: { title: 'Long WAV' } });
    await makeAudio('aiff', join(root, longAiff), { seconds: 12 });
    jobs.push({
      path: join(root, longAiff),
      family: 'id3v2.3',
      tags: { title: 'Long AIFF', date: '1999-12-31' },
    });
    await makeAudio('flac', join(root, nfdName));
    jobs.push({
      path: join(root, nfdName),
      family: 'vorbis',
      tags: { title: 'Naïve', artists: ['Björk feat. Thom Yorke'] },
    });
    await writeTags(jobs);
    // Broken and foreign files, which must never stop the scan.
    await mkdir(join(root, 'broken'), { recursive: true });
    await writeFile(join(root, 'broken/empty.mp3'), '');
    await writeFile(join(root, 'broken/text.mp3'), 'just some text notes, not audio at all\n');
    const m4a = await readFile(join(root, 'm4a/aac.m4a'));
    await writeFile(join(root, 'broken/truncated.m4a'), m4a.subarray(0, 200));
    const ogg = await readFile(join(root, 'ogg/opus.opus'));
    await writeFile(
      join(root, 'broken/truncated.opus'),
      ogg.subarray(0, Math.floor(ogg.length / 2)),
    );
    await writeFile(join(root, 'broken/song.wma'), 'x');
    await writeFile(join(root, 'cover.jpg'), 'not really a jpeg');
    await writeFile(join(root, 'notes.txt'), 'liner notes');
    return root;
  })();
  return ready;
}

export { extensionOf };

/**
 * The track `courier scan` must produce from combo `i` (written with every tag by the fixture
 * writer). ID3v2.3 keeps "Alice/Bob" as one artist and holds a single genre.
 */
export function expectedTrack(i: number, primaryMedia: string, family: TagFamily) {
  const v23 = family === 'id3v2.3';
  return {
    outer_id: isrcOf(i),
    primary_media: primaryMedia,
    title: `Ünïcode — 日本語 ${i}`,
    lyrics: 'first line\nsecond line',
    isrc: isrcOf(i),
    release_date: 20200229,
    albums: [
      {
        upc: '5099902988023',
        title: 'The Album',
        release_date: '20200229',
        type: 'Compilation',
        references: [{ id: 'CAT-001', source: 'catalog_number' }],
        track_position: String(i + 1),
        disk_number: '1',
      },
    ],
    artists: v23
      ? [{ id: 'Alice/Bob', name: 'Alice/Bob', role: 'Main' }]
      : [
          { id: 'Alice', name: 'Alice', role: 'Main' },
          { id: 'Bob', name: 'Bob', role: 'Main' },
        ],
    customer_tags: [
      ...(v23 ? ['Rock'] : ['Rock', 'Pop']).map((tag) => ({ tag, category: 'Genre' })),
      { tag: 'Happy', category: 'Mood' },
    ],
  };
}
