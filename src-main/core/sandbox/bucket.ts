import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';

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
}

interface S3rverServer {
  store: S3rverStore;
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

type S3rverClass = new (options: {
  address: string;
  port: number;
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
 * The organization's delivery bucket: s3rver (a real S3-protocol server, data on disk) on an
 * internal loopback port, plus the in-process operations the service itself performs on it.
 * Clients never reach this port; they go through the gate (s3-gate.ts).
 */
export class Bucket {
  private constructor(
    private readonly server: S3rverServer,
    readonly name: string,
    readonly internalPort: number,
  ) {}

  /** Starts s3rver on a free loopback port with the bucket and its section 2.6 layout. */
  static async start(directory: string, name: string, info: unknown): Promise<Bucket> {
    const { S3rver } = s3rver();
    const server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory,
      vhostBuckets: false,
      configureBuckets: [{ name }],
    });
    const address = await server.run();
    const bucket = new Bucket(server, name, address.port);
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

  /** The keys of the objects directly under a prefix ending in '/' (no recursion, no markers). */
  async listFiles(prefix: string): Promise<string[]> {
    const { objects } = await this.store.listObjects(this.name, { prefix, delimiter: '/' });
    return objects.map((o) => o.key).filter((key) => key !== prefix && !key.endsWith('/'));
  }

  /** True when any object lives under the prefix. */
  async hasPrefix(prefix: string): Promise<boolean> {
    const { objects, commonPrefixes } = await this.store.listObjects(this.name, {
      prefix,
      maxKeys: 1,
    });
    return objects.length > 0 || commonPrefixes.length > 0;
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

  /** Stops s3rver. */
  async close(): Promise<void> {
    await this.server.close();
  }
}
