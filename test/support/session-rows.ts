/** Rows of a saved library for the library tests: a title, and lyrics to make a row weigh. */
import type { SessionRow } from '../../src-main/core/library/session-schema.js';

/** How a test row differs from the plain one. */
export interface SessionRowOptions {
  /** Folder of its file (`Album/<id>.flac` by default; '' for `<id>.flac`). */
  folder?: string;
  /** Its file's path, whatever its id (instead of `folder`). */
  file?: string;
  lyrics?: string;
  /** Its title as read from the file's TITLE tag rather than typed. */
  fromTag?: boolean;
}

/** Row `id`, ready, titled `title`, with no original (an edited row's draft, as saved). */
export function sessionRow(id: string, title: string, options: SessionRowOptions = {}): SessionRow {
  const folder = options.folder ?? 'Album';
  const source = options.fromTag
    ? ({ kind: 'tag', tag: 'TITLE' } as const)
    : ({ kind: 'manual' } as const);
  return {
    id,
    size: 5,
    lastModified: 0,
    status: 'ready',
    draft: {
      file: options.file ?? (folder ? `${folder}/${id}.flac` : `${id}.flac`),
      title: { value: title, source },
      ...(options.lyrics ? { lyrics: { value: options.lyrics, source: { kind: 'manual' } } } : {}),
    },
    original: null,
    readFindings: [],
  };
}
