/**
 * The library's base on disk (`session.jsonl`), one line per row, so that it can be read as a
 * stream (the first page of rows shown before the rest is parsed) and folded with the journal a
 * chunk at a time (unchanged rows copied as they are, never parsed): no step of a 100,000-track
 * library holds main's event loop for long.
 *
 * Line 1 is the header: the row count, every row's id in order (so the journal can be applied to
 * the order before any row is read), the ignored files and the journal the base follows. Each
 * following line is `{"id":…,"file":…,"row":…}`, in the order of the header's ids.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

import * as v from 'valibot';

import {
  LibrarySessionSchema,
  type SessionRow,
  sessionRow,
  storedRow,
  StoredRowSchema,
} from './session-schema.js';

/** A row's file as the session saved it: where it was, and its size and date then. */
export const FileSchema = v.strictObject({
  id: v.string(),
  path: v.string(),
  size: v.number(),
  mtimeMs: v.number(),
});

const JournalMarkSchema = v.strictObject({ epoch: v.string(), seq: v.number() });

/** The first line of the base. */
export const HeaderSchema = v.strictObject({
  version: v.literal(2),
  rows: v.number(),
  ids: v.pipe(v.array(v.string()), v.maxLength(200_000)),
  ignored: LibrarySessionSchema.entries.ignored,
  /** The journal this base follows, and the last of its lines folded in (none: a fresh base). */
  journal: v.optional(JournalMarkSchema),
});

const LineSchema = v.strictObject({
  id: v.string(),
  file: v.optional(FileSchema),
  row: StoredRowSchema,
});

/** The base's header. */
export type BaseHeader = v.InferOutput<typeof HeaderSchema>;
/** A saved row's file. */
export type StoredFile = v.InferOutput<typeof FileSchema>;

/** One base line for a row and its file. */
export function baseLine(row: SessionRow, file: StoredFile | undefined): string {
  return JSON.stringify({ id: row.id, ...(file ? { file } : {}), row: storedRow(row) });
}

/** A base line read back, checked: its row and file. Throws on a line that is not one. */
export function parseBaseLine(text: string): { row: SessionRow; file: StoredFile | undefined } {
  const line = v.parse(LineSchema, JSON.parse(text));
  if (line.row.id !== line.id) throw new Error(`a line names ${line.id} but holds ${line.row.id}`);
  return { row: sessionRow(line.row), file: line.file };
}

const idOfLine = /^\{"id":("(?:[^"\\]|\\.)*")/;

/** The id a base line is for, read from its start without parsing the row. */
function lineId(text: string): string {
  const match = idOfLine.exec(text);
  if (!match) throw new Error('a line of the saved library does not start with its id');
  return JSON.parse(match[1]!) as string;
}

/** The lines of a file a chunk at a time (each read is a turn of the event loop). */
async function* chunkedLines(path: string, start = 0): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of createReadStream(path, { start, highWaterMark: 128 * 1024 })) {
    const text = rest + decoder.write(chunk as Buffer);
    const lines = text.split('\n');
    rest = lines.pop()!;
    if (lines.length > 0) yield lines;
  }
  rest += decoder.end();
  if (rest.length > 0) yield [rest];
}

/** Reads the header of a base file (its first line only); undefined when there is none. */
export async function readHeader(path: string): Promise<BaseHeader | undefined> {
  const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return undefined;
  try {
    let text = '';
    const buffer = Buffer.alloc(1024 * 1024);
    for (let position = 0; ;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      const part = buffer.subarray(0, bytesRead);
      const end = part.indexOf(10);
      text += part.subarray(0, end < 0 ? bytesRead : end).toString('utf8');
      if (end >= 0 || bytesRead === 0) break;
      position += bytesRead;
    }
    return v.parse(HeaderSchema, JSON.parse(text));
  } finally {
    await handle.close();
  }
}

/**
 * The row lines of a base, fetched by id in about the order they were written: lines read ahead
 * of the one asked for are kept (unless they will never be asked for) until asked for in turn.
 */
export class BaseLines {
  readonly #ahead = new Map<string, string>();
  readonly #lines: AsyncGenerator<string[]>;
  #buffer: string[] = [];
  #at = 0;
  #header = true;

  /** `skip`: ids that will not be asked for (passed over, not kept). */
  constructor(
    path: string,
    private readonly skip: ReadonlySet<string>,
  ) {
    this.#lines = chunkedLines(path);
  }

  /** The line of row `id` (as written, unparsed). */
  async line(id: string): Promise<string> {
    const kept = this.#ahead.get(id);
    if (kept !== undefined) {
      this.#ahead.delete(id);
      return kept;
    }
    for (;;) {
      if (this.#at >= this.#buffer.length) {
        const next = await this.#lines.next();
        if (next.done) throw new Error(`the saved library has no line for row ${id}`);
        this.#buffer = next.value;
        this.#at = 0;
        continue;
      }
      const text = this.#buffer[this.#at++]!;
      if (this.#header) {
        this.#header = false;
        continue;
      }
      if (text.length === 0) continue;
      const found = lineId(text);
      if (found === id) return text;
      if (!this.skip.has(found)) this.#ahead.set(found, text);
    }
  }

  /** Stops reading (closes the file). */
  async close(): Promise<void> {
    await this.#lines.return(undefined);
  }
}

/** The header line, then the lines, as chunks of bytes for `writeStreamAtomic`. */
export async function* baseChunks(
  header: BaseHeader,
  lines: AsyncIterable<string>,
): AsyncGenerator<Uint8Array> {
  let pending = `${JSON.stringify(header)}\n`;
  for await (const line of lines) {
    pending += `${line}\n`;
    if (pending.length >= 256 * 1024) {
      yield Buffer.from(pending);
      pending = '';
    }
  }
  if (pending.length > 0) yield Buffer.from(pending);
}
