import { readdir } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';

// s3rver is plain CommonJS without types; these are the parts the sandbox uses. They stay local
// (no ambient `declare module`) so they never change how other files see the package.
interface S3rverObject {
  key: string;
  content: Readable | Buffer | null;
}

interface S3rverStore {
  listObjects(
    bucket: string,
    options: { prefix?: string; delimiter?: string; maxKeys?: number },
  ): Promise<{ objects: S3rverObject[]; commonPrefixes: string[] }>;
  existsObject(bucket: string, key: string): Promise<boolean>;
  getObject(bucket: string, key: string): Promise<S3rverObject | null>;
  putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
  copyObject(
    srcBucket: string,
    srcKey: string,
    destBucket: string,
    destKey: string,
  ): Promise<unknown>;
  deleteObject(bucket: string, key: string): Promise<void>;
  getMetadata(bucket: string, key: string): Promise<Record<string, string | number>>;
}

/** The slice of Koa's context the sandbox's own middleware touches. */
interface KoaContext {
  req: IncomingMessage;
  status: number;
  set(headers: Record<string, string>): void;
}

/** s3rver is a Koa app: its request handler runs in this process, on no socket. */
interface S3rverServer {
  store: S3rverStore;
  middleware: ((ctx: KoaContext, next: () => Promise<void>) => Promise<void>)[];
  configureBuckets(): Promise<unknown>;
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  logger: { close(): void };
}

/** The suffix of the file holding an object's bytes, after the key's last part. */
const OBJECT_SUFFIX = '._S3rver_object';

/** A key's part from its file name in s3rver's folder: on Windows s3rver writes `<>:"\\|?*` as `&` + hex. */
function keyOfPath(name: string): string {
  return process.platform === 'win32'
    ? name.replace(/&[0-9a-f]{2}/g, (ref) => Buffer.from(ref.slice(1), 'hex').toString())
    : name;
}

type S3rverClass = new (options: {
  silent: boolean;
  directory: string;
  vhostBuckets: boolean;
  configureBuckets: { name: string }[];
}) => S3rverServer;
type S3ObjectClass = new (
  bucket: string,
  key: string,
  content: Readable | Buffer,
  metadata: Record<string, string>,
) => S3rverObject;

/** s3rver and its web framework, loaded when a bucket first starts: every other command is spared them. */
function s3rver(): { S3rver: S3rverClass; S3Object: S3ObjectClass } {
  const require = createRequire(import.meta.url);
  return {
    S3rver: require('@20minutes/s3rver') as S3rverClass,
    S3Object: require('@20minutes/s3rver/lib/models/object.js') as S3ObjectClass,
  };
}

/** The "folders" of section 2.6, created as zero-byte markers so browsers show the layout. */
export const BUCKET_LAYOUT = [
  'csv_outputs/',
  'delivery/',
  'delivery/audio/',
  'delivery/ddex/',
  'delivery/mapping/',
  'delivery/metadata/',
  'live_analysis/',
  'logs/',
  'processed/',
  'processed/audio/',
  'processed/features/',
];

/**
 * A request the gate hands s3rver: what the gate checked (method, path, headers) and the body it
 * decoded, streaming. It carries only what s3rver reads of an `IncomingMessage`.
 */
export class BucketRequest extends PassThrough {
  readonly httpVersion = '1.1';
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  readonly rawHeaders: string[];

  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Record<string, string | string[]>,
    /** The client's socket, for the address s3rver logs. */
    readonly socket: Socket,
    /** Headers to set on a successful answer (a signed GET's `response-*` overrides). */
    readonly answerHeaders: Record<string, string> = {},
  ) {
    super();
    this.rawHeaders = Object.entries(headers).flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).flatMap((v) => [name, v]),
    );
  }
}

/**
 * The organization's delivery bucket: s3rver (a real S3-protocol server, data on disk) run in
 * this process with no socket of its own, plus the operations the service itself performs on it.
 * Only the gate (s3-gate.ts) hands it client requests, after checking each one.
 */
export class Bucket {
  private readonly handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>;

  private constructor(
    private readonly server: S3rverServer,
    readonly name: string,
    /** The folder s3rver keeps this bucket's objects in. */
    private readonly root: string,
  ) {
    // s3rver refuses `response-*` overrides on requests it did not authenticate itself; the gate
    // did, so it applies them here, around s3rver's own handling.
    server.middleware.unshift(async (ctx, next) => {
      await next();
      if (ctx.req instanceof BucketRequest && ctx.status >= 200 && ctx.status < 300) {
        ctx.set(ctx.req.answerHeaders);
      }
    });
    this.handler = server.callback();
  }

  /** Opens s3rver's store with the bucket and its section 2.6 layout. */
  static async start(directory: string, name: string, info: unknown): Promise<Bucket> {
    const { S3rver } = s3rver();
    const server = new S3rver({
      silent: true,
      directory,
      vhostBuckets: false,
      configureBuckets: [{ name }],
    });
    await server.configureBuckets();
    const bucket = new Bucket(server, name, join(directory, name));
    for (const key of BUCKET_LAYOUT) {
      if (!(await bucket.exists(key))) await bucket.put(key, Buffer.alloc(0));
    }
    await bucket.put(
      'INFO.json',
      Buffer.from(`${JSON.stringify(info, null, 2)}\n`),
      'application/json',
    );
    return bucket;
  }

  private get store(): S3rverStore {
    return this.server.store;
  }

  /** True when an object exists at the key. */
  exists(key: string): Promise<boolean> {
    return this.store.existsObject(this.name, key);
  }

  /** Stores an object. */
  async put(
    key: string,
    content: Buffer | Readable,
    contentType = 'binary/octet-stream',
  ): Promise<void> {
    const { S3Object } = s3rver();
    await this.store.putObject(
      new S3Object(this.name, key, content, { 'content-type': contentType }),
    );
  }

  /** Reads a whole (small) object as text, or undefined when missing. */
  async readText(key: string): Promise<string | undefined> {
    const object = await this.store.getObject(this.name, key);
    if (!object?.content) return undefined;
    if (Buffer.isBuffer(object.content)) return object.content.toString('utf8');
    const chunks: Buffer[] = [];
    for await (const chunk of object.content) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  /**
   * Every key under a prefix (folder markers included), in no particular order, from a walk of
   * s3rver's folder that enters only folders the prefix can reach. A file that vanishes during
   * the walk (the service moving audio) is simply not listed.
   */
  async keys(prefix = ''): Promise<string[]> {
    const found: string[] = [];
    const walk = async (folder: string, relative: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(folder, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        const name = keyOfPath(entry.name);
        if (entry.isDirectory()) {
          const inner = `${relative}${name}/`;
          if (inner.startsWith(prefix) || prefix.startsWith(inner)) {
            await walk(join(folder, entry.name), inner);
          }
        } else if (name.endsWith(OBJECT_SUFFIX)) {
          const key = `${relative}${name.slice(0, -OBJECT_SUFFIX.length)}`;
          if (key.startsWith(prefix)) found.push(key);
        }
      }
    };
    await walk(this.root, '');
    return found;
  }

  /** Size, date and ETag of an object, or undefined when it is gone. */
  async describe(
    key: string,
  ): Promise<{ size: number; lastModified: Date; etag: string } | undefined> {
    try {
      const metadata = await this.store.getMetadata(this.name, key);
      return {
        size: Number(metadata['content-length']),
        lastModified: new Date(String(metadata['last-modified'])),
        etag: String(metadata.etag),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** The keys of the objects directly under a prefix ending in '/' (no recursion, no markers). */
  async listFiles(prefix: string): Promise<string[]> {
    return (await this.keys(prefix))
      .filter((key) => key !== prefix && !key.slice(prefix.length).includes('/'))
      .sort();
  }

  /** True when any object lives under the prefix. */
  async hasPrefix(prefix: string): Promise<boolean> {
    return (await this.keys(prefix)).length > 0;
  }

  /** Copies an object inside the bucket. */
  async copy(from: string, to: string): Promise<void> {
    await this.store.copyObject(this.name, from, this.name, to);
  }

  /** Moves an object: the copy lands first, so the content is never absent from the bucket. */
  async move(from: string, to: string): Promise<void> {
    await this.copy(from, to);
    await this.delete(from);
  }

  /** Deletes an object; a missing one is not an error. */
  async delete(key: string): Promise<void> {
    // s3rver's cleanup of empty folders throws when the folder is already gone.
    if (await this.exists(key)) await this.store.deleteObject(this.name, key);
  }

  /**
   * Has s3rver answer a request the gate checked, on the client's response. Resolves once s3rver
   * has started its answer (a body may still be streaming).
   */
  serve(request: BucketRequest, response: ServerResponse): Promise<void> {
    return this.handler(request as unknown as IncomingMessage, response);
  }

  /** Releases s3rver's logger; the store needs no closing. */
  async close(): Promise<void> {
    this.server.logger.close();
  }
}
