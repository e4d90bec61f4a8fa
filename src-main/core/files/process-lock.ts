/**
 * Locks that the operating system releases when their holder dies, so that one delivery (or one
 * upload key) is worked on by one process at a time, and a crashed or killed holder — or a pid
 * the OS has since given to another program — can never keep it.
 *
 * - Linux: a listening socket in the abstract namespace. The kernel frees the name the moment the
 *   process exits, however it exits; no file is left behind.
 * - Windows: a named pipe server (`\\.\pipe\…`), freed by the kernel in the same way.
 * - macOS and the BSDs: an `O_EXLOCK` (flock) lock on a file under `<dataDir>/locks/`, released
 *   when the descriptor closes, which the kernel does when the process dies.
 *
 * A process asking for a held lock is told who holds it (pid, what, since when): the holder
 * answers on the socket, or has written it into the lock file.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';

import { CourierError } from '../errors.js';

/** Who holds a lock, as the holder describes itself. */
export interface LockHolder {
  pid: number;
  /** What the holder is doing, e.g. "courier deliver" or "the app". */
  what: string;
  since: string;
}

/** A held lock; `release` is idempotent. */
export interface ProcessLock {
  release(): Promise<void>;
}

/** Thrown when another process holds the lock. */
export class LockHeldError extends CourierError {
  constructor(
    readonly subject: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      'locked',
      `${subject} is in use by another Courier process${holder ? ` (pid ${holder.pid}, ${holder.what}, since ${holder.since})` : ''}; wait for it to finish or stop it.`,
    );
    this.name = 'LockHeldError';
  }
}

/** Options of one acquisition. */
export interface LockOptions {
  /** The data directory the lock belongs to (locks of two data directories never meet). */
  dataDir: string;
  /** A stable name of what is locked (`delivery:<id>`, `upload:<key>`). */
  name: string;
  /** How the holder describes the work and what is locked, for the message a waiter gets. */
  what: string;
  subject: string;
  /** Waits until the lock is free (polling), instead of failing at once. */
  wait?: boolean;
  /** Stops waiting. */
  signal?: AbortSignal;
}

const POLL_MS = 250;

/** Takes a lock, or throws `LockHeldError` naming its holder (unless `wait`). */
export async function acquireProcessLock(options: LockOptions): Promise<ProcessLock> {
  const id = createHash('sha256')
    .update(`${options.dataDir}\0${options.name}`)
    .digest('hex')
    .slice(0, 40);
  const holder: LockHolder = {
    pid: process.pid,
    what: options.what,
    since: new Date().toISOString(),
  };
  for (;;) {
    const lock =
      process.platform === 'linux' || process.platform === 'win32'
        ? await trySocketLock(socketAddress(id), holder)
        : await tryFileLock(join(options.dataDir, 'locks', `${id}.lock`), holder);
    if ('release' in lock) return lock;
    if (!options.wait) throw new LockHeldError(options.subject, lock.holder);
    if (options.signal?.aborted) {
      throw new CourierError('canceled', `Stopped waiting for ${options.subject}.`);
    }
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
}

function socketAddress(id: string): string {
  return process.platform === 'win32'
    ? `\\\\.\\pipe\\catalog-courier-${id}`
    : `\0catalog-courier-lock-${id}`;
}

type Attempt = ProcessLock | { holder: LockHolder | undefined };

/** Listens on the lock's address: success holds the lock, EADDRINUSE means someone does. */
async function trySocketLock(address: string, holder: LockHolder): Promise<Attempt> {
  const server: Server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(JSON.stringify(holder));
  });
  const listening = await new Promise<boolean>((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? done(false) : fail(error),
    );
    server.listen(address, () => done(true));
  });
  if (!listening) return { holder: await askHolder(address) };
  // The lock must not keep a finished command alive.
  server.unref();
  let released: Promise<void> | undefined;
  return {
    release: () =>
      (released ??= new Promise<void>((done) => {
        server.close(() => done());
      })),
  };
}

/** What the holder says about itself, or undefined when it does not answer in time. */
function askHolder(address: string): Promise<LockHolder | undefined> {
  return new Promise((done) => {
    let text = '';
    const socket = connect(address);
    const timer = setTimeout(() => finish(undefined), 1000);
    const finish = (value: LockHolder | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      done(value);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => finish(parseHolder(text)));
    socket.on('error', () => finish(undefined));
  });
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as LockHolder;
    return typeof value.pid === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

// O_EXLOCK and O_NONBLOCK as macOS and the BSDs define them (Node passes open flags through).
const O_EXLOCK = 0x20;
const O_NONBLOCK = 0x4;

/** An flock taken with open(O_EXLOCK | O_NONBLOCK): EAGAIN means someone holds it. */
async function tryFileLock(path: string, holder: LockHolder): Promise<Attempt> {
  await mkdir(join(path, '..'), { recursive: true });
  try {
    const handle = await open(
      path,
      constants.O_RDWR | constants.O_CREAT | O_EXLOCK | O_NONBLOCK,
      0o600,
    );
    await handle.truncate(0);
    await handle.write(JSON.stringify(holder), 0);
    let released: Promise<void> | undefined;
    return { release: () => (released ??= handle.close()) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw error;
    return { holder: parseHolder(await readFile(path, 'utf8').catch(() => '')) };
  }
}
