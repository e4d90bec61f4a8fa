/**
 * `courier scan DIR [--json] [--duplicates]`: reads the tags of every file under DIR and shows
 * each track as it would be sent, with its findings; with --duplicates, then which files hold the
 * same audio under other tags or names (`core/tags/duplicates.ts`). Findings are data: the exit
 * code is 0 whatever they say. The albums (`core/model/album-review.ts`) follow the files, each
 * album's findings (its gaps, its tracks' disagreements) said once. `--json` prints the array of
 * entries, or with --albums or --duplicates an object `{ files: [entries], albums: [albums],
 * duplicates: [[path, path, …], …] }` (duplicates with --duplicates only).
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { UsageError } from '../core/errors.js';
import { type AlbumSummary, albumSummary } from '../core/model/album-review.js';
import { describeAudio } from '../core/model/audio-properties.js';
import { fieldLabel } from '../core/model/field-labels.js';
import { type OuterIdField, outerIdFields, type OuterIdStrategy } from '../core/model/outer-id.js';
import { finishScanReview, type ScanEntry } from '../core/model/read-result.js';
import { escapeControls } from '../core/storage/object-key.js';
import {
  comparedFiles,
  type DuplicateAudio,
  type DuplicateProgress,
  findDuplicateAudio,
} from '../core/tags/duplicates.js';
import { scanListedFolder } from '../core/tags/scan-folder.js';
import type { CliIO, Command } from './command.js';
import { mib, progressBar, redrawnLine } from './progress-line.js';

const usage =
  'courier scan DIR [--json [--albums]] [--duplicates] [--outer-id default|file-name|isrc|tag:FIELD|pattern:TEXT] [--concurrency N]';

/** Parses the --outer-id option. */
export function parseOuterIdOption(text: string): OuterIdStrategy {
  if (text === 'default' || text === 'file-name' || text === 'isrc') return { kind: text };
  if (text.startsWith('tag:')) {
    const field = text.slice(4);
    if (!(outerIdFields as readonly string[]).includes(field)) {
      throw new UsageError(
        `--outer-id tag:${field}: unknown field (one of ${outerIdFields.join(', ')})`,
      );
    }
    return { kind: 'tag', field: field as OuterIdField };
  }
  if (text.startsWith('pattern:') && text.length > 8)
    return { kind: 'pattern', pattern: text.slice(8) };
  throw new UsageError(`--outer-id '${text}' is not a strategy (usage: ${usage})`);
}

function cell(text: string | undefined, width: number): string {
  const value = (text ?? '').replace(/\s+/g, ' ');
  return value.length > width ? `${value.slice(0, width - 1)}…` : value.padEnd(width);
}

/**
 * The human-readable report: one row per file, its QC and findings under it, the albums (each
 * album's findings once), one summary line.
 */
export function formatTable(entries: ScanEntry[], albums: readonly AlbumSummary[] = []): string {
  const fileWidth = Math.min(48, Math.max(4, ...entries.map((e) => e.file.length)));
  const lines = [
    `${cell('FILE', fileWidth)}  ${cell('OUTER_ID', 16)}  ${cell('TITLE', 28)}  ${cell('ISRC', 12)}  STATUS`,
  ];
  let tracks = 0;
  let ignored = 0;
  let unreadable = 0;
  let errors = 0;
  let warnings = 0;
  for (const entry of entries) {
    const e = entry.findings.filter((f) => f.level === 'error').length;
    const w = entry.findings.length - e;
    errors += e;
    warnings += w;
    let status: string;
    if (entry.track) {
      tracks++;
      status = e > 0 ? `${e} error(s)` : w > 0 ? `${w} warning(s)` : 'ok';
    } else if (entry.findings.some((f) => f.message.startsWith('ignored'))) {
      ignored++;
      status = 'ignored';
    } else {
      unreadable++;
      status = 'unreadable';
    }
    const t = entry.track;
    lines.push(
      `${cell(entry.file, fileWidth)}  ${cell(t?.outer_id, 16)}  ${cell(t?.title, 28)}  ${cell(t?.isrc, 12)}  ${status}`,
    );
    if (status === 'ignored') continue;
    if (entry.audio) lines.push(`    ${describeAudio(entry.audio)}`);
    for (const f of entry.findings) {
      lines.push(`    ${f.level}${f.field ? ` ${fieldLabel(f.field)}` : ''}: ${f.message}`);
    }
  }
  if (albums.length > 0) lines.push('', formatAlbums(albums));
  lines.push(
    '',
    `${entries.length} file(s): ${tracks} track(s), ${ignored} ignored, ${unreadable} unreadable; ${errors} error(s), ${warnings} warning(s)`,
  );
  return lines.join('\n');
}

/** The "Albums" section: each album with its tracks' count, UPC, missing positions and findings. */
export function formatAlbums(albums: readonly AlbumSummary[]): string {
  const withFindings = albums.filter((a) => a.findings.length > 0).length;
  const lines = [`Albums: ${albums.length}, ${withFindings} with findings`];
  for (const album of albums) {
    const name = album.title
      ? `'${album.title}'${album.artist ? ` — ${album.artist}` : ''}`
      : album.label;
    const upc = album.upc ? `, UPC ${album.upc}` : '';
    lines.push(escapeControls(`  ${name}: ${album.files.length} track(s)${upc}`));
    for (const f of album.findings) {
      const fix = f.fix ? ` (fix: ${f.fix})` : '';
      lines.push(escapeControls(`    ${f.level} ${fieldLabel(f.field)}: ${f.message}${fix}`));
    }
  }
  return lines.join('\n');
}

/** The "Same audio" section: each group of files holding the same audio, numbered. */
export function formatDuplicates(found: DuplicateAudio, compared: number): string {
  const lines = [
    found.groups.length === 0
      ? `Same audio (tags and names aside): none among ${compared} audio file(s)`
      : `Same audio (tags and names aside): ${found.groups.length} group(s) among ${compared} audio file(s)`,
  ];
  const width = String(found.groups.length).length + 2;
  for (const [i, group] of found.groups.entries()) {
    for (const [k, path] of group.entries()) {
      lines.push(`  ${(k === 0 ? `${i + 1}.` : '').padEnd(width)} ${escapeControls(path)}`);
    }
  }
  for (const { path, message } of found.unreadable)
    lines.push(`  not compared: ${escapeControls(path)}: ${message}`);
  return lines.join('\n');
}

/** The duplicate check's progress on stderr, redrawn in place (a terminal only). */
function duplicateProgress(io: CliIO): ((p: DuplicateProgress) => void) | undefined {
  if (!io.errIsTTY) return undefined;
  const draw = redrawnLine(io);
  return (p) => {
    const hashing = p.phase === 'hashing';
    const text = hashing
      ? `[${progressBar(p.total > 0 ? p.bytes / p.total : 1)}] same audio: ${mib(p.bytes)} of ${mib(p.total)}`
      : `[${progressBar(p.files > 0 ? p.located / p.files : 1)}] same audio: locating ${p.located}/${p.files} file(s)`;
    draw(text, hashing && p.bytes === p.total);
  };
}

/** The `scan` command. */
export const scanCommand: Command = {
  summary: 'read the tags of every file under a folder and check each track',
  usage,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        duplicates: { type: 'boolean', default: false },
        albums: { type: 'boolean', default: false },
        'outer-id': { type: 'string', default: 'default' },
        concurrency: { type: 'string', default: '8' },
      },
    });
    if (positionals.length !== 1) throw new UsageError(`expected one folder (usage: ${usage})`);
    const concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
      throw new UsageError('--concurrency must be a whole number from 1 to 256');
    }
    const strategy = parseOuterIdOption(values['outer-id']);
    const root = resolve(positionals[0]!);
    const info = await stat(root).catch(() => null);
    if (!info?.isDirectory()) {
      throw new UsageError(
        `'${positionals[0]}' is not a folder; give the folder holding the masters`,
      );
    }
    const controller = new AbortController();
    void io.stopRequested.then(() => controller.abort());
    const interrupted = () => {
      io.err('courier scan: interrupted; nothing printed');
      return 1;
    };
    const { listing, results } = await scanListedFolder(root, {
      concurrency,
      signal: controller.signal,
      // The command has nothing else to do while it reads.
      blockingReads: true,
    });
    if (controller.signal.aborted) return interrupted();
    const review = finishScanReview(results, strategy);
    const entries: ScanEntry[] = review.entries.map(({ draft: _, ...entry }) => entry);
    const albums = review.albums.albums.map((a) => albumSummary(a, review.drafts));
    const report = () => formatTable(entries, albums);
    if (!values.duplicates) {
      // The array stays what --json printed before the albums; --albums asks for the object.
      const json = values.albums ? { files: entries, albums } : entries;
      io.out(values.json ? JSON.stringify(json, null, 2) : report());
      return 0;
    }
    const audio = comparedFiles(listing);
    let found: DuplicateAudio;
    try {
      found = await findDuplicateAudio(audio, {
        signal: controller.signal,
        onProgress: duplicateProgress(io),
      });
    } catch (error) {
      if (controller.signal.aborted) return interrupted();
      throw error;
    }
    io.out(
      values.json
        ? JSON.stringify({ files: entries, albums, duplicates: found.groups }, null, 2)
        : `${report()}\n\n${formatDuplicates(found, audio.length)}`,
    );
    return 0;
  },
};
