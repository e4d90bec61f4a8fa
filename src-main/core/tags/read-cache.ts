/**
 * What reading a folder's files gave, kept between delivery plans under `<dataDir>/reads/`: a
 * file whose size and mtime are still those it had when it was read is not read again. That is
 * the trust an unchanged file's MD5 already gets (`file-fingerprint.ts`); without it, a re-run
 * of a delivery of 10,000 unchanged files would spend most of its time re-reading their tags.
 * A read that found an error is not kept (a file made readable again keeps its mtime), and reads
 * kept by another version of Courier are ignored (reading may have changed).
 */
import { createHash } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';

import { app } from '../app-info.js';
import { readJsonIfExists, writeStreamAtomic } from '../files/atomic-file.js';
import { listLocalFiles } from '../files/local-files.js';
import type { FileReadResult } from '../model/read-result.js';
import { withFields } from '../objects.js';
import { scanFiles, type ScanOptions } from './scan-folder.js';

/** Changed whenever what is kept changes shape. */
const FORMAT = 2;

interface KeptRead {
  size: number;
  mtimeMs: number;
  result: FileReadResult;
}

interface KeptReads {
  version: string;
  dir: string;
  /** By path relative to `dir` (as listed). */
  files: Record<string, KeptRead>;
}

/** The deepest folder holding every one of `paths` (undefined for none). */
function commonFolder(paths: readonly string[]): string | undefined {
  if (paths.length === 0) return undefined;
  let common = dirname(resolve(paths[0]!));
  for (const path of paths) {
    const full = resolve(path);
    while (!full.startsWith(common.endsWith(sep) ? common : common + sep)) {
      const up = dirname(common);
      if (up === common) return common;
      common = up;
    }
  }
  return common;
}

/** The file keeping the reads of the folder `root`. */
export function readCacheFile(dataDir: string, root: string): string {
  const id = createHash('sha256').update(resolve(root)).digest('hex').slice(0, 32);
  return join(dataDir, 'reads', `${id}.json`);
}

/**
 * `scanFolder`, reading only the files that are new or changed since reads of the folder were
 * kept in `dataDir`; the others get the result they had. `keep` keeps this scan's reads for the
 * next one (a dry run keeps nothing).
 */
export async function scanFolderKeepingReads(
  root: string,
  reads: { dataDir: string; keep: boolean },
  options: ScanOptions = {},
): Promise<FileReadResult[]> {
  const listed = await listLocalFiles(root);
  const results = await readFilesKeepingReads(root, listed, reads, options);
  return results.filter((r) => r !== undefined);
}

/**
 * Reads `files` (listed under `root`: `path` relative to it), sparing those unchanged since
 * their reads were kept; results in the order of `files`, undefined for a file not read (the
 * scan was stopped). Main checks the app's files with it at every plan.
 */
export async function readFilesKeepingReads(
  root: string,
  files: ReadonlyArray<{ path: string; localPath: string; size: number; mtimeMs: number }>,
  { dataDir, keep }: { dataDir: string; keep: boolean },
  options: ScanOptions = {},
): Promise<Array<FileReadResult | undefined>> {
  const dir = resolve(root);
  const version = `${app.version}/${FORMAT}`;
  const file = readCacheFile(dataDir, root);
  // An unreadable cache is no cache: the files are read again.
  const stored = await readJsonIfExists<KeptReads>(file).catch(() => undefined);
  const before = stored?.version === version && stored.dir === dir ? stored.files : {};
  const keptFor = (f: { path: string; size: number; mtimeMs: number }) => {
    const kept = Object.hasOwn(before, f.path) ? before[f.path] : undefined;
    return kept && kept.size === f.size && kept.mtimeMs === f.mtimeMs ? kept.result : undefined;
  };
  const toRead = files.filter((f) => !keptFor(f));
  // Read from the folder holding them all: the app's files need not lie under `root`.
  const read = await scanFiles(
    commonFolder(toRead.map((f) => f.localPath)) ?? root,
    toRead.map((f) => f.localPath),
    options,
  );
  // Results keep their order; the scan's own name for a file may differ from `path` (a file
  // outside `root`), so the listed path is what they are known by.
  const fresh = new Map(
    read.map((r, i) => [toRead[i]!.path, withFields(r, { file: toRead[i]!.path })]),
  );
  const results: Array<FileReadResult | undefined> = [];
  const kept: Array<[string, KeptRead]> = [];
  for (const f of files) {
    const result = keptFor(f) ?? fresh.get(f.path);
    results.push(result);
    if (result && !result.findings.some((finding) => finding.level === 'error')) {
      kept.push([f.path, { size: f.size, mtimeMs: f.mtimeMs, result }]);
    }
  }
  const changed = toRead.length > 0 || Object.keys(before).length !== kept.length;
  if (keep && changed && !options.signal?.aborted) {
    // Serialised before the results go back (what the caller does with them is not kept), a
    // chunk at a time: 100,000 reads as one string were 60 MB beside the reads themselves.
    // Keeping reads only saves time: a cache that cannot be written never stops a delivery.
    await writeStreamAtomic(file, keptJson(version, dir, kept)).catch(() => undefined);
  }
  return results;
}

/** `JSON.stringify` of the kept reads (`KeptReads`), a few hundred kilobytes at a time. */
async function* keptJson(
  version: string,
  dir: string,
  kept: ReadonlyArray<[string, KeptRead]>,
): AsyncGenerator<Buffer> {
  let text = `{"version":${JSON.stringify(version)},"dir":${JSON.stringify(dir)},"files":{`;
  for (const [index, [path, read]] of kept.entries()) {
    text += `${index > 0 ? ',' : ''}${JSON.stringify(path)}:${JSON.stringify(read)}`;
    if (text.length >= 256 * 1024) {
      yield Buffer.from(text);
      text = '';
    }
  }
  yield Buffer.from(`${text}}}`);
}
