/**
 * "Find duplicate audio" on real files: one tone per format made by ffmpeg, copied under other
 * names and folders and tagged differently by mutagen (none, ID3v2.3 with ID3v1, ID3v2.4 with
 * cover art and an APEv2 tag, Vorbis comments with a cover spanning several Ogg pages, MP4 atoms,
 * RIFF INFO rewritten by ffmpeg): each format's copies are one group. Files whose audio differs
 * by one sample or in length, and the same sound encoded again, are in no group. Then the CLI:
 * `courier scan DIR --duplicates`, as a table and as JSON.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import { beforeAll, describe, expect, it } from 'vitest';

import { listLocalFiles } from '../../../src-main/core/files/local-files.js';
import {
  type AudioFile,
  type DuplicateProgress,
  findDuplicateAudio,
} from '../../../src-main/core/tags/duplicates.js';
import {
  copyTemplate,
  extensionOf,
  type FixtureFormat,
  makeAudio,
  missingFixtureTools,
  systemPython,
  type TagJob,
  writeTags,
} from '../../support/audio-fixtures.js';
import { runCli } from '../../support/run-cli.js';

const run = promisify(execFile);

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true')
    throw new Error(`duplicate audio tests need ${missing.join(', ')}`);
  console.warn(`skipping duplicate audio tests: missing ${missing.join(', ')}`);
}

/** Removes every tag mutagen knows from each file (ffmpeg writes an encoder tag of its own). */
async function stripTags(paths: string[]): Promise<void> {
  const script = [
    'import json, sys',
    'from mutagen import File',
    'for p in json.load(sys.stdin):',
    '    f = File(p)',
    '    if f is not None and f.tags is not None: f.delete()',
  ].join('\n');
  await new Promise<void>((resolve, reject) => {
    const child = execFile(systemPython, ['-c', script], (error, _out, stderr) =>
      error ? reject(new Error(`mutagen: ${stderr || error.message}`)) : resolve(),
    );
    child.stdin?.end(JSON.stringify(paths));
  });
}

/** Writes `to`: `from` with the byte at the middle of `[start, end)` changed (one sample). */
async function changeOneByte(from: string, to: string, locate: (b: Buffer) => number) {
  const bytes = Buffer.from(await readFile(from));
  const at = locate(bytes);
  bytes[at] = bytes[at]! ^ 0x01;
  await mkdir(dirname(to), { recursive: true });
  await writeFile(to, bytes);
}

/** Where the middle of a chunk's body is (WAV `data`, AIFF `SSND`): first match of its id. */
const middleOf = (id: string, littleEndian: boolean) => (b: Buffer) => {
  const at = b.indexOf(id);
  const size = littleEndian ? b.readUInt32LE(at + 4) : b.readUInt32BE(at + 4);
  return at + 8 + 16 + Math.floor(size / 2);
};

/** The MD5 of the samples ffmpeg decodes from a file. */
async function decodedMd5(path: string): Promise<string> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', path, '-f', 'md5', '-']);
  return stdout.trim();
}

/** Each format's copies, with the tags each gets (null: no tag at all). */
const formats: { format: FixtureFormat; variants: [string, Omit<TagJob, 'path'> | null][] }[] = [
  {
    format: 'mp3',
    variants: [
      ['mp3/plain.mp3', null],
      ['mp3/tagged/First.mp3', { family: 'id3v2.3', tags: { title: 'First', id3v1: true } }],
      [
        'elsewhere/Another name.mp3',
        { family: 'id3v2.4', tags: { title: 'Second', cover: 70_000, apev2: true } },
      ],
    ],
  },
  {
    format: 'flac',
    variants: [
      ['flac/plain.flac', null],
      ['flac/tagged/First.flac', { family: 'vorbis', tags: { title: 'First' } }],
      ['elsewhere/cover.flac', { family: 'vorbis', tags: { title: 'Second', cover: 100_000 } }],
    ],
  },
  {
    format: 'wav',
    variants: [
      ['wav/plain.wav', null],
      ['wav/id3.wav', { family: 'id3v2.3', tags: { title: 'First' } }],
      ['wav/info.wav', { family: 'riff-info', tags: { title: 'Second', date: '2001' } }],
      ['elsewhere/cover.wav', { family: 'id3v2.4', tags: { title: 'Third', cover: 50_000 } }],
      // A WAV under an MP3's name: the container is told from the bytes, not the name.
      ['elsewhere/misnamed.mp3', null],
    ],
  },
  {
    format: 'aiff',
    variants: [
      ['aiff/plain.aiff', null],
      ['aiff/id3v23.aiff', { family: 'id3v2.3', tags: { title: 'First' } }],
      ['elsewhere/cover.aiff', { family: 'id3v2.4', tags: { title: 'Second', cover: 50_000 } }],
    ],
  },
  {
    format: 'm4a-aac',
    variants: [
      ['m4a/plain.m4a', null],
      ['m4a/tagged.m4a', { family: 'mp4', tags: { title: 'First' } }],
      ['elsewhere/cover.m4a', { family: 'mp4', tags: { title: 'Second', cover: 100_000 } }],
    ],
  },
  {
    format: 'm4a-alac',
    variants: [
      ['alac/plain.m4a', null],
      ['alac/cover.m4a', { family: 'mp4', tags: { title: 'First', cover: 30_000 } }],
    ],
  },
  {
    format: 'ogg',
    variants: [
      ['ogg/plain.ogg', null],
      ['ogg/tagged.ogg', { family: 'vorbis', tags: { title: 'First' } }],
      // 200 kB of cover: the comment header spans several pages, of granule position -1.
      ['elsewhere/cover.ogg', { family: 'vorbis', tags: { title: 'Second', cover: 200_000 } }],
    ],
  },
  {
    format: 'opus',
    variants: [
      ['opus/plain.opus', null],
      ['opus/tagged.opus', { family: 'vorbis', tags: { title: 'First' } }],
      ['elsewhere/cover.opus', { family: 'vorbis', tags: { cover: 200_000 } }],
    ],
  },
];

/** Files whose audio is in no other file. */
const different = [
  'different/one-sample.wav',
  'different/one-sample.aiff',
  'different/one-sample.flac',
  'different/longer.mp3',
  'different/longer.m4a',
  'different/longer.ogg',
  'different/longer.opus',
  'reencoded/fast.flac',
  'reencoded/again.mp3',
];

/** The groups expected: each format's copies, sorted as the check sorts them. */
function expectedGroups(): string[][] {
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return formats
    .map((f) => f.variants.map(([path]) => path).sort(byPath))
    .sort((a, b) => byPath(a[0]!, b[0]!));
}

describe.skipIf(missing.length > 0)('findDuplicateAudio()', () => {
  let root: string;
  let templates: string;
  let files: AudioFile[];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'courier-dup-'));
    templates = await mkdtemp(join(tmpdir(), 'courier-dup-templates-'));
    const jobs: TagJob[] = [];
    const plain: string[] = [];
    for (const { format, variants } of formats) {
      const template = join(templates, `${format}.${extensionOf(format)}`);
      await makeAudio(format, template, { seconds: 1 });
      for (const [path, job] of variants) {
        await copyTemplate(template, [join(root, path)]);
        if (job) jobs.push({ ...job, path: join(root, path) });
        else plain.push(join(root, path));
      }
    }
    await stripTags(plain);
    await writeTags(jobs);
    // Different audio: one sample changed, or a little longer.
    const wav = join(templates, 'wav.wav');
    await changeOneByte(wav, join(root, different[0]!), middleOf('data', true));
    await changeOneByte(
      join(templates, 'aiff.aiff'),
      join(root, different[1]!),
      middleOf('SSND', false),
    );
    await run('ffmpeg', [
      '-v',
      'error',
      '-i',
      join(root, different[0]!),
      '-c:a',
      'flac',
      join(root, different[2]!),
    ]);
    for (const [format, path] of [
      ['mp3', different[3]!],
      ['m4a-aac', different[4]!],
      ['ogg', different[5]!],
      ['opus', different[6]!],
    ] as const) {
      await makeAudio(format, join(root, path), { seconds: 1.1 });
    }
    // The same sound encoded again: FLAC at another compression level, MP3 from the MP3.
    await mkdir(join(root, 'reencoded'), { recursive: true });
    await run('ffmpeg', [
      '-v',
      'error',
      '-i',
      wav,
      '-c:a',
      'flac',
      '-compression_level',
      '0',
      join(root, different[7]!),
    ]);
    await run('ffmpeg', [
      '-v',
      'error',
      '-i',
      join(templates, 'mp3.mp3'),
      '-c:a',
      'libmp3lame',
      '-b:a',
      '32k',
      join(root, different[8]!),
    ]);
    files = (await listLocalFiles(root)).map(({ path, localPath }) => ({ path, localPath }));
  });

  it('groups the copies of each format, whatever their tags, cover art, names and folders', async () => {
    const found = await findDuplicateAudio(files, { threads: 0 });
    expect(found.groups).toEqual(expectedGroups());
    expect(found.unreadable).toEqual([]);
    for (const path of different) expect(found.groups.flat()).not.toContain(path);
  });

  it('tells the same sound encoded again from the same audio: it is not found', async () => {
    // FLAC at compression level 0 holds the very samples of the FLAC at level 5 …
    expect(await decodedMd5(join(root, 'reencoded/fast.flac'))).toBe(
      await decodedMd5(join(root, 'flac/plain.flac')),
    );
    // … yet is other bytes, so other audio.
    const found = await findDuplicateAudio(
      files.filter((f) => f.path.endsWith('.flac')),
      { threads: 0 },
    );
    expect(found.groups).toEqual([
      ['elsewhere/cover.flac', 'flac/plain.flac', 'flac/tagged/First.flac'],
    ]);
  });

  it('reports progress up to the audio bytes it hashed, and hashes no audio of a unique length', async () => {
    const events: DuplicateProgress[] = [];
    const found = await findDuplicateAudio(files, {
      threads: 0,
      onProgress: (p) => events.push(p),
    });
    const last = events.at(-1)!;
    expect(last).toEqual({
      phase: 'hashing',
      located: files.length,
      files: files.length,
      bytes: found.bytes,
      total: found.bytes,
    });
    for (const [i, e] of events.entries()) {
      if (i > 0) expect(e.bytes).toBeGreaterThanOrEqual(events[i - 1]!.bytes);
      expect(e.bytes).toBeLessThanOrEqual(e.total || Infinity);
    }
    // Audio of a length no other file has cannot be the same: it is not read, let alone hashed.
    const unique = files.filter((f) => f.path.startsWith('different/longer'));
    expect(await findDuplicateAudio(unique, { threads: 0 })).toEqual({
      groups: [],
      bytes: 0,
      unreadable: [],
    });
  });

  it('gives the same groups when worker threads hash', async () => {
    // Over 64 files: more than one chunk, so the worker takes some.
    const many = join(templates, 'many');
    const paths = Array.from({ length: 70 }, (_, i) => join(many, `copy ${i}.mp3`));
    await copyTemplate(join(templates, 'mp3.mp3'), paths);
    await writeTags(
      paths.map((path, i) => ({ path, family: 'id3v2.4', tags: { title: `Copy ${i}` } })),
    );
    const list = [...files, ...paths.map((p, i) => ({ path: `many/copy ${i}.mp3`, localPath: p }))];
    const local = await findDuplicateAudio(list, { threads: 0 });
    const threaded = await findDuplicateAudio(list, { threads: 1 });
    expect(threaded).toEqual(local);
    expect(local.groups.find((g) => g.includes('mp3/plain.mp3'))).toHaveLength(73);
  });

  it('lists a file it cannot read, and rejects when stopped', async () => {
    const gone = { path: 'gone.mp3', localPath: join(root, 'gone.mp3') };
    const found = await findDuplicateAudio([...files, gone], { threads: 0 });
    expect(found.unreadable).toEqual([{ path: 'gone.mp3', message: 'the file is gone' }]);
    expect(found.groups).toEqual(expectedGroups());
    const controller = new AbortController();
    controller.abort();
    await expect(findDuplicateAudio(files, { signal: controller.signal })).rejects.toThrow();
  });

  describe('courier scan --duplicates', () => {
    const env = { COURIER_HOME: '/nonexistent-courier-home' };

    it('prints the scan, then each group of the same audio, numbered', async () => {
      const { code, stdout, stderr } = await runCli(['scan', root, '--duplicates'], { env });
      expect(code).toBe(0);
      // stderr is no terminal here: no progress drawn.
      expect(stderr).toBe('');
      const [table, section] = stdout.split(/\n\nSame audio/);
      expect(table).toMatch(/^FILE\s+OUTER_ID\s+TITLE\s+ISRC\s+STATUS/);
      const groups = expectedGroups();
      const audio = files.length;
      expect(`Same audio${section}`.trimEnd().split('\n')).toEqual([
        `Same audio (tags and names aside): ${groups.length} group(s) among ${audio} audio file(s)`,
        ...groups.flatMap((group, i) =>
          group.map((path, k) => `  ${(k === 0 ? `${i + 1}.` : '').padEnd(3)} ${path}`),
        ),
      ]);
    });

    it('prints { files, albums, duplicates } with --json, and the plain array without --duplicates', async () => {
      const both = await runCli(['scan', root, '--duplicates', '--json'], { env });
      expect(both.code).toBe(0);
      const parsed = JSON.parse(both.stdout) as {
        files: { file: string }[];
        albums: unknown[];
        duplicates: string[][];
      };
      expect(Object.keys(parsed)).toEqual(['files', 'albums', 'duplicates']);
      expect(parsed.duplicates).toEqual(expectedGroups());
      expect(parsed.files.map((f) => f.file)).toEqual(files.map((f) => f.path));
      const plain = await runCli(['scan', root, '--json'], { env });
      expect(JSON.parse(plain.stdout)).toEqual(parsed.files);
    });
  });
});
