/**
 * What reading a folder's files gave, kept between delivery plans under `<dataDir>/reads/`: a
 * file whose size and mtime are still those it had when it was read is not read again. That is
 * the trust an unchanged file's MD5 already gets (`file-fingerprint.ts`); without it, a re-run
 * of a delivery of 10,000 unchanged files would spend most of its time re-reading their tags.
 * A read that found an error is not kept (a file made readable again keeps its mtime), and reads
 * kept by another version of Courier are ignored (reading may have changed).
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';

import { app } from '../app-info.js';
import { readJsonIfExists, writeFileAtomic } from '../files/atomic-file.js';
import { listLocalFiles } from '../files/local-files.js';
import type { FileReadResult } from '../model/read-result.js';
import { scanFiles, type ScanOptions } from './scan-folder.js';

/** Changed whenever what is kept changes shape. */
const FORMAT = 1;

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
  { dataDir, keep }: { dataDir: string; keep: boolean },
  options: ScanOptions = {},
): Promise<FileReadResult[]> {
  const dir = resolve(root);
  const version = `${app.version}/${FORMAT}`;
  const file = readCacheFile(dataDir, root);
  // An unreadable cache is no cache: the files are read again.
  const stored = await readJsonIfExists<KeptReads>(file).catch(() => undefined);
  const before = stored?.version === version && stored.dir === dir ? stored.files : {};
  const listed = await listLocalFiles(root);
  const keptFor = (f: { path: string; size: number; mtimeMs: number }) => {
    const kept = Object.hasOwn(before, f.path) ? before[f.path] : undefined;
    return kept && kept.size === f.size && kept.mtimeMs === f.mtimeMs ? kept.result : undefined;
  };
  const toRead = listed.filter((f) => !keptFor(f)).map((f) => f.localPath);
  const read = new Map((await scanFiles(root, toRead, options)).map((r) => [r.file, r]));
  const results: FileReadResult[] = [];
  const files: Record<string, KeptRead> = {};
  for (const f of listed) {
    const result = keptFor(f) ?? read.get(f.path);
    if (!result) continue; // not read: the scan was stopped
    results.push(result);
    if (!result.findings.some((finding) => finding.level === 'error')) {
      files[f.path] = { size: f.size, mtimeMs: f.mtimeMs, result };
    }
  }
  const changed = toRead.length > 0 || Object.keys(before).length !== Object.keys(files).length;
  if (keep && changed && !options.signal?.aborted) {
    // Serialised before the results go back: what the caller does with them is not kept.
    const text = JSON.stringify({ version, dir, files } satisfies KeptReads);
    // Keeping reads only saves time: a cache that cannot be written never stops a delivery.
    await writeFileAtomic(file, text).catch(() => undefined);
  }
  return results;
}
