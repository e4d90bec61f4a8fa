/**
 * The oracle of the real-world corpus tier: what python3-mutagen, exiftool and ffprobe read from
 * each file of `../shared/corpus/music-metadata`, and the value of each field where the tools
 * that have an opinion agree. The tools take tens of seconds over the corpus, so their raw
 * readings are cached in the temp folder, per file by size and mtime.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { systemPython } from './audio-fixtures.js';

/** The corpus folder, beside the project as in CI (`../shared/corpus/music-metadata`). */
export const corpusRoot = resolve(
  fileURLToPath(new URL('../..', import.meta.url)),
  '../shared/corpus/music-metadata',
);

const mutagenScript = fileURLToPath(new URL('./corpus-mutagen.py', import.meta.url));

/** The fields the tier compares. */
export const corpusFields = [
  'title',
  'artists',
  'album',
  'track',
  'disc',
  'date',
  'isrc',
  'upc',
] as const;

/** One compared field. */
export type CorpusField = (typeof corpusFields)[number];

/** The oracle tools. */
export type OracleTool = 'mutagen' | 'exiftool' | 'ffprobe';

/** Raw texts a tool read for each field, one per value the tag holds (as the tool gives them). */
export type ToolReading = Partial<Record<CorpusField, string[]>>;

/** What ffprobe says about the file as audio: whether it opens, and whether its audio decodes. */
export interface ProbeResult {
  /** ffprobe opened the file. */
  opens: boolean;
  /** Container as ffprobe names it (e.g. "mov,mp4,m4a,3gp,3g2,mj2"). */
  format?: string;
  audioStreams: number;
  /** Video streams other than cover pictures. */
  videoStreams: number;
  /** Audio frames decoded from the first audio stream (`-count_frames`). */
  decodedFrames: number;
  /** ffprobe's error output, trimmed (decode errors of a damaged file land here). */
  errors: string;
  /** How long the file says it is (ffprobe's format duration; estimated from the bitrate at worst). */
  seconds?: number;
  /** How much of its first audio stream ffmpeg decodes, in seconds. */
  decodedSeconds?: number;
}

/** Everything the tools said about one file (what the cache holds). */
export interface FileOracle {
  /** Path relative to the corpus root, forward slashes. */
  file: string;
  probe: ProbeResult;
  /** mutagen's class for the file (e.g. "MP3", "FLAC"), or null when it does not read it. */
  mutagenType: string | null;
  readings: Partial<Record<OracleTool, ToolReading>>;
}

/** Whether the oracle decodes the file: ffprobe opens it and decodes frames of its audio. */
export function oracleDecodes(oracle: FileOracle): boolean {
  return oracle.probe.opens && oracle.probe.audioStreams > 0 && oracle.probe.decodedFrames > 0;
}

// -------------------------------------------------------------------------------------------
// Tools: presence, and one run over a list of files each.

const run = (
  command: string,
  args: string[],
  options: { cwd?: string; input?: string; timeoutMs?: number } = {},
) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    const child = execFile(
      command,
      args,
      {
        cwd: options.cwd,
        maxBuffer: 256 * 1024 * 1024,
        timeout: options.timeoutMs ?? 60_000,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });

/** Which oracle tools are missing here (empty when the tier can run). */
export function missingOracleTools(): string[] {
  const missing: string[] = [];
  if (spawnSync('ffprobe', ['-version']).status !== 0) missing.push('ffprobe');
  if (spawnSync('ffmpeg', ['-version']).status !== 0) missing.push('ffmpeg');
  if (spawnSync('exiftool', ['-ver']).status !== 0) missing.push('exiftool');
  if (spawnSync(systemPython, ['-c', 'import mutagen']).status !== 0) {
    missing.push('python3-mutagen (/usr/bin/python3)');
  }
  return missing;
}

/** The tools' versions: a new version may read differently, so it starts a new cache. */
function toolVersions(): string {
  const first = (command: string, args: string[]) =>
    spawnSync(command, args, { encoding: 'utf8' }).stdout.split('\n')[0] ?? '';
  return [
    first('ffprobe', ['-version']),
    first('exiftool', ['-ver']),
    first(systemPython, ['-c', 'import mutagen; print(mutagen.version_string)']),
  ].join('|');
}

interface FfprobeJson {
  streams?: Array<{
    codec_type?: string;
    nb_read_frames?: string;
    disposition?: { attached_pic?: number };
    tags?: Record<string, string>;
  }>;
  format?: { format_name?: string; duration?: string; tags?: Record<string, string> };
}

/**
 * Seconds of the first audio stream ffmpeg decodes from `file` (relative to `root`, or
 * absolute): its progress report's last out_time; undefined when nothing decodes.
 */
export async function decodedSeconds(root: string, file: string): Promise<number | undefined> {
  const { stdout } = await run(
    'ffmpeg',
    [
      '-v',
      'quiet',
      '-nostdin',
      '-i',
      file,
      '-map',
      '0:a:0',
      '-f',
      'null',
      '-',
      '-progress',
      'pipe:1',
    ],
    { cwd: root, timeoutMs: 20_000 },
  );
  const times = [...stdout.matchAll(/^out_time_us=(\d+)$/gm)].map((m) => Number(m[1]));
  return times.length > 0 ? times[times.length - 1]! / 1e6 : undefined;
}

/** ffprobe's tag names (lower-cased) for each field, first found wins. */
const ffprobeKeys: Record<CorpusField, string[]> = {
  title: ['title'],
  artists: ['artists', 'wm/artists', 'artist', 'author'],
  album: ['album'],
  track: ['track'],
  disc: ['disc'],
  date: ['date', 'year'],
  isrc: ['isrc', 'tsrc', 'wm/isrc'],
  upc: ['barcode', 'upc', 'ean', 'wm/barcode'],
};

async function probeFile(root: string, file: string): Promise<Omit<FileOracle, 'mutagenType'>> {
  // -count_frames decodes every frame: a file whose audio does not decode shows it here.
  const { code, stdout, stderr } = await run(
    'ffprobe',
    ['-v', 'error', '-count_frames', '-show_format', '-show_streams', '-of', 'json', file],
    // A file ffprobe chews on for longer is not one a label could deliver.
    { cwd: root, timeoutMs: 20_000 },
  );
  let json: FfprobeJson = {};
  try {
    json = JSON.parse(stdout) as FfprobeJson;
  } catch {
    // No JSON: ffprobe could not open the file; `opens` below says so.
  }
  const streams = json.streams ?? [];
  const audio = streams.filter((s) => s.codec_type === 'audio');
  const tags = new Map<string, string>();
  for (const source of [json.format?.tags, ...audio.map((s) => s.tags)]) {
    for (const [key, value] of Object.entries(source ?? {})) {
      if (!tags.has(key.toLowerCase())) tags.set(key.toLowerCase(), value);
    }
  }
  const reading: ToolReading = {};
  for (const field of corpusFields) {
    const key = ffprobeKeys[field].find((k) => (tags.get(k) ?? '').trim() !== '');
    if (key) reading[field] = [tags.get(key)!];
  }
  return {
    file,
    probe: {
      opens: code === 0 && json.format !== undefined,
      format: json.format?.format_name,
      audioStreams: audio.length,
      videoStreams: streams.filter(
        (s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1,
      ).length,
      decodedFrames: Number(audio[0]?.nb_read_frames ?? 0) || 0,
      errors: stderr.trim().slice(0, 400),
      ...(Number(json.format?.duration) > 0 ? { seconds: Number(json.format!.duration) } : {}),
      ...(audio.length > 0 ? { decodedSeconds: await decodedSeconds(root, file) } : {}),
    },
    readings: { ffprobe: reading },
  };
}

interface MutagenAnswer {
  type: string | null;
  error: string | null;
  fields: { [key: string]: string[] | undefined };
}

async function readMutagen(root: string, files: string[]): Promise<Map<string, MutagenAnswer>> {
  const { code, stdout, stderr } = await run(systemPython, [mutagenScript], {
    cwd: root,
    input: JSON.stringify(files),
  });
  if (code !== 0) throw new Error(`corpus oracle: mutagen failed: ${stderr.trim()}`);
  return new Map(Object.entries(JSON.parse(stdout) as Record<string, MutagenAnswer>));
}

/**
 * exiftool's groups (its family-1 names) by tag family, most trusted first, with the tag names
 * of each field. ID3v1 comes last: it is a truncated copy where ID3v2 exists. exiftool does not
 * read ID3 inside WAV, and reads Matroska tags hardly at all (its date is the muxing date).
 */
const exiftoolFamilies: Array<{ groups: string[]; tags: Partial<Record<CorpusField, string[]>> }> =
  [
    {
      groups: ['ID3v2_4', 'ID3v2_3', 'ID3v2_2'],
      tags: {
        title: ['Title'],
        artists: ['TXXX:ARTISTS', 'Artist'],
        album: ['Album'],
        track: ['Track'],
        disc: ['PartOfSet'],
        date: ['RecordingTime', 'Year+Date'],
        isrc: ['ISRC'],
        upc: ['TXXX:BARCODE', 'TXXX:UPC', 'TXXX:EAN'],
      },
    },
    {
      groups: ['Vorbis'],
      tags: {
        title: ['Title'],
        artists: ['Artists', 'Artist'],
        album: ['Album'],
        track: ['TrackNumber'],
        disc: ['Discnumber'],
        date: ['Date'],
        isrc: ['ISRCNumber'],
        upc: ['Barcode', 'Upc', 'Ean'],
      },
    },
    {
      groups: ['ItemList', 'iTunes'],
      tags: {
        title: ['Title'],
        artists: ['Artists', 'Artist'],
        album: ['Album'],
        track: ['TrackNumber'],
        disc: ['DiskNumber'],
        date: ['ContentCreateDate'],
        isrc: ['ISRC'],
        upc: ['Barcode', 'UPC', 'EAN'],
      },
    },
    {
      groups: ['APE'],
      tags: {
        title: ['Title'],
        artists: ['Artists', 'Artist'],
        album: ['Album'],
        track: ['Track'],
        disc: ['Disc'],
        date: ['Year'],
        isrc: ['Isrc', 'ISRC'],
        upc: ['Barcode', 'UPC', 'EAN'],
      },
    },
    {
      groups: ['ASF'],
      tags: {
        title: ['Title'],
        artists: ['Artists', 'Author'],
        album: ['AlbumTitle'],
        track: ['TrackNumber'],
        disc: ['PartOfSet'],
        date: ['Year'],
        isrc: ['ISRC'],
        upc: ['Barcode'],
      },
    },
    {
      groups: ['RIFF'],
      tags: {
        title: ['Title'],
        artists: ['Artist'],
        album: ['Product'],
        track: ['TrackNumber'],
        date: ['DateCreated'],
        isrc: ['ISRCNumber'],
      },
    },
    { groups: ['AIFF'], tags: { title: ['Name'], artists: ['Author'] } },
    {
      groups: ['ID3v1'],
      tags: {
        title: ['Title'],
        artists: ['Artist'],
        album: ['Album'],
        track: ['Track'],
        date: ['Year'],
      },
    },
  ];

/** One exiftool -json object → group → tag → values (order matters only where mutagen has none). */
function exiftoolTags(entry: Record<string, unknown>): Map<string, Map<string, string[]>> {
  const found: Array<{ group: string; tag: string; copy: number; value: string }> = [];
  for (const [key, raw] of Object.entries(entry)) {
    const parts = key.split(':');
    if (parts.length < 2) continue;
    // -G1:4 names the earlier copies of a repeated tag "Copy1", "Copy2"…; the last one plainly.
    const copy =
      parts.length === 3 ? Number(parts[1]!.replace('Copy', '')) : Number.MAX_SAFE_INTEGER;
    for (const value of (Array.isArray(raw) ? raw : [raw]).map(String)) {
      // ID3 TXXX frames come as "(DESCRIPTION) value".
      const txxx = parts.at(-1) === 'UserDefinedText' ? /^\((.*?)\) ([\s\S]*)$/.exec(value) : null;
      found.push({
        group: parts[0]!,
        tag: txxx ? `TXXX:${txxx[1]!.toUpperCase()}` : parts.at(-1)!,
        copy,
        value: txxx ? txxx[2]! : value,
      });
    }
  }
  const groups = new Map<string, Map<string, string[]>>();
  for (const { group, tag, value } of found.sort((a, b) => a.copy - b.copy)) {
    const byTag = groups.get(group) ?? new Map<string, string[]>();
    groups.set(group, byTag);
    byTag.set(tag, [...(byTag.get(tag) ?? []), value]);
  }
  return groups;
}

function exiftoolReading(entry: Record<string, unknown>): ToolReading {
  const groups = exiftoolTags(entry);
  const reading: ToolReading = {};
  for (const field of corpusFields) {
    search: for (const family of exiftoolFamilies) {
      for (const tag of family.tags[field] ?? []) {
        for (const group of family.groups) {
          const byTag = groups.get(group);
          if (!byTag) continue;
          let values = byTag.get(tag) ?? [];
          if (tag === 'Year+Date') {
            // ID3v2.3 keeps the year in TYER and the day and month in TDAT (DDMM).
            const year = byTag.get('Year')?.[0];
            const ddmm = byTag.get('Date')?.[0];
            values = year
              ? [
                  ddmm && /^\d{4}$/.test(ddmm)
                    ? `${year}-${ddmm.slice(2)}-${ddmm.slice(0, 2)}`
                    : year,
                ]
              : [];
          }
          values = values.filter((v) => v.trim() !== '');
          if (values.length > 0) {
            reading[field] = values;
            break search;
          }
        }
      }
    }
  }
  return reading;
}

async function readExiftool(root: string, files: string[]): Promise<Map<string, ToolReading>> {
  // One process for all files; -a keeps repeated tags, -G1:4 says which group and which copy.
  const { stdout } = await run(
    'exiftool',
    ['-json', '-a', '-n', '-G1:4', '-charset', 'filename=utf8', '-@', '-'],
    { cwd: root, input: files.join('\n') + '\n' },
  );
  const answers = new Map<string, ToolReading>();
  let entries: Array<Record<string, unknown>>;
  try {
    entries = JSON.parse(stdout || '[]') as Array<Record<string, unknown>>;
  } catch {
    throw new Error('corpus oracle: exiftool printed no JSON');
  }
  for (const entry of entries) {
    answers.set(String(entry.SourceFile), exiftoolReading(entry));
  }
  return answers;
}

/** Runs `work` over `items`, `lanes` at a time. */
async function eachLimited<T>(items: T[], lanes: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
}

// -------------------------------------------------------------------------------------------
// The cache.

interface CacheEntry {
  size: number;
  mtimeMs: number;
  oracle: FileOracle;
}

interface CacheFile {
  key: string;
  files: Record<string, CacheEntry>;
}

/** The cache holds for these tool versions and this code asking them (any change re-measures). */
async function cacheKey(): Promise<string> {
  const sources = await Promise.all(
    [mutagenScript, fileURLToPath(import.meta.url)].map((path) => readFile(path, 'utf8')),
  );
  return createHash('sha256')
    .update([toolVersions(), ...sources].join('\n'))
    .digest('hex')
    .slice(0, 16);
}

/** Where the oracle's answers are kept between runs. */
export const oracleCachePath = join(tmpdir(), 'courier-corpus-oracle', 'cache.json');

/** How a run of `readOracle` went (for the tier's summary). */
export interface OracleRunInfo {
  cached: number;
  measured: number;
  seconds: number;
}

/**
 * What the oracle says about each of `files` (relative to `root`): from the cache where the
 * file's size and mtime are unchanged, else by running the tools (two ffprobes at a time).
 */
export async function readOracle(
  root: string,
  files: string[],
): Promise<{ oracles: Map<string, FileOracle>; info: OracleRunInfo }> {
  const started = performance.now();
  const key = await cacheKey();
  let cache: CacheFile = { key, files: {} };
  try {
    const stored = JSON.parse(await readFile(oracleCachePath, 'utf8')) as CacheFile;
    if (stored.key === key) cache = stored;
  } catch {
    // No cache yet, or an unreadable one: measure everything.
  }
  const oracles = new Map<string, FileOracle>();
  const stats = new Map<string, { size: number; mtimeMs: number }>();
  const stale: string[] = [];
  for (const file of files) {
    const s = await stat(join(root, file));
    stats.set(file, { size: s.size, mtimeMs: s.mtimeMs });
    const hit = cache.files[file];
    if (hit && hit.size === s.size && hit.mtimeMs === s.mtimeMs) oracles.set(file, hit.oracle);
    else stale.push(file);
  }
  if (stale.length > 0) {
    const [mutagen, exiftool] = await Promise.all([
      readMutagen(root, stale),
      readExiftool(root, stale),
    ]);
    await eachLimited(stale, 2, async (file) => {
      const probed = await probeFile(root, file);
      const m = mutagen.get(file);
      const mutagenReading: ToolReading = {
        title: m?.fields.title,
        artists: m?.fields.artists,
        album: m?.fields.album,
        track: m?.fields.track,
        disc: m?.fields.disc,
        date: m?.fields.date,
        isrc: m?.fields.isrc,
        upc: m?.fields.barcode,
      };
      for (const field of corpusFields) {
        if (!mutagenReading[field]?.length) delete mutagenReading[field];
      }
      const oracle: FileOracle = {
        ...probed,
        mutagenType: m?.type ?? null,
        readings: {
          mutagen: mutagenReading,
          exiftool: exiftool.get(file) ?? {},
          ffprobe: probed.readings.ffprobe ?? {},
        },
      };
      oracles.set(file, oracle);
      cache.files[file] = { ...stats.get(file)!, oracle };
    });
    await mkdir(join(oracleCachePath, '..'), { recursive: true });
    const temp = `${oracleCachePath}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(cache));
    await rename(temp, oracleCachePath);
  }
  return {
    oracles,
    info: {
      cached: files.length - stale.length,
      measured: stale.length,
      seconds: (performance.now() - started) / 1000,
    },
  };
}

// -------------------------------------------------------------------------------------------
// Normalising and agreeing: the one place that says when two readings are the same value.

/** A field's value after normalising: text, a list of names or codes, or a number. */
export type FieldValue = string | string[] | number;

// eslint-disable-next-line no-control-regex -- NULs are what RIFF and AIFF writers pad with
const trailingNuls = /\u0000+$/;

/** Trimmed, NFC, without trailing NULs. */
export function cleanText(text: string): string {
  return text.replace(trailingNuls, '').normalize('NFC').trim();
}

/** "3", "03", "3/12", "3 of 12" → 3; null when the text does not start with a number. */
export function leadingNumber(text: string): number | null {
  const m = /^\s*(\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}

/** A date's YYYY[-MM[-DD]] prefix ("2011:09:27", "20110927", "2013-04-29T07:00:00Z" alike). */
export function datePrefix(text: string): string | null {
  const t = cleanText(text);
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(t);
  const m = compact ?? /^(\d{4})(?:[-:./](\d{1,2})(?:[-:./](\d{1,2}))?)?(?:$|[T\s])/.exec(t);
  if (!m) return null;
  const pad = (part: string | undefined) => (part === undefined ? '' : `-${part.padStart(2, '0')}`);
  return `${m[1]}${pad(m[2])}${m[2] === undefined ? '' : pad(m[3])}`;
}

/** An ISRC as compared: upper case, without spaces, hyphens, dots or underscores. */
export function isrcKey(text: string): string {
  return cleanText(text)
    .toUpperCase()
    .replace(/[\s\-_.]/g, '');
}

/** Tools join several values of one tag with these ("/" in ID3, ";" in ffprobe's Vorbis). */
// eslint-disable-next-line no-control-regex -- a NUL is how ID3v2.4 and APE separate values
const joiners = /\s*[/;\u0000]\s*/;

/** The names or codes in a list of values, each value split where tools join values. */
function tokens(values: string[]): string[] {
  return values
    .flatMap((v) => v.split(joiners))
    .map(cleanText)
    .filter((v) => v !== '');
}

/** One tool's reading of a field, normalised (undefined when it has no usable value). */
export function normalise(
  field: CorpusField,
  values: string[] | undefined,
): FieldValue | undefined {
  const texts = (values ?? []).map(cleanText).filter((v) => v !== '');
  const first = texts[0];
  if (first === undefined) return undefined;
  switch (field) {
    case 'title':
    case 'album':
      return first;
    case 'artists':
      return texts;
    case 'track':
    case 'disc':
      // Position 0 is how taggers write "not set" (#16: read as absent).
      return leadingNumber(first) || undefined;
    case 'date':
      // So is year 0000.
      return /^0{4}/.test(first) ? undefined : (datePrefix(first) ?? undefined);
    case 'isrc':
      return tokens(texts).map(isrcKey);
    case 'upc':
      return first.replace(/[\s-]/g, '');
  }
}

/**
 * Whether two tools' lists name the same things: the same names once split where tools join
 * values, one tool giving only the first few (ffprobe keeps the first value of an ID3v2.4 or
 * ASF list), or the same text once the joins are dropped (exiftool drops APE's NULs).
 */
function sameList(a: string[], b: string[]): boolean {
  const [ta, tb] = [tokens(a), tokens(b)];
  const [short, long] = ta.length <= tb.length ? [ta, tb] : [tb, ta];
  const rest = [...long];
  const within = short.every((name) => {
    const i = rest.indexOf(name);
    if (i >= 0) rest.splice(i, 1);
    return i >= 0;
  });
  return within || ta.join('') === tb.join('');
}

/** Whether two normalised values of `field` agree (dates agree on their common precision). */
function agrees(field: CorpusField, a: FieldValue, b: FieldValue): boolean {
  if (field === 'artists' || field === 'isrc') return sameList(a as string[], b as string[]);
  if (field === 'date') {
    const [x, y] = [a as string, b as string];
    return x.startsWith(y) || y.startsWith(x);
  }
  return a === b;
}

/** The oracle's verdict on one field of one file. */
export type Verdict =
  | { kind: 'agreed'; value: FieldValue; tools: OracleTool[] }
  | { kind: 'disputed'; values: Partial<Record<OracleTool, FieldValue>> }
  | { kind: 'unknown' };

const toolOrder: OracleTool[] = ['mutagen', 'exiftool', 'ffprobe'];

/**
 * The agreed value of `field`: at least two tools read a value and each agrees with the most
 * informative reading (a tool without a value has no opinion: tools read different tag
 * families). That reading is mutagen's for lists (it keeps "AC/DC" whole and splits at NULs),
 * else the longest; for dates the most precise.
 */
export function verdict(oracle: FileOracle, field: CorpusField): Verdict {
  const values: Partial<Record<OracleTool, FieldValue>> = {};
  for (const tool of toolOrder) {
    const value = normalise(field, oracle.readings[tool]?.[field]);
    if (value !== undefined) values[tool] = value;
  }
  const present = toolOrder.filter((t) => values[t] !== undefined);
  if (present.length < 2) return { kind: 'unknown' };
  const longest = <T extends string | string[]>(list: T[]) =>
    [...list].sort((x, y) => y.length - x.length)[0]!;
  let value = values[present[0]!]!;
  if (field === 'date') value = longest(present.map((t) => values[t] as string));
  if (field === 'artists' || field === 'isrc') {
    value = values.mutagen ?? longest(present.map((t) => values[t] as string[]));
  }
  if (!present.every((t) => agrees(field, value, values[t]!))) return { kind: 'disputed', values };
  return { kind: 'agreed', value, tools: present };
}
