/**
 * A back catalog of `count` (100,000 by default) small tagged files for `bench:scale`, made in
 * seconds rather than hours: a handful of masters (every format the scanner reads, 0.2–1 s each)
 * are encoded once by ffmpeg and tagged once by mutagen with fixed-width placeholders; each copy
 * is then the master's bytes with the placeholders overwritten in place (values padded with
 * spaces, which the tag reader trims), Ogg pages' checksums recomputed. No process per file.
 *
 * Albums of 8–16 tracks, one format each, under label folders; every track has its own ISRC,
 * every album its own UPC, artist, title and release date. The folder is kept between runs:
 * `<dir>.complete`, written last, says it is whole (and for which count and version).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { gs1CheckDigit } from '../../src-main/core/model/gtin.js';
import {
  extensionOf,
  type FixtureFormat,
  makeAudio,
  type TagFamily,
  writeTags,
} from '../../test/support/audio-fixtures.js';

/** What the folder holds; a marker of another version makes it again. */
const VERSION = 1;

/** The masters: every format the scanner reads, with the tag family each carries. */
const masters: Array<{ format: FixtureFormat; family: TagFamily; seconds: number }> = [
  { format: 'mp3', family: 'id3v2.4', seconds: 0.6 },
  { format: 'mp3', family: 'id3v2.3', seconds: 0.3 },
  { format: 'flac', family: 'vorbis', seconds: 0.5 },
  { format: 'ogg', family: 'vorbis', seconds: 0.4 },
  { format: 'opus', family: 'vorbis', seconds: 0.3 },
  { format: 'm4a-aac', family: 'mp4', seconds: 1 },
  { format: 'm4a-alac', family: 'mp4', seconds: 0.2 },
  { format: 'wav', family: 'id3v2.4', seconds: 0.4 },
  { format: 'aiff', family: 'id3v2.4', seconds: 0.2 },
];

/** Each tag's placeholder: a marker and a fixed width every value is padded to. */
const fields = {
  title: { marker: '~T', width: 48 },
  artist: { marker: '~A', width: 32 },
  album: { marker: '~L', width: 48 },
  isrc: { marker: '~I', width: 12 },
  upc: { marker: '~U', width: 12 },
  track: { marker: '~K', width: 5 },
  label: { marker: '~B', width: 24 },
  catalogNumber: { marker: '~C', width: 16 },
} as const;
type Field = keyof typeof fields;

const placeholder = (field: Field) =>
  fields[field].marker + '#'.repeat(fields[field].width - fields[field].marker.length);

/** The date the masters carry, overwritten per album where the family stores it whole. */
const templateDate = '2021-05-14';
/** MP4 `trkn` as (0x1234, 0x5678): found as bytes, overwritten with the track and total. */
const templateTrkn = Buffer.from([0, 0, 0x12, 0x34, 0x56, 0x78]);

/** Where in a master each placeholder sits, and how it is encoded there. */
interface Slot {
  offset: number;
  field: Field | 'date' | 'trkn';
  encoding: 'latin1' | 'utf16le';
}

interface Master {
  format: FixtureFormat;
  bytes: Buffer;
  slots: Slot[];
}

const words = (
  'Midnight Harbour Silver Echo Velvet Drift Golden Hour Northern Lights Paper Moon ' +
  'Static River Glass Garden Amber Signal Low Tide Wild Orchid Neon Rain Quiet Storm ' +
  'Distant Shore Copper Sky Blue Hour Open Road Falling Star Hidden Valley Last Train'
).split(' ');
const names = 'Ava Leo Mia Noah Ivy Finn Zoe Kai Luna Ezra Nina Otto Rosa Theo Vera Jude'.split(
  ' ',
);
const surnames = 'Hart Lowe Reyes Okafor Lind Moreau Sato Varga Quinn Brandt Costa Novak'.split(
  ' ',
);

/** A small deterministic generator: the same catalog on every machine. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A valid UPC-A (11 digits and the GS1 check digit) for album `n`. */
function upcOf(n: number): string {
  const body = `8${String(n).padStart(10, '0')}`;
  return `${body}${gs1CheckDigit(body)}`;
}

/** Encodes and tags the masters, and finds every placeholder in their bytes. */
async function makeMasters(dir: string): Promise<Master[]> {
  await mkdir(dir, { recursive: true });
  const paths = masters.map((m, i) =>
    join(dir, `master-${i}-${m.family}.${extensionOf(m.format)}`),
  );
  await Promise.all(masters.map((m, i) => makeAudio(m.format, paths[i]!, { seconds: m.seconds })));
  await writeTags(
    masters.map((m, i) => ({
      path: paths[i]!,
      family: m.family,
      tags: {
        title: placeholder('title'),
        artists: [placeholder('artist')],
        album: placeholder('album'),
        isrc: placeholder('isrc'),
        barcode: placeholder('upc'),
        // MP4 stores the position as two numbers, found by their bytes instead.
        track: m.family === 'mp4' ? `${0x1234}/${0x5678}` : placeholder('track'),
        disk: '1',
        date: templateDate,
        genres: ['Electronic'],
        label: placeholder('label'),
        catalogNumber: placeholder('catalogNumber'),
      },
    })),
  );
  const found: Master[] = [];
  for (const [i, path] of paths.entries()) {
    const bytes = await readFile(path);
    const slots: Slot[] = [];
    const find = (text: string, field: Slot['field']) => {
      for (const encoding of ['latin1', 'utf16le'] as const) {
        const needle = Buffer.from(text, encoding);
        for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) {
          slots.push({ offset: at, field, encoding });
        }
      }
    };
    for (const field of Object.keys(fields) as Field[]) find(placeholder(field), field);
    find(templateDate, 'date');
    const trkn = bytes.indexOf(templateTrkn);
    if (masters[i]!.family === 'mp4' && trkn >= 0) {
      slots.push({ offset: trkn, field: 'trkn', encoding: 'latin1' });
    }
    const missing = (['title', 'isrc', 'upc'] as const).filter(
      (f) => !slots.some((s) => s.field === f),
    );
    if (missing.length > 0) {
      throw new Error(`scale-catalog: ${path} has no place for ${missing.join(', ')}`);
    }
    found.push({ format: masters[i]!.format, bytes, slots });
  }
  return found;
}

/** The Ogg page checksum (CRC-32, polynomial 0x04c11db7, unreflected). */
const oggTable = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

/** Recomputes the checksum of every Ogg page up to `until` (the headers the tags sit in). */
function fixOggPages(bytes: Buffer, until: number): void {
  for (let at = 0; at < until && bytes.toString('latin1', at, at + 4) === 'OggS';) {
    const segments = bytes[at + 26]!;
    let length = 27 + segments;
    for (let s = 0; s < segments; s++) length += bytes[at + 27 + s]!;
    bytes.writeUInt32LE(0, at + 22);
    let crc = 0;
    for (let k = at; k < at + length; k++) {
      crc = ((crc << 8) ^ oggTable[((crc >>> 24) ^ bytes[k]!) & 0xff]!) >>> 0;
    }
    bytes.writeUInt32LE(crc, at + 22);
    at += length;
  }
}

/** One track's values, each at most its field's width. */
type Values = Record<Field, string> & { date: string; position: number; total: number };

/** A master's bytes with this track's values written over the placeholders. */
function copyOf(master: Master, values: Values): Buffer {
  const bytes = Buffer.from(master.bytes);
  let last = 0;
  for (const slot of master.slots) {
    if (slot.field === 'trkn') {
      bytes.writeUInt16BE(values.position, slot.offset + 2);
      bytes.writeUInt16BE(values.total, slot.offset + 4);
      continue;
    }
    const text =
      slot.field === 'date' ? values.date : values[slot.field].padEnd(fields[slot.field].width);
    bytes.write(text, slot.offset, slot.encoding);
    last = Math.max(last, slot.offset);
  }
  if (master.format === 'ogg' || master.format === 'opus') fixOggPages(bytes, last + 1);
  return bytes;
}

/** What a generation made, and how long it took. */
export interface ScaleCatalog {
  dir: string;
  count: number;
  albums: number;
  bytes: number;
  /** Seconds spent making it now; 0 when a complete folder was reused. */
  seconds: number;
  reused: boolean;
}

/** Writes `count` tagged files into `dir`, unless a complete catalog of that count is there. */
export async function generateScaleCatalog(dir: string, count: number): Promise<ScaleCatalog> {
  const marker = `${dir}.complete`;
  if (existsSync(marker)) {
    const done = JSON.parse(await readFile(marker, 'utf8')) as Omit<ScaleCatalog, 'reused'>;
    if ((done as { version?: number }).version === VERSION && done.count === count) {
      return { ...done, dir, reused: true, seconds: 0 };
    }
  }
  const started = performance.now();
  await rm(dir, { recursive: true, force: true });
  await rm(marker, { force: true });
  const made = await makeMasters(`${dir}-masters`);
  const random = prng(count);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const jobs: Array<{ path: string; bytes: Buffer }> = [];
  let written = 0;
  let bytes = 0;
  const flush = async () => {
    // A few writes in flight: the disk, not one await after another, sets the pace.
    await Promise.all(
      jobs.splice(0).map(async (job) => {
        await writeFile(job.path, job.bytes);
        bytes += job.bytes.length;
      }),
    );
  };
  let album = 0;
  for (let track = 0; track < count; album++) {
    const total = Math.min(8 + Math.floor(random() * 9), count - track);
    const master = made[album % made.length]!;
    const artist = `${pick(names)} ${pick(surnames)}`;
    const title = `${pick(words)} ${pick(words)}`;
    const year = 1995 + Math.floor(random() * 30);
    const date = `${year}-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`;
    const label = album % 40;
    const folder = join(
      dir,
      `Label ${String(label).padStart(2, '0')}`,
      `${artist} - ${title} (${year}) [${album}]`,
    );
    await mkdir(folder, { recursive: true });
    for (let position = 1; position <= total; position++, track++) {
      const name = `${pick(words)} ${pick(words)}`;
      const values: Values = {
        title: name,
        artist,
        album: `${title} ${album}`,
        // GB, a registrant, the year, and a designation: unique per track.
        isrc: `GB${(1296 + Math.floor(track / 100_000)).toString(36).toUpperCase()}${String(year % 100).padStart(2, '0')}${String(track % 100_000).padStart(5, '0')}`,
        upc: upcOf(album),
        track: `${position}/${total}`,
        label: `Label ${String(label).padStart(2, '0')} Records`,
        catalogNumber: `CAT-${String(album).padStart(6, '0')}`,
        date,
        position,
        total,
      };
      jobs.push({
        path: join(
          folder,
          `${String(position).padStart(2, '0')} ${name}.${extensionOf(master.format)}`,
        ),
        bytes: copyOf(master, values),
      });
      written++;
      if (jobs.length >= 64) await flush();
    }
  }
  await flush();
  await rm(`${dir}-masters`, { recursive: true, force: true });
  const seconds = (performance.now() - started) / 1000;
  const result = { dir, count: written, albums: album, bytes, seconds };
  await writeFile(marker, JSON.stringify({ version: VERSION, ...result }));
  return { ...result, reused: false };
}
