/**
 * Files the OS handed the running app (a second launch's arguments, a drop on the dock icon)
 * join the library. Main granted them already; the page has no `File` for them, so their tags
 * are read in main (`files:readTags`), into the same result the page's tag workers give.
 */
import { assignOuterIds } from '../../src-main/core/model/outer-id.js';
import type { FileReadResult } from '../../src-main/core/model/read-result.js';
import type { CourierApi, EventPayloads, OpenedFile } from '../../src-main/ipc/contract.js';
import type { LibraryRow, LibraryState } from './library-state.svelte.js';

/** Files whose tags are asked for at once (the contract's limit). */
const readChunk = 1_000;

/** Adds opened files to the library as rows, reads their tags in main, and saves the session. */
export async function addOpenedFiles(
  library: LibraryState,
  api: Pick<CourierApi, 'readFileTags'>,
  opened: EventPayloads['library:open-paths'],
): Promise<void> {
  const listed = new Set(library.ignored.map((s) => s.relativePath));
  library.ignored = [
    ...library.ignored,
    ...opened.refused.filter((r) => !listed.has(r.relativePath)),
  ];
  // A file already in the library stays one row; one restored as missing is readable again.
  const again = new Set(opened.files.map((f) => f.id).filter((id) => library.row(id)));
  const fresh = opened.files.filter((file) => !again.has(file.id));
  library.rows = [
    ...library.rows.map((row) =>
      again.has(row.id) && row.missing ? { ...row, missing: false } : row,
    ),
    ...fresh.map(readingRow),
  ];
  for (let i = 0; i < fresh.length; i += readChunk) {
    const chunk = fresh.slice(i, i + readChunk);
    const answer = await api.readFileTags({
      files: chunk.map(({ id, relativePath }) => ({ id, relativePath })),
    });
    const results = new Map<string, FileReadResult>(
      answer.ok
        ? answer.value.results.map(({ id, result }) => [id, result])
        : chunk.map((file) => [file.id, failed(file, answer.error.message)]),
    );
    library.rows = withOuterIds(library.rows.map((row) => readRow(row, results.get(row.id))));
  }
  if (opened.files.length + opened.refused.length > 0) await library.saveNow();
}

/** A new row while its tags are read, as a dropped file's row starts. */
function readingRow(file: OpenedFile): LibraryRow {
  return {
    id: file.id,
    size: file.size,
    lastModified: file.lastModified,
    status: 'reading',
    draft: {
      file: file.relativePath,
      primaryMedia: { value: file.relativePath, source: { kind: 'file-name' } },
    },
    original: null,
    readFindings: [],
  };
}

function readRow(row: LibraryRow, result: FileReadResult | undefined): LibraryRow {
  if (!result || row.status !== 'reading') return row;
  if (!result.draft) return { ...row, status: 'unreadable', readFindings: result.findings };
  return {
    ...row,
    status: 'ready',
    draft: result.draft,
    original: result.draft,
    readFindings: result.findings,
  };
}

function failed(file: OpenedFile, message: string): FileReadResult {
  return {
    file: file.relativePath,
    draft: null,
    findings: [{ level: 'error', message: `the tags could not be read: ${message}` }],
  };
}

/** Derived outer_ids for rows just read, against the whole library (ISRCs must be unique in it). */
function withOuterIds(rows: LibraryRow[]): LibraryRow[] {
  const ready = rows.filter((row) => row.status === 'ready');
  const assigned = new Map(
    assignOuterIds(ready.map((row) => row.draft)).map((draft, i) => [ready[i]!.id, draft]),
  );
  return rows.map((row) => {
    if (row.original !== row.draft || row.draft.outerId) return row;
    const draft = assigned.get(row.id);
    return draft ? { ...row, draft, original: draft } : row;
  });
}
