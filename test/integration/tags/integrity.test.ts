/**
 * Masters QC on masters made here the way encoders write them (ffmpeg: LAME CBR with and
 * without an Info frame, VBR, MPEG layer II, FLAC 16/44.1 and 24/96, WAV, RF64, AIFF, AAC with
 * its index first or last, ALAC, Vorbis, Opus, WMA), then cut short at several points, or zeroed
 * from a point as a download that stopped leaves a file. Every whole master is found whole with
 * its properties; every cut one is a blocking error that ends where ffmpeg stops decoding it.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { AudioFormatId } from '../../../src-main/core/model/audio-properties.js';
import type { FileReadResult } from '../../../src-main/core/model/read-result.js';
import { readTrackFile } from '../../../src-main/core/tags/scan-folder.js';
import { decodedSeconds } from '../../support/corpus-oracle.js';

const run = promisify(execFile);

interface Master {
  name: string;
  args: string[];
  format: AudioFormatId;
  lossless: boolean;
  sampleRate: number;
  bitDepth?: number;
}

const seconds = 8;
const masters: Master[] = [
  {
    name: 'cbr-info.mp3',
    args: ['-c:a', 'libmp3lame', '-b:a', '128k'],
    format: 'mp3',
    lossless: false,
    sampleRate: 44100,
  },
  {
    name: 'cbr-no-xing.mp3',
    args: ['-c:a', 'libmp3lame', '-b:a', '96k', '-write_xing', '0', '-write_id3v1', '1'],
    format: 'mp3',
    lossless: false,
    sampleRate: 44100,
  },
  {
    name: 'vbr.mp3',
    args: ['-c:a', 'libmp3lame', '-q:a', '4'],
    format: 'mp3',
    lossless: false,
    sampleRate: 44100,
  },
  {
    name: 'layer2.mp2',
    args: ['-c:a', 'mp2', '-b:a', '192k'],
    format: 'mp2',
    lossless: false,
    sampleRate: 44100,
  },
  {
    name: 'cd.flac',
    args: ['-c:a', 'flac', '-sample_fmt', 's16'],
    format: 'flac',
    lossless: true,
    sampleRate: 44100,
    bitDepth: 16,
  },
  {
    name: 'hires.flac',
    args: ['-c:a', 'flac', '-ar', '96000', '-sample_fmt', 's32'],
    format: 'flac',
    lossless: true,
    sampleRate: 96000,
    bitDepth: 24,
  },
  {
    name: 'pcm16.wav',
    args: ['-c:a', 'pcm_s16le'],
    format: 'wav',
    lossless: true,
    sampleRate: 44100,
    bitDepth: 16,
  },
  {
    name: 'pcm24.wav',
    args: ['-c:a', 'pcm_s24le', '-ar', '48000'],
    format: 'wav',
    lossless: true,
    sampleRate: 48000,
    bitDepth: 24,
  },
  {
    name: 'broadcast.rf64.wav',
    args: ['-c:a', 'pcm_s24le', '-ar', '48000', '-rf64', 'always'],
    format: 'wav',
    lossless: true,
    sampleRate: 48000,
    bitDepth: 24,
  },
  {
    name: 'pcm16.aiff',
    args: ['-c:a', 'pcm_s16be', '-f', 'aiff'],
    format: 'aiff',
    lossless: true,
    sampleRate: 44100,
    bitDepth: 16,
  },
  {
    // AIFF-C with sowt (byte-swapped PCM): what ffmpeg and macOS write for 16-bit AIFF.
    name: 'pcm16-sowt.aiff',
    args: ['-c:a', 'pcm_s16le', '-f', 'aiff'],
    format: 'aiff',
    lossless: true,
    sampleRate: 44100,
    bitDepth: 16,
  },
  {
    name: 'float32.aiff',
    args: ['-c:a', 'pcm_f32be', '-f', 'aiff'],
    format: 'aiff',
    lossless: true,
    sampleRate: 44100,
    bitDepth: 32,
  },
  {
    name: 'aac-faststart.m4a',
    args: ['-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart'],
    format: 'aac',
    lossless: false,
    sampleRate: 44100,
  },
  {
    name: 'aac-index-last.m4a',
    args: ['-c:a', 'aac', '-b:a', '128k'],
    format: 'aac',
    lossless: false,
    sampleRate: 44100,
  },
  {
    name: 'alac.m4a',
    args: ['-c:a', 'alac', '-sample_fmt', 's16p', '-movflags', '+faststart'],
    format: 'alac',
    lossless: true,
    sampleRate: 44100,
    bitDepth: 16,
  },
  {
    name: 'vorbis.ogg',
    args: ['-c:a', 'libvorbis', '-q:a', '3'],
    format: 'vorbis',
    lossless: false,
    sampleRate: 44100,
  },
  {
    name: 'flac-in-ogg.oga',
    args: ['-c:a', 'flac', '-sample_fmt', 's16', '-f', 'ogg'],
    format: 'flac',
    lossless: true,
    sampleRate: 44100,
    bitDepth: 16,
  },
  {
    // Matroska's FLAC track gives no bit depth to music-metadata.
    name: 'flac.mkv',
    args: ['-c:a', 'flac', '-sample_fmt', 's16'],
    format: 'flac',
    lossless: true,
    sampleRate: 44100,
  },
  {
    name: 'wma.wma',
    args: ['-c:a', 'wmav2', '-b:a', '128k'],
    format: 'wma',
    lossless: false,
    sampleRate: 44100,
  },
  {
    name: 'opus.opus',
    args: ['-c:a', 'libopus', '-b:a', '96k', '-ar', '48000'],
    format: 'opus',
    lossless: false,
    sampleRate: 48000,
  },
];

/**
 * Where masters are cut: a fraction of their size; `zeros` keeps the size, zeroing the rest
 * (compressed masters only: zeros in PCM are silence, which a master may well end with).
 */
const cuts = [
  { at: 0.3, zeros: false },
  { at: 0.6, zeros: false },
  { at: 0.95, zeros: false },
  { at: 0.5, zeros: true },
];

const missing = ['ffmpeg', 'ffprobe'].filter((t) => spawnSync(t, ['-version']).status !== 0);
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`masters QC tests need ${missing.join(', ')}`);
  console.warn(`skipping masters QC tests: missing ${missing.join(', ')}`);
}

/** "ends at 1:02.3" → seconds. */
function endsAt(message: string): number | null {
  const m = /ends at (\d+):(\d+)(?:\.(\d))?/.exec(message);
  return m ? Number(m[1]) * 60 + Number(m[2]) + Number(m[3] ?? 0) / 10 : null;
}

describe.skipIf(missing.length > 0)('masters QC', () => {
  let root: string;
  const whole = new Map<string, FileReadResult>();
  const cut = new Map<string, { result: FileReadResult; decoded: number }>();

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'courier-qc-'));
    await mkdir(join(root, 'cut'));
    for (const master of masters) {
      const path = join(root, master.name);
      await run('ffmpeg', [
        ...['-v', 'error', '-y', '-f', 'lavfi', '-i'],
        `anoisesrc=color=pink:amplitude=0.3:duration=${seconds}:sample_rate=44100:seed=16`,
        ...['-ac', '2', '-metadata', 'title=Cut Test', '-metadata', 'artist=QC Band'],
        ...master.args,
        path,
      ]);
      whole.set(master.name, await readTrackFile(root, path));
      const bytes = await readFile(path);
      for (const c of cuts) {
        if (c.zeros && master.lossless && master.format !== 'flac' && master.format !== 'alac') {
          continue;
        }
        const name = `cut/${c.zeros ? 'zeros' : 'cut'}-${c.at}-${master.name}`;
        const size = Math.floor(bytes.length * c.at);
        const content = c.zeros
          ? Buffer.concat([bytes.subarray(0, size), Buffer.alloc(bytes.length - size)])
          : bytes.subarray(0, size);
        await writeFile(join(root, name), content);
        const result = await readTrackFile(root, join(root, name));
        // Zeros confuse decoders (ffmpeg stops early on some): there the cut is the byte fraction.
        const expected = c.zeros ? c.at * seconds : ((await decodedSeconds(root, name)) ?? 0);
        cut.set(name, { result, decoded: expected });
      }
    }
  }, 180_000);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('finds every whole master whole, with its format, rate, depth, channels and length', () => {
    for (const master of masters) {
      const result = whole.get(master.name)!;
      expect(result.findings, master.name).toEqual([]);
      // Its tags are read in every format (FLAC in Ogg included; ffmpeg tags no raw MP2).
      if (master.format !== 'mp2') expect(result.draft?.title?.value, master.name).toBe('Cut Test');
      expect(result.audio, master.name).toMatchObject({
        format: master.format,
        lossless: master.lossless,
        sampleRate: master.sampleRate,
        channels: 2,
        ...(master.bitDepth ? { bitDepth: master.bitDepth } : {}),
      });
      if (!master.lossless) expect(result.audio?.bitDepth, master.name).toBeUndefined();
      expect(result.audio?.duration, master.name).toBeGreaterThan(seconds - 0.1);
      expect(result.audio?.duration, master.name).toBeLessThan(seconds + 0.2);
      expect(result.audio?.bitrate, master.name).toBeGreaterThan(0);
    }
  });

  it('reads FLAC in Ogg whose comment is damaged: the audio, and the comments before the damage', async () => {
    const bytes = await readFile(join(root, 'flac-in-ogg.oga'));
    const at = (text: string) => bytes.indexOf(Buffer.from(text));
    // The 32-bit little-endian length before a field of the comment block, set past the page.
    const damaged = (field: string) => {
      const copy = Buffer.from(bytes);
      copy.writeUInt32LE(0x7fff_ff00, at(field) - 4);
      return copy;
    };
    // ffmpeg writes the vendor, then encoder, title and artist comments.
    expect(at('Lavf')).toBeGreaterThan(0);
    expect(at('title=Cut Test')).toBeGreaterThan(at('Lavf'));
    expect(at('artist=QC Band')).toBeGreaterThan(at('title=Cut Test'));
    const cases = [
      // The vendor string's length: no comment can be found.
      { name: 'damaged-vendor.oga', bytes: damaged('Lavf'), title: undefined },
      // The artist's length: the comments before it are kept.
      { name: 'damaged-artist.oga', bytes: damaged('artist=QC Band'), title: 'Cut Test' },
    ];
    for (const c of cases) {
      await writeFile(join(root, c.name), c.bytes);
      // ffmpeg plays it (the comment is metadata, the audio after it is whole).
      expect(await decodedSeconds(root, c.name), c.name).toBeGreaterThan(seconds - 0.1);
      const result = await readTrackFile(root, join(root, c.name));
      expect(
        result.findings.filter((f) => f.level === 'error'),
        c.name,
      ).toEqual([]);
      expect(result.draft?.title?.value, c.name).toBe(c.title);
      expect(result.draft?.artists, c.name).toBeUndefined();
      expect(result.audio, c.name).toMatchObject({ format: 'flac', lossless: true, channels: 2 });
    }
  });

  it('blocks every cut master, saying where it ends as ffmpeg decodes it', () => {
    const report: string[] = [];
    for (const [name, { result, decoded: seconds }] of cut) {
      // Its tags are still read: the label sees the track, and why it cannot go.
      const finding = result.findings.find((f) => f.level === 'error');
      if (!finding) {
        report.push(`${name}: no error (${JSON.stringify(result.findings)})`);
        continue;
      }
      if (name.includes('aac-index-last')) {
        // Cut before its index, nothing is left to play or read: it says it was cut.
        if (result.draft !== null) report.push(`${name}: read without its index`);
        if (
          !/^the master is cut short \((it ends inside its audio data|its index)/.test(
            finding.message,
          )
        ) {
          report.push(`${name}: ${finding.message}`);
        }
        continue;
      }
      if (result.draft === null && !(name.includes('zeros') && name.endsWith('.mkv'))) {
        report.push(`${name}: tags not read: ${finding.message}`);
      }
      if (finding.code !== 'cut-short') report.push(`${name}: ${finding.message}`);
      const at = endsAt(finding.message);
      if (at !== null && Math.abs(at - seconds) > Math.max(1, 0.15 * seconds)) {
        report.push(`${name}: says ${at} s, ffmpeg decodes ${seconds.toFixed(2)} s`);
      }
      // A zeroed Matroska file cannot be parsed at all: its length is not known to say where.
      const noLength = result.draft === null && name.includes('zeros') && name.endsWith('.mkv');
      if (at === null && !noLength && !/ends at/.test(finding.message)) {
        report.push(`${name}: no "ends at" in ${finding.message}`);
      }
    }
    expect(report).toEqual([]);
  });

  it('warns of a FLAC whose STREAMINFO holds no MD5 of its audio', async () => {
    const bytes = Buffer.from(await readFile(join(root, 'cd.flac')));
    // fLaC, the block header, then STREAMINFO: its MD5 is its last 16 bytes.
    bytes.fill(0, 4 + 4 + 18, 4 + 4 + 34);
    await writeFile(join(root, 'no-md5.flac'), bytes);
    const result = await readTrackFile(root, join(root, 'no-md5.flac'));
    expect(result.audio?.md5).toBe(false);
    expect(result.findings).toEqual([
      {
        level: 'warning',
        message:
          'the FLAC holds no MD5 of its audio (its encoder left it empty), so no decoder can verify it',
      },
    ]);
    expect(whole.get('cd.flac')!.audio?.md5).toBe(true);
  });

  it('finds an MP3 cut inside the header of its last frame (one to three bytes of it left)', async () => {
    const bytes = await readFile(join(root, 'cbr-info.mp3'));
    // Walk the MPEG-1 layer III frames from the first (the Info frame) to the last one's start.
    const rates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
    let at = bytes.indexOf(Buffer.from([0xff, 0xfb]));
    let last = at;
    while (at + 4 <= bytes.length && bytes[at] === 0xff && (bytes[at + 1]! & 0xe0) === 0xe0) {
      last = at;
      at +=
        Math.floor((144000 * rates[bytes[at + 2]! >> 4]!) / 44100) + ((bytes[at + 2]! >> 1) & 1);
    }
    expect(at).toBe(bytes.length);
    for (const left of [1, 2, 3]) {
      const name = `last-header-${left}.mp3`;
      await writeFile(join(root, name), bytes.subarray(0, last + left));
      const result = await readTrackFile(root, join(root, name));
      expect(
        result.findings.map((f) => f.code),
        name,
      ).toContain('cut-short');
      expect(result.findings[0]!.message).toMatch(/last MPEG frame is incomplete/);
    }
  });

  it('finds a streamed WAV (no sizes) cut inside a sample, and takes one cut on a sample whole', async () => {
    const bytes = Buffer.from(await readFile(join(root, 'pcm16.wav')));
    const data = bytes.indexOf('data');
    bytes.writeUInt32LE(0xffffffff, 4);
    bytes.writeUInt32LE(0xffffffff, data + 4);
    // 16-bit stereo: a sample frame is 4 bytes.
    const audioEnd = data + 8 + Math.floor((bytes.length - data - 8) / 8) * 4;
    await writeFile(join(root, 'streamed-on-sample.wav'), bytes.subarray(0, audioEnd));
    await writeFile(join(root, 'streamed-mid-sample.wav'), bytes.subarray(0, audioEnd + 3));
    const onSample = await readTrackFile(root, join(root, 'streamed-on-sample.wav'));
    expect(onSample.findings).toEqual([]);
    const midSample = await readTrackFile(root, join(root, 'streamed-mid-sample.wav'));
    expect(midSample.findings).toMatchObject([{ level: 'error', code: 'cut-short' }]);
    expect(midSample.findings[0]!.message).toMatch(/ends at 0:04\.\d, .*ends inside a sample/);
  });

  it('warns, without blocking, of a WAV or AIFF cut inside its tags after whole audio', async () => {
    for (const [name, order, id] of [
      ['pcm16.wav', 'le', 'id3 '],
      ['pcm16.aiff', 'be', 'ID3 '],
    ] as const) {
      const tagged = withId3Chunk(await readFile(join(root, name)), order, id, 'Tagged Title');
      const wholeName = `tagged-${name}`;
      await writeFile(join(root, wholeName), tagged);
      const whole = await readTrackFile(root, join(root, wholeName));
      expect(whole.draft?.title?.value, wholeName).toBe('Tagged Title');
      expect(whole.findings, wholeName).toEqual([]);
      const cutName = `tags-cut-${name}`;
      await writeFile(join(root, cutName), tagged.subarray(0, tagged.length - 5));
      const cut = await readTrackFile(root, join(root, cutName));
      expect(cut.findings, cutName).toEqual([
        {
          level: 'warning',
          message: `the file is cut short after its audio, which is whole: it ends inside its '${id.trim()}' chunk, so what that chunk held (tags, mostly) is lost; a copy of the master from its source restores it`,
        },
      ]);
      expect(cut.audio?.duration, cutName).toBeGreaterThan(seconds - 0.1);
    }
  });

  it('takes a WAV whose writer left out a pad byte after its audio as whole', async () => {
    const bytes = await readFile(join(root, 'pcm16.wav'));
    // An odd-sized chunk without its pad byte: what follows is read one byte off, as noise.
    const junk = Buffer.concat([Buffer.from('junk'), u32(3, 'le'), Buffer.from('abc')]);
    const tagged = withId3Chunk(Buffer.concat([bytes, junk]), 'le', 'id3 ', 'Odd');
    tagged.writeUInt32LE(tagged.length - 8, 4);
    await writeFile(join(root, 'no-pad.wav'), tagged);
    const result = await readTrackFile(root, join(root, 'no-pad.wav'));
    expect(result.findings.filter((f) => /cut short/.test(f.message))).toEqual([]);
  });

  it('says how much is missing when the master records its length', () => {
    const flac = cut.get('cut/cut-0.6-cd.flac')!.result.findings[0]!;
    expect(flac.message).toMatch(/^the master is cut short: it ends at 0:0[45]\.\d of 0:08\.0 \(/);
    const zeros = cut.get('cut/zeros-0.5-cbr-info.mp3')!.result.findings[0]!;
    expect(zeros.message).toMatch(/ends at 0:0[34]\.\d of 0:08\.0 .*KiB are zeros/);
  });
});

/** A 32-bit size in the chunk's byte order. */
function u32(value: number, order: 'le' | 'be'): Buffer {
  const b = Buffer.alloc(4);
  if (order === 'le') b.writeUInt32LE(value);
  else b.writeUInt32BE(value);
  return b;
}

/**
 * `file` (a RIFF or AIFF form) with an ID3v2.4 chunk `id` holding a TIT2 of `title` appended
 * after everything, as taggers add one after the audio, and the form's size made to match.
 */
function withId3Chunk(file: Buffer, order: 'le' | 'be', id: string, title: string): Buffer {
  const synchsafe = (n: number) =>
    Buffer.from([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f]);
  const text = Buffer.concat([Buffer.from([3]), Buffer.from(title, 'utf8')]);
  const frame = Buffer.concat([Buffer.from('TIT2'), synchsafe(text.length), Buffer.alloc(2), text]);
  const tag = Buffer.concat([
    Buffer.from([0x49, 0x44, 0x33, 4, 0, 0]),
    synchsafe(frame.length),
    frame,
  ]);
  const pad = tag.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0);
  const out = Buffer.concat([file, Buffer.from(id), u32(tag.length, order), tag, pad]);
  if (order === 'le') out.writeUInt32LE(out.length - 8, 4);
  else out.writeUInt32BE(out.length - 8, 4);
  return out;
}
