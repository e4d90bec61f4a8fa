/**
 * The local log (`logs/courier.log` in the data directory): JSON lines, rotated by size, and
 * redacted — every secret Courier has read in this process, bearer tokens and secret-named
 * fields are replaced before a line is written.
 */
import { appendFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

const MAX_BYTES = 1024 * 1024;
const KEEP = 3;

const SECRET_FIELD = String.raw`"?(?:client_secret|secret_access_key|secretAccessKey|token|password)"?\s*[:=]\s*`;
/** `"token": "…"`: the whole quoted value, escapes included, so JSON stays JSON. */
const QUOTED_SECRET_FIELD = new RegExp(String.raw`(${SECRET_FIELD}")(?:[^"\\]|\\.)*`, 'gi');
/** `token=…` in plain text; JSON numbers, literals, objects and arrays are left alone. */
const BARE_SECRET_FIELD = new RegExp(
  String.raw`(${SECRET_FIELD})(?![\s"\d{[]|null\b|true\b|false\b)[^"\s,}]+`,
  'gi',
);

/** Secret values this process knows, so no log line can carry one. */
export class Redactor {
  readonly #secrets = new Set<string>();

  /** Remembers a secret to redact (values shorter than 4 characters would redact noise). */
  add(secret: string): void {
    if (secret.length >= 4) this.#secrets.add(secret);
  }

  /** The text with every known secret and secret-looking value replaced. */
  redact(text: string): string {
    let out = text
      .replace(/(Bearer\s+)[\w.~+/=-]+/gi, '$1[redacted]')
      .replace(QUOTED_SECRET_FIELD, '$1[redacted]')
      .replace(BARE_SECRET_FIELD, '$1[redacted]');
    for (const secret of this.#secrets) out = out.split(secret).join('[redacted]');
    return out;
  }
}

/** The redactor shared by everything in this process. */
export const redactor = new Redactor();

const SECRET_KEY =
  /^(?:client_secret|secret_access_key|secretAccessKey|token|access_token|password|authorization)$/i;

/**
 * A deep copy of a JSON-like value with every string redacted and the values of secret-named
 * fields replaced (a structural walk, so the result stays valid JSON whatever the values are).
 */
export function redactValue<T>(value: T): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string')
      return key && SECRET_KEY.test(key) ? '[redacted]' : redactor.redact(v);
    if (Array.isArray(v)) return v.map((item) => walk(item));
    if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, k)]));
    }
    return v;
  };
  return walk(value) as T;
}

export type LogLevel = 'info' | 'warn' | 'error';

/** Appends redacted log lines to the data directory's log, rotating it by size. */
export class Logger {
  readonly #dir: string;
  readonly #file: string;
  #queue: Promise<void> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly source: string,
  ) {
    this.#dir = join(dataDir, 'logs');
    this.#file = join(this.#dir, 'courier.log');
  }

  /** Writes one line; never throws (a log that can't be written must not stop a delivery). */
  log(level: LogLevel, message: string, fields: Record<string, unknown> = {}): Promise<void> {
    const line = redactor.redact(
      JSON.stringify({
        time: new Date().toISOString(),
        level,
        source: this.source,
        message,
        ...fields,
      }),
    );
    this.#queue = this.#queue.then(() => this.#append(`${line}\n`)).catch(() => undefined);
    return this.#queue;
  }

  async #append(line: string): Promise<void> {
    await mkdir(this.#dir, { recursive: true });
    const size = (await stat(this.#file).catch(() => null))?.size ?? 0;
    if (size + line.length > MAX_BYTES) {
      await rm(`${this.#file}.${KEEP}`, { force: true });
      for (let i = KEEP - 1; i >= 1; i--) {
        await rename(`${this.#file}.${i}`, `${this.#file}.${i + 1}`).catch(() => undefined);
      }
      await rename(this.#file, `${this.#file}.1`).catch(() => undefined);
    }
    await appendFile(this.#file, line, { mode: 0o600 });
  }
}
