/**
 * Issue #17's property: no spelling of a read-only key gets a write through the gate. Random
 * encodings of the sandbox bucket's read-only keys (percent-encoding of any characters in either
 * hex case, `+` for a space, `%2F`, double and overlong encodings, `.`/`..`/empty parts,
 * backslashes, other case, full-width and other look-alikes, NFD/NFKC, a climb out of a writable
 * folder; in DeleteObjects, character and entity references, CDATA, comments and whitespace in the
 * tags) go to every write verb. Whatever the spelling, the read-only objects keep their bytes, and
 * the answer is the one S3's reading of the spelling calls for: AccessDenied for a key outside the
 * writable folders, InvalidArgument for a key the sandbox can't store safely, InvalidURI for an
 * undecodable path, and success only for a key that is writable (stored there, elsewhere).
 *
 * s3rver stores each key as files named after its `/`-separated parts, unchanged on Linux (case-
 * and normalization-sensitive): another case or another Unicode form is another file, so a
 * different key, and it is refused because it is outside the writable folders, never because the
 * disk would merge it.
 */
import { createHash } from 'node:crypto';

import {
  type _Object,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BUCKET_LAYOUT } from '../../../src-main/core/sandbox/bucket.js';
import { isWritableKey, WRITABLE_PREFIXES } from '../../../src-main/core/sandbox/bucket-policy.js';
import { signedFetch } from '../../support/s3-signing.js';
import { eventually, startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

// Seeded, so that a failure reproduces; FC_SEED overrides it to explore further.
const seed = Number(process.env.FC_SEED ?? 1717);
/** Generated cases per verb: enough to mix every encoding, few enough to stay well under a minute. */
const numRuns = Number(process.env.FC_RUNS ?? 60);

let sandbox: TestSandbox;
let s3: S3Client;
let Bucket: string;
/** Every object outside the writable folders when the run starts, with its bytes' hash. */
let readOnly: Map<string, string>;
const SOURCE = 'delivery/audio/props/source.wav';

async function bytesOf(Key: string): Promise<string> {
  const answer = await s3.send(new GetObjectCommand({ Bucket, Key }));
  const bytes = await answer.Body!.transformToByteArray();
  return `${answer.ETag} ${createHash('sha256').update(bytes).digest('hex')}`;
}

async function listing(): Promise<_Object[]> {
  const objects: _Object[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket, ContinuationToken }));
    objects.push(...(page.Contents ?? []));
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return objects;
}

/** The read-only part of the bucket: keys, ETags, sizes and dates, as a listing shows them. */
async function readOnlyListing(): Promise<string[]> {
  return (await listing())
    .filter((object) => !isWritableKey(object.Key!))
    .map((o) => `${o.Key} ${o.ETag} ${o.Size} ${o.LastModified?.toISOString()}`);
}
let listingBefore: string[];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  s3 = sandbox.s3();
  Bucket = sandbox.info.bucket.bucket_name;
  const catalog = sandbox.info.catalogs[0]!.id;
  // Processed audio whose key carries what encodings play with: '%' (the encoded outer_id),
  // spaces, '+' and parentheses. Not '&' or "'": s3rver's listings escape them twice.
  const name = 'Me + You (Live) 1.wav';
  await s3.send(
    new PutObjectCommand({ Bucket, Key: `delivery/audio/props/${name}`, Body: 'RIFF....WAVE' }),
  );
  const ingested = await sandbox.api(`/ingestion/json?catalog_id=${catalog}`, {
    method: 'POST',
    json: [{ outer_id: 'Été/1 & 2', primary_media: `props/${name}` }],
  });
  expect(ingested.status).toBe(200);
  // The product run writes csv_outputs/; once the entry is available nothing changes any more.
  await eventually(async () => {
    const answer = await sandbox.api(`/sandbox/catalogs/${catalog}/entries`);
    return answer.body.data.every((e: { state: string }) => e.state === 'available')
      ? true
      : undefined;
  });
  await s3.send(new PutObjectCommand({ Bucket, Key: SOURCE, Body: 'a writable source' }));

  readOnly = new Map();
  for (const key of (await listing()).map((o) => o.Key!).filter((k) => !isWritableKey(k))) {
    readOnly.set(key, await bytesOf(key));
  }
  listingBefore = await readOnlyListing();
  const keys = [...readOnly.keys()];
  // The run attacks every kind the service keeps: its layout's folder markers, INFO.json, the
  // processed audio and the analysis output.
  expect(keys).toEqual(expect.arrayContaining([...BUCKET_LAYOUT, 'INFO.json']));
  expect(keys.some((k) => k.startsWith(`processed/audio/${catalog}/`))).toBe(true);
  expect(keys.some((k) => k.startsWith(`csv_outputs/${catalog}/`))).toBe(true);
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
});

// ── What a spelling means ────────────────────────────────────────────────────────────────────

/** What S3 does with a write to a key, as the sandbox's documented rules say. */
type Outcome = 'allowed' | 'AccessDenied' | 'InvalidArgument' | 'InvalidURI';

/**
 * The answer a write of `key` must get (undefined: the path does not decode). Written out here,
 * not borrowed from the gate, so that the gate's canonicalisation and rule are both under test.
 */
function expectedOutcome(key: string | undefined): Outcome {
  if (key === undefined) return 'InvalidURI';
  const parts = key.split('/');
  if (
    parts.some((part) => part === '.' || part === '..') ||
    parts.slice(0, -1).includes('') ||
    key.includes('\\') ||
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f]/.test(key) ||
    // Windows drops a folder name's last dots and spaces (docs/sandbox.md, "The bucket").
    parts.slice(0, -1).some((part) => /[. ]$/.test(part))
  ) {
    return 'InvalidArgument';
  }
  return isWritableKey(key) ? 'allowed' : 'AccessDenied';
}

/** A key as an attacker rewrites it: the key S3 would then read, and how it got there. */
interface Variant {
  target: string;
  key: string;
  how: string[];
}

const LOOKALIKES: Record<string, string[]> = {
  '.': ['\uff0e', '\u2024', '\u3002'],
  '/': ['\uff0f', '\u2215', '\u2044', '\u29f8'],
  '\\': ['\uff3c', '\u2216', '\u29f5'],
  ' ': ['\u3000', '\u00a0'],
  K: ['\u212a'],
  A: ['\u0391', '\u0410'],
};

/** A look-alike of a character: its full-width form, or another from the list. */
function lookalike(char: string, pick: number): string {
  const code = char.charCodeAt(0);
  const options = [
    ...(code >= 0x21 && code <= 0x7e ? [String.fromCharCode(code + 0xfee0)] : []),
    ...(LOOKALIKES[char] ?? []),
  ];
  return options.length === 0 ? char : options[pick % options.length]!;
}

/** Indices of a key's '/' separators, and 0 (before the first part). */
function boundaries(key: string): number[] {
  return [0, ...[...key].flatMap((c, i) => (c === '/' ? [i + 1] : []))];
}

type Mutation = (key: string) => fc.Arbitrary<[string, string]>;

/** Ways to change the key itself; each keeps a trace for the failure message. */
const mutations: Mutation[] = [
  // Another case: on a case-insensitive disk it would be the same file.
  (key) =>
    fc
      .array(fc.boolean(), { minLength: key.length, maxLength: key.length })
      .map((flips) => [
        [...key]
          .map((c, i) =>
            flips[i] ? (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) : c,
          )
          .join(''),
        'case',
      ]),
  // Full-width and other look-alikes, then perhaps NFKC (which folds full-width back) or NFD.
  (key) =>
    fc
      .tuple(
        fc.array(fc.nat(7), { minLength: key.length, maxLength: key.length }),
        fc.constantFrom(undefined, 'NFKC', 'NFD', 'NFKD'),
      )
      .map(([picks, form]) => {
        const swapped = [...key].map((c, i) => (picks[i]! < 3 ? lookalike(c, picks[i]!) : c));
        const text = swapped.join('');
        return [form ? text.normalize(form) : text, `look-alikes${form ? `+${form}` : ''}`];
      }),
  // A '.' or 'x/..' part, or an empty one, at a part boundary.
  (key) =>
    fc
      .tuple(
        fc.constantFrom(...boundaries(key)),
        fc.constantFrom('./', '../', 'x/../', '/', './/', '.\\'),
      )
      .map(([at, extra]) => [`${key.slice(0, at)}${extra}${key.slice(at)}`, `insert ${extra}`]),
  // Backslashes for some of the separators, or one more.
  (key) =>
    fc
      .tuple(fc.array(fc.boolean(), { minLength: key.length, maxLength: key.length }), fc.boolean())
      .map(([swaps, append]) => {
        const text = [...key].map((c, i) => (c === '/' && swaps[i] ? '\\' : c)).join('');
        return [text === key || append ? `${text}\\` : text, 'backslashes'];
      }),
  // Climbing out of a writable folder to the key, in any separator and dot spelling that the
  // key then carries literally (the path encoding may spell the dots again, or double-encode them).
  (key) =>
    fc
      .tuple(
        fc.constantFrom(...WRITABLE_PREFIXES),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('../', '..\\', '\uff0e\uff0e/', '%2e%2e/', '%2E%2E%2F', '..%2f', '.../'),
      )
      .map(([prefix, depth, climb]) => [
        `${prefix}${climb.repeat(depth)}${key}`,
        `climb ${depth}×${climb}`,
      ]),
  // Spaces and line breaks around it.
  (key) =>
    fc
      .tuple(fc.constantFrom('', ' ', '\t', '\n', '  '), fc.constantFrom('', ' ', '\t', '\n'))
      .filter(([a, b]) => a + b !== '')
      .map(([before, after]) => [`${before}${key}${after}`, 'whitespace']),
];

/** A climb out of a writable folder: the spelling most likely to reach a key that is allowed. */
const CLIMB = 4;

/** A read-only key, unchanged some of the time, else rewritten by one to three mutations. */
function variant(extra: Mutation[] = []): fc.Arbitrary<Variant> {
  const all = [...mutations, ...extra];
  const step = fc.oneof(
    { weight: all.length, arbitrary: fc.nat(all.length - 1) },
    { weight: 2, arbitrary: fc.constant(CLIMB) },
  );
  return fc
    .tuple(
      fc.constantFrom(...readOnly.keys()),
      fc.oneof(
        { weight: 1, arbitrary: fc.constant([] as number[]) },
        { weight: 3, arbitrary: fc.array(step, { minLength: 1, maxLength: 3 }) },
      ),
    )
    .chain(([target, steps]) => {
      let arb: fc.Arbitrary<Variant> = fc.constant({ target, key: target, how: [] });
      for (const index of steps) {
        arb = arb.chain((v) =>
          all[index]!(v.key).map(([key, how]) => ({ ...v, key, how: [...v.how, how] })),
        );
      }
      return arb;
    });
}

// ── Spelling a key in a URL path ─────────────────────────────────────────────────────────────

const hex = (byte: number, upper: boolean) => {
  const text = byte.toString(16).padStart(2, '0');
  return `%${upper ? text.toUpperCase() : text}`;
};
const percent = (char: string, upper: boolean) =>
  [...Buffer.from(char, 'utf8')].map((b) => hex(b, upper)).join('');

/** A path spelling of a variant: the wire text after `/<bucket>/`, and the key S3 decodes. */
interface PathSpelling extends Variant {
  wire: string;
  decoded: string | undefined;
}

/** A value one time in four, else undefined. */
function rarely<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** Characters a path may carry as they are: RFC 3986's unreserved and sub-delims, ':', '@'. */
const RAW_OK = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/;

/**
 * Encodes each character one of the ways a client could: as it is (when a URL may carry it),
 * percent-encoded in either hex case, a space as '+' (which S3 reads as a '+'), a '/' as `%2F`,
 * double-encoded (`%252e`: the key keeps `%2e`), or as an overlong UTF-8 sequence or `%u002e`
 * (no valid decoding).
 */
function pathSpelling(v: Variant): fc.Arbitrary<PathSpelling> {
  const chars = [...v.key];
  const dots = chars.flatMap((c, i) => (c === '.' || c === '/' ? [i] : []));
  return fc
    .tuple(
      fc.array(fc.nat(9), { minLength: chars.length, maxLength: chars.length }),
      // Now and then one character double-encoded (`%252e`: the key keeps `%2e`)...
      rarely(fc.nat(chars.length - 1)),
      // ...or one '.' or '/' spelled so that it can't be decoded at all.
      rarely(fc.tuple(fc.constantFrom(...dots), fc.constantFrom('%C0%AE', '%c0%af', '%u002e'))),
    )
    .map(([picks, twice, undecodable]) => {
      let wire = '';
      let decoded: string | undefined = '';
      chars.forEach((char, i) => {
        const pick = picks[i]!;
        const upper = pick % 2 === 0;
        if (undecodable && undecodable[0] === i) {
          wire += undecodable[1];
          decoded = undefined;
        } else if (twice === i && char.charCodeAt(0) < 0x80) {
          wire += `%25${percent(char, upper).slice(1)}`;
          if (decoded !== undefined) decoded += percent(char, upper);
        } else if (char === ' ' && pick < 4) {
          wire += '+';
          if (decoded !== undefined) decoded += '+';
        } else if (char === '/' && pick < 8) {
          wire += '/';
          if (decoded !== undefined) decoded += char;
        } else if (RAW_OK.test(char) && pick < 6) {
          wire += char;
          if (decoded !== undefined) decoded += char;
        } else {
          wire += percent(char, upper);
          if (decoded !== undefined) decoded += char;
        }
      });
      return { ...v, wire, decoded };
    });
}

// ── Checking what a request did ──────────────────────────────────────────────────────────────

interface Answer {
  status: number;
  body: string;
}

async function send(request: Parameters<typeof signedFetch>[1]): Promise<Answer> {
  const answer = await signedFetch(sandbox.info, request);
  return { status: answer.status, body: await answer.text() };
}

/** The read-only objects are as they were: same keys, bytes, ETags and dates. */
async function expectReadOnlyUntouched(target: string): Promise<void> {
  expect(await bytesOf(target), target).toBe(readOnly.get(target));
  expect(await readOnlyListing()).toEqual(listingBefore);
}

function expectRefusal(answer: Answer, outcome: Exclude<Outcome, 'allowed'>, why: string): void {
  const status = outcome === 'AccessDenied' ? 403 : 400;
  const code = /<Code>([^<]*)<\/Code>/.exec(answer.body)?.[1];
  expect({ status: answer.status, code }, why).toEqual({ status, code: outcome });
}

/** Describes a case for the failure message: what was sent and what S3 would read. */
function label(s: PathSpelling | Variant, extra = ''): string {
  return JSON.stringify({ ...s, extra });
}

/** Runs a property over path spellings, each sent by `write`, and checks answer and bucket. */
async function checkPathVerb(
  write: (spelling: PathSpelling) => Promise<Answer>,
  allowedStatus: number,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(variant().chain(pathSpelling), async (spelling) => {
      const outcome = expectedOutcome(spelling.decoded);
      const answer = await write(spelling);
      if (outcome === 'allowed') {
        expect(answer.status, label(spelling, answer.body)).toBe(allowedStatus);
      } else {
        expectRefusal(answer, outcome, label(spelling, answer.body));
      }
      await expectReadOnlyUntouched(spelling.target);
    }),
    { seed, numRuns },
  );
}

/** A multipart upload to a writable key, with one part, its id and the part's ETag. */
async function freshUpload(): Promise<{ uploadId: string; etag: string }> {
  const key = `/${Bucket}/delivery/audio/props/multipart.wav`;
  const created = await send({ method: 'POST', path: key, query: { uploads: '' } });
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created.body)![1]!;
  const part = await signedFetch(sandbox.info, {
    method: 'PUT',
    path: key,
    query: { partNumber: '1', uploadId },
    body: 'one part',
  });
  return { uploadId, etag: part.headers.get('etag')! };
}

describe('every write verb, given any spelling of a read-only key', () => {
  it('PutObject stores nothing over it', async () => {
    await checkPathVerb(
      (s) => send({ method: 'PUT', path: `/${Bucket}/${s.wire}`, body: 'overwritten' }),
      200,
    );
  });

  it('CopyObject copies nothing onto it, from a writable source or from itself', async () => {
    let turn = 0;
    await checkPathVerb(
      (s) =>
        send({
          method: 'PUT',
          path: `/${Bucket}/${s.wire}`,
          headers: {
            'x-amz-copy-source': `${Bucket}/${encodeURIComponent(turn++ % 2 ? SOURCE : s.target)}`,
            'x-amz-metadata-directive': 'REPLACE',
            'content-type': 'text/x-replaced',
          },
        }),
      200,
    );
  });

  it('CreateMultipartUpload starts no upload to it', async () => {
    await checkPathVerb(
      (s) => send({ method: 'POST', path: `/${Bucket}/${s.wire}`, query: { uploads: '' } }),
      200,
    );
  });

  it('UploadPart adds no part for it', async () => {
    const { uploadId } = await freshUpload();
    await checkPathVerb(
      (s) =>
        send({
          method: 'PUT',
          path: `/${Bucket}/${s.wire}`,
          query: { partNumber: '2', uploadId },
          body: 'a part',
        }),
      200,
    );
  });

  it('CompleteMultipartUpload completes no upload onto it', async () => {
    let upload = await freshUpload();
    await checkPathVerb(async (s) => {
      const answer = await send({
        method: 'POST',
        path: `/${Bucket}/${s.wire}`,
        query: { uploadId: upload.uploadId },
        body: `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${upload.etag}</ETag></Part></CompleteMultipartUpload>`,
      });
      // A completed upload is gone (into its own, writable key): the next case needs another.
      if (answer.status === 200) upload = await freshUpload();
      return answer;
    }, 200);
  });

  it('DeleteObject deletes nothing', async () => {
    await checkPathVerb((s) => send({ method: 'DELETE', path: `/${Bucket}/${s.wire}` }), 204);
  });

  it('a browser-form POST to the bucket stores nothing, signed or not, whatever its key', async () => {
    // S3's form upload: the key is a form field, read as it is (`${filename}` replaced by the
    // file's name). The gate takes no form posts at all: AccessDenied, even for a writable key.
    const form = fc.record({
      v: variant(),
      viaFilename: fc.boolean(),
      signed: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(form, async ({ v, viaFilename, signed }) => {
        const data = new FormData();
        data.set('key', viaFilename ? 'delivery/audio/${filename}' : v.key);
        data.set('acl', 'private');
        data.set('X-Amz-Algorithm', 'AWS4-HMAC-SHA256');
        data.set('file', new Blob(['overwritten']), viaFilename ? `../../${v.key}` : 'x.wav');
        const encoded = new Response(data);
        const answer = await send({
          method: 'POST',
          path: `/${Bucket}`,
          headers: { 'content-type': encoded.headers.get('content-type')! },
          body: Buffer.from(await encoded.arrayBuffer()),
          unsigned: !signed,
        });
        expectRefusal(answer, 'AccessDenied', label(v, answer.body));
        await expectReadOnlyUntouched(v.target);
      }),
      { seed, numRuns },
    );
  });
});

// ── Spelling a key in a DeleteObjects body ───────────────────────────────────────────────────

/** An XML spelling of a key: the `<Key>` element as sent. */
interface XmlSpelling extends Variant {
  element: string;
}

const NAMED: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/**
 * Writes each character as it is (escaped where XML needs it), as a named entity, a decimal or
 * hexadecimal character reference (either case, leading zeros), or inside a CDATA section, with
 * comments between characters and whitespace inside the tags. Percent-encoding means nothing in
 * XML, so a `%` sequence is a literal part of the key (the "percent" mutation).
 */
function xmlSpelling(v: Variant): fc.Arbitrary<XmlSpelling> {
  const chars = [...v.key];
  return fc
    .tuple(
      fc.array(fc.nat(11), { minLength: chars.length, maxLength: chars.length }),
      fc.constantFrom('', ' ', '\n', '\t', ' \r\n '),
      fc.constantFrom('', ' ', '\n'),
    )
    .map(([picks, open, close]) => {
      let text = '';
      let inCdata = false;
      chars.forEach((char, i) => {
        const pick = picks[i]!;
        const code = char.codePointAt(0)!;
        const wantCdata = pick >= 9 && char !== '\r';
        if (inCdata && !wantCdata) {
          text += ']]>';
          inCdata = false;
        }
        if (pick === 8) text += '<!-- a comment -->';
        if (wantCdata) {
          if (!inCdata) text += '<![CDATA[';
          inCdata = true;
          text += char;
        } else if (pick < 2 && char !== '\r') {
          text += NAMED[char] ?? char;
        } else if (pick < 4 || char === '\r') {
          text += `&#${'0'.repeat(pick % 2)}${code};`;
        } else if (pick < 6) {
          const h = code.toString(16);
          text += `&#x${pick % 2 ? h.toUpperCase() : h};`;
        } else {
          text += NAMED[char] ?? char;
        }
      });
      if (inCdata) text += ']]>';
      return { ...v, element: `<Key${open}>${text}</Key${close}>` };
    });
}

/** Percent-encodes some characters: literal text in XML, so another key. */
const percentMutation: Mutation = (key) =>
  fc
    .array(fc.boolean(), { minLength: key.length, maxLength: key.length })
    .filter((picks) => picks.some(Boolean))
    .map((picks) => [
      [...key].map((c, i) => (picks[i] ? percent(c, i % 2 === 0) : c)).join(''),
      'percent',
    ]);

function unescapeXml(xml: string): string {
  return xml
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

describe('DeleteObjects, given any spelling of a read-only key', () => {
  it('deletes nothing and answers each key by its own refusal', async () => {
    const request = fc.record({
      s: variant([percentMutation]).chain(xmlSpelling),
      declaration: fc.boolean(),
      namespace: fc.boolean(),
      quiet: fc.constantFrom(undefined, 'true', 'false'),
      version: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ s, declaration, namespace, quiet, version }) => {
        const xml =
          (declaration ? '<?xml version="1.0" encoding="UTF-8"?>\n' : '') +
          `<Delete${namespace ? ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"' : ''}>` +
          (quiet ? `<Quiet>${quiet}</Quiet>` : '') +
          `<Object>${s.element}${version ? '<VersionId>null</VersionId>' : ''}</Object></Delete>`;
        const key = s.key;
        const outcome = expectedOutcome(key);
        const answer = await send({
          method: 'POST',
          path: `/${Bucket}`,
          query: { delete: '' },
          headers: {
            'content-type': 'application/xml',
            'content-md5': createHash('md5').update(xml).digest('base64'),
          },
          body: xml,
        });
        const why = label(s, `${xml}\n→ ${answer.body}`);
        expect(answer.status, why).toBe(200);
        const errors = [
          ...answer.body.matchAll(/<Error><Key>([^<]*)<\/Key><Code>([^<]*)<\/Code>/g),
        ].map((m) => [unescapeXml(m[1]!), m[2]]);
        const deleted = [...answer.body.matchAll(/<Deleted><Key>([^<]*)<\/Key>/g)].map((m) =>
          unescapeXml(m[1]!),
        );
        if (outcome === 'allowed') {
          expect({ errors, deleted }, why).toEqual({
            errors: [],
            deleted: quiet === 'true' ? [] : [key],
          });
        } else {
          expect({ errors, deleted }, why).toEqual({ errors: [[key, outcome]], deleted: [] });
        }
        await expectReadOnlyUntouched(s.target);
      }),
      { seed, numRuns },
    );
  });
});
