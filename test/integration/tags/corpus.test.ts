/**
 * The real-world corpus tier: every file of `../shared/corpus/music-metadata` read through
 * Courier's reader, against what python3-mutagen, exiftool and ffprobe read from it. No file
 * crashes or hangs the reader or shows raw library text; a file the oracle decodes is not
 * rejected; every field the tools agree on is what Courier sends. Where Courier knowingly
 * differs, corpus-known.ts names the file and says why.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cutShortCode } from '../../../src-main/core/model/masters.js';
import type { FileReadResult } from '../../../src-main/core/model/read-result.js';
import { finishScanDrafts } from '../../../src-main/core/model/read-result.js';
import type { Finding } from '../../../src-main/core/model/track.js';
import { listFiles, readTrackFile, toRelative } from '../../../src-main/core/tags/scan-folder.js';
import {
  type CorpusField,
  corpusFields,
  corpusRoot,
  datePrefix,
  type FieldValue,
  type FileOracle,
  isrcKey,
  leadingNumber,
  missingOracleTools,
  oracleCachePath,
  oracleDecodes,
  type OracleRunInfo,
  readOracle,
  verdict,
} from '../../support/corpus-oracle.js';
import {
  type CorpusCheck,
  differenceCategories,
  type DifferenceCategory,
  knownDifferences,
} from './corpus-known.js';

/**
 * Text that belongs to a library's internals, never in a finding a user reads: JavaScript
 * error names, DataView/offset messages, stack frames, source paths, and values printed by
 * accident (the one definition of "raw" for this tier).
 */
const rawLibraryText = [
  /\b(?:Range|Type|Reference|Syntax)Error\b/,
  /DataView|outside the bounds|Offset is/i,
  /\bat \S+ \(|node_modules|\.[cm]?[jt]s:\d+/,
  /\b(?:undefined|null|NaN)\b|\[object \w+\]/,
  /End-Of-Stream|EndOfStreamError|Cannot read properties|is not a function/i,
];

/**
 * Read findings (not validation) that mean Courier did not take the file as audio. A master cut
 * short is taken (its tags read, its QC shown) and blocked until the label accepts it: the
 * `cut-short` check below holds that finding to what ffmpeg decodes.
 */
function rejects(result: FileReadResult): boolean {
  return (
    result.draft === null ||
    result.findings.some((f) => f.level === 'error' && f.code !== cutShortCode)
  );
}

/**
 * Whether Courier's verdict on a master's integrity is ffmpeg's: a file ffmpeg decodes well
 * short of the length it records must be found cut short, and a file found cut short must end,
 * for ffmpeg, about where Courier says (within a second, or a tenth of its length).
 */
function integrityDifference(oracle: FileOracle, result: FileReadResult): string | null {
  const { seconds, decodedSeconds } = oracle.probe;
  const cutShort = result.findings.find((f) => f.code === cutShortCode);
  if (decodedSeconds === undefined || !oracleDecodes(oracle)) return null;
  const near = (a: number, b: number) => Math.abs(a - b) <= Math.max(1, 0.1 * Math.max(a, b));
  if (!cutShort) {
    if (seconds !== undefined && decodedSeconds < seconds - Math.max(1, 0.05 * seconds)) {
      return `ffmpeg decodes ${decodedSeconds.toFixed(2)} s of the ${seconds.toFixed(2)} s it records; Courier finds it whole`;
    }
    return null;
  }
  const endsAt = /ends at (\d+):(\d+)(?:\.(\d))?/.exec(cutShort.message);
  if (!endsAt) return `no "ends at" in: ${cutShort.message}`;
  const courier = Number(endsAt[1]) * 60 + Number(endsAt[2]) + Number(endsAt[3] ?? 0) / 10;
  if (!near(courier, decodedSeconds)) {
    return `Courier: ${cutShort.message}; ffmpeg decodes ${decodedSeconds.toFixed(2)} s`;
  }
  return null;
}

/** The formats whose masters the half-cut check cuts (those whose structure is checked). */
const halfCutFormats: ReadonlySet<string> = new Set([
  'mp3',
  'mp2',
  'mp1',
  'flac',
  'wav',
  'aiff',
  'aac',
  'alac',
  'vorbis',
  'opus',
  'speex',
  'wma',
]);

/** Masters whose half can't be told from a whole file by their structure, and why. */
const halfCutUnseen: Record<string, string> = {
  'flac/test-unknown-duration.flac': 'STREAMINFO records no length (0 samples)',
  'wav/ffmpeg-missing-chunksize.wav': 'a streamed WAV: its data size is not recorded',
  'wav/issue-1163.bwf': 'its data chunk records 0 bytes, as a streamed WAV does',
  ...Object.fromEntries(
    [
      'mp3/issue-347.mp3',
      'mp3/layer2/fl14.mp2',
      'mp3/layer2/fl15.mp2',
      'mp3/layer3/he_mode.mp3',
      'mp3/layer3/hecommon.mp3',
      'mp3/layer3/si.mp3',
      'mp3/layer3/si_block.mp3',
    ].map((file) => [
      file,
      'no Xing/VBRI length, and its frames are all one size: half falls exactly between two',
    ]),
  ),
};

/** Courier's reading of one corpus file. */
interface CourierReading {
  file: string;
  seconds: number;
  thrown?: string;
  result?: FileReadResult;
  /** Validation findings of the file delivered alone. */
  validation: Finding[];
  values: Partial<Record<CorpusField, FieldValue>>;
}

const hangAfterMs = 10_000;

async function readWithCourier(path: string): Promise<CourierReading> {
  const file = toRelative(corpusRoot, path);
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer after ${hangAfterMs} ms`)), hangAfterMs);
    });
    const result = await Promise.race([readTrackFile(corpusRoot, path), hang]);
    const seconds = (performance.now() - started) / 1000;
    const [entry] = finishScanDrafts([result]);
    const validation = entry!.findings.slice(result.findings.length);
    return { file, seconds, result, validation, values: courierValues(entry) };
  } catch (error) {
    const seconds = (performance.now() - started) / 1000;
    return { file, seconds, thrown: String(error), validation: [], values: {} };
  } finally {
    clearTimeout(timer);
  }
}

/** The compared fields as Courier would send them (the date as read: a year is not sent). */
function courierValues(
  entry: ReturnType<typeof finishScanDrafts>[number] | undefined,
): Partial<Record<CorpusField, FieldValue>> {
  const track = entry?.track;
  if (!track) return {};
  const album = track.albums?.[0];
  const number = (text: string | undefined) =>
    text === undefined ? undefined : (leadingNumber(text) ?? text);
  const values: Partial<Record<CorpusField, FieldValue | undefined>> = {
    title: track.title,
    artists: track.artists?.filter((a) => a.role === 'Main').map((a) => a.name),
    album: album?.title,
    track: number(album?.track_position),
    disc: number(album?.disk_number),
    date: entry.draft?.releaseDate
      ? (datePrefix(entry.draft.releaseDate.value) ?? entry.draft.releaseDate.value)
      : undefined,
    isrc: track.isrc === undefined ? undefined : isrcKey(track.isrc),
    upc: album?.upc,
  };
  for (const field of corpusFields) {
    const value = values[field];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) delete values[field];
  }
  return values as Partial<Record<CorpusField, FieldValue>>;
}

/** Whether Courier's value is the agreed one (a date at the precision the tools agree on). */
function matches(field: CorpusField, agreed: FieldValue, courier: FieldValue | undefined): boolean {
  if (courier === undefined) return false;
  switch (field) {
    case 'artists':
      return JSON.stringify(courier) === JSON.stringify(agreed);
    case 'isrc':
      // Courier sends one ISRC: the first of those the file holds.
      return courier === (agreed as string[])[0];
    case 'date':
      return (courier as string).slice(0, (agreed as string).length) === agreed;
    default:
      return courier === agreed;
  }
}

/** One way Courier differs from the oracle on one file. */
interface Difference {
  file: string;
  check: CorpusCheck;
  detail: string;
}

const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));

/** Every difference of one file, and how many fields were compared on it. */
function differencesOf(oracle: FileOracle, courier: CourierReading) {
  const differences: Difference[] = [];
  const add = (check: CorpusCheck, detail: string) =>
    differences.push({ file: courier.file, check, detail });
  const result = courier.result;
  const findings = [...(result?.findings ?? []), ...courier.validation];
  const raw = findings.filter((f) => rawLibraryText.some((re) => re.test(f.message)));
  if (raw.length > 0) add('raw-text', raw.map((f) => f.message).join(' | '));
  const decodes = oracleDecodes(oracle);
  const integrity = result && !rejects(result) ? integrityDifference(oracle, result) : null;
  if (integrity) add('cut-short', integrity);
  if (decodes && result && rejects(result)) {
    add('read', `rejected: ${result.findings.map((f) => f.message).join(' | ')}`);
  }
  if (result && !rejects(result)) {
    for (const finding of courier.validation.filter((f) => f.level === 'error')) {
      add(`blocks:${finding.field ?? 'file'}`, finding.message);
    }
  }
  let compared = 0;
  let matched = 0;
  // A file neither the oracle nor Courier takes as audio has no fields to send.
  const taken = decodes || (result !== undefined && !rejects(result));
  for (const field of taken ? corpusFields : []) {
    const v = verdict(oracle, field);
    if (v.kind !== 'agreed') continue;
    compared++;
    if (matches(field, v.value, courier.values[field])) matched++;
    else
      add(
        field,
        `oracle ${show(v.value)} (${v.tools.join(', ')}), Courier ${show(courier.values[field])}`,
      );
  }
  return { differences, compared, matched };
}

const missing = [
  ...(existsSync(corpusRoot) ? [] : [`the corpus at ${corpusRoot}`]),
  ...missingOracleTools(),
];
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`the corpus tier needs ${missing.join(', ')}`);
  console.warn(`skipping the corpus tier: missing ${missing.join(', ')}`);
}

describe.skipIf(missing.length > 0)('the real-world corpus', () => {
  const started = performance.now();
  let oracleInfo: OracleRunInfo;
  let oracles: Map<string, FileOracle>;
  const readings: CourierReading[] = [];
  const differences: Difference[] = [];
  let compared = 0;
  let matched = 0;

  beforeAll(async () => {
    const paths = await listFiles(corpusRoot);
    const files = paths.map((p) => toRelative(corpusRoot, p));
    ({ oracles, info: oracleInfo } = await readOracle(corpusRoot, files));
    // One file at a time, so each read is timed on its own.
    for (const path of paths) readings.push(await readWithCourier(path));
    for (const reading of readings) {
      const found = differencesOf(oracles.get(reading.file)!, reading);
      differences.push(...found.differences);
      compared += found.compared;
      matched += found.matched;
    }
  }, 180_000);

  it('finds every whole master cut in half (where its structure can show it)', async () => {
    const cutDir = await mkdtemp(join(tmpdir(), 'courier-corpus-half-'));
    const missed: string[] = [];
    let masters = 0;
    try {
      for (const reading of readings) {
        const r = reading.result;
        const whole = r?.draft && r.audio && !r.findings.some((f) => f.code === cutShortCode);
        if (!whole || !halfCutFormats.has(r.audio!.format)) continue;
        // Raw ADTS AAC has no structure Courier checks for a cut.
        if (/^ADTS/.test(r.audio!.container)) continue;
        masters++;
        const bytes = await readFile(join(corpusRoot, reading.file));
        const copy = join(cutDir, `${masters}-${reading.file.split('/').pop()}`);
        await writeFile(copy, bytes.subarray(0, Math.floor(bytes.length / 2)));
        const cut = await readTrackFile(cutDir, copy);
        const found = cut.draft === null || cut.findings.some((f) => f.code === cutShortCode);
        if (!found && !Object.hasOwn(halfCutUnseen, reading.file)) missed.push(reading.file);
      }
    } finally {
      await rm(cutDir, { recursive: true, force: true });
    }
    expect(masters).toBeGreaterThan(100);
    expect(
      missed,
      'cut in half, yet no finding (fix Courier, or say in halfCutUnseen why)',
    ).toEqual([]);
  });

  it('reads every file without a crash or a hang (under 2 s a file)', () => {
    expect(readings.length).toBeGreaterThan(200);
    expect(readings.filter((r) => r.thrown).map((r) => `${r.file}: ${r.thrown}`)).toEqual([]);
    expect(readings.filter((r) => r.seconds >= 2).map((r) => `${r.file}: ${r.seconds} s`)).toEqual(
      [],
    );
  });

  it('differs from the oracle only where knownDifferences says why', () => {
    const listed = new Set(
      Object.entries(knownDifferences).flatMap(([file, entries]) =>
        entries.flatMap((e) => e.checks.map((check) => `${file} › ${check}`)),
      ),
    );
    const unlisted = differences.filter((d) => !listed.has(`${d.file} › ${d.check}`));
    expect(
      unlisted.map((d) => `${d.file} › ${d.check}: ${d.detail}`),
      'differences from the oracle that corpus-known.ts does not list (fix Courier, or list why)',
    ).toEqual([]);
  });

  it('lists no difference that no longer occurs (fixed: remove it from knownDifferences)', () => {
    const seen = new Set(differences.map((d) => `${d.file} › ${d.check}`));
    const files = new Set(readings.map((r) => r.file));
    const stale = Object.entries(knownDifferences).flatMap(([file, entries]) =>
      entries.flatMap((e) =>
        e.checks
          .filter((check) => !seen.has(`${file} › ${check}`))
          .map((check) => `${file} › ${check}${files.has(file) ? '' : ' (no such file)'}`),
      ),
    );
    expect(stale, 'fixed: remove these from knownDifferences in corpus-known.ts').toEqual([]);
  });

  afterAll(() => {
    if (readings.length === 0) return;
    const byCategory = new Map<DifferenceCategory, { checks: number; files: Set<string> }>();
    for (const [file, entries] of Object.entries(knownDifferences)) {
      for (const entry of entries) {
        const occurring = entry.checks.filter((c) =>
          differences.some((d) => d.file === file && d.check === c),
        ).length;
        const count = byCategory.get(entry.category) ?? { checks: 0, files: new Set() };
        count.checks += occurring;
        if (occurring > 0) count.files.add(file);
        byCategory.set(entry.category, count);
      }
    }
    const decodable = readings.filter((r) => oracleDecodes(oracles.get(r.file)!)).length;
    const slowest = [...readings].sort((a, b) => b.seconds - a.seconds)[0]!;
    const lines = [
      '',
      `corpus tier: ${readings.length} files (${decodable} the oracle decodes), ${compared} agreed fields compared, ${matched} match`,
      `  oracle: ${oracleInfo.cached} cached, ${oracleInfo.measured} measured in ${oracleInfo.seconds.toFixed(1)} s (${oracleCachePath})`,
      `  Courier: slowest read ${slowest.seconds.toFixed(3)} s (${slowest.file}); tier ${((performance.now() - started) / 1000).toFixed(1)} s`,
      `  differences: ${differences.length} (checks), by category:`,
      ...[...byCategory]
        .filter(([, n]) => n.checks > 0)
        .sort((a, b) => b[1].checks - a[1].checks)
        .map(
          ([category, n]) =>
            `    ${String(n.checks).padStart(3)} on ${String(n.files.size).padStart(2)} files  ${category}: ${differenceCategories[category]}`,
        ),
    ];
    console.log(lines.join('\n'));
  });
});
