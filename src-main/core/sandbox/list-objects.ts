/**
 * ListObjects (V1 and V2), answered by the gate rather than by s3rver. s3rver's own listing
 * prunes its walk below the first delimiter, so a folder whose objects sit two levels down
 * (`processed/audio/<catalog>/<outer_id>/…`) lists as empty; it escapes `&` and `'` twice in
 * the XML; and its undelimited walk fails (a 500) when a file vanishes under it, as the service
 * moves delivered audio. The sandbox lists from its own walk of the bucket and writes the XML once.
 */
import { S3GateError, xmlEscape } from './s3-errors.js';
import { isSignatureParam, uriEncode } from './sigv4.js';

/** A listing request, as read from the query. */
export interface ListRequest {
  version: 1 | 2;
  prefix: string;
  delimiter: string;
  maxKeys: number;
  /** Where the listing starts (exclusive): a continuation token's item, `start-after` or `marker`. */
  start: string;
  /** The query's own values, echoed back. */
  continuationToken?: string;
  startAfter?: string;
  marker?: string;
  encodeUrl: boolean;
}

/** An object as a listing shows it. */
export interface ListedObject {
  key: string;
  size: number;
  lastModified: Date;
  etag: string;
}

const LIST_PARAMS = new Set([
  'list-type',
  'prefix',
  'delimiter',
  'max-keys',
  'continuation-token',
  'start-after',
  'marker',
  'encoding-type',
  'fetch-owner',
  'x-id',
]);

/** S3's cap on the keys of one page. */
const PAGE_LIMIT = 1000;

/**
 * The listing a bucket-level GET asks for, or undefined when the query names another
 * sub-resource (`?uploads`, `?location`, …) that s3rver answers.
 */
export function parseListRequest(pairs: [string, string][]): ListRequest | undefined {
  const own = pairs.filter(([name]) => !isSignatureParam(name));
  if (own.some(([name]) => !LIST_PARAMS.has(name))) return undefined;
  const query = new Map(own);
  const version = query.get('list-type') === '2' ? 2 : 1;
  const rawMax = query.get('max-keys');
  let maxKeys = PAGE_LIMIT;
  if (rawMax !== undefined) {
    if (!/^\d{1,10}$/.test(rawMax) || Number(rawMax) > 2147483647) {
      throw new S3GateError(
        'InvalidArgument',
        'Provided max-keys not an integer or within integer range',
      );
    }
    maxKeys = Math.min(PAGE_LIMIT, Number(rawMax));
  }
  const encoding = query.get('encoding-type');
  if (encoding !== undefined && encoding !== 'url') {
    throw new S3GateError('InvalidArgument', 'Invalid Encoding Method specified in Request');
  }
  const continuationToken = version === 2 ? query.get('continuation-token') : undefined;
  const startAfter = version === 2 ? query.get('start-after') : undefined;
  const marker = version === 1 ? query.get('marker') : undefined;
  const start =
    continuationToken !== undefined
      ? tokenItem(continuationToken)
      : ((version === 2 ? startAfter : marker) ?? '');
  return {
    version,
    prefix: query.get('prefix') ?? '',
    delimiter: query.get('delimiter') ?? '',
    maxKeys,
    start,
    continuationToken,
    startAfter,
    marker,
    encodeUrl: encoding === 'url',
  };
}

const TOKEN_PREFIX = 'sandbox-list:';

function tokenOf(item: string): string {
  return Buffer.from(TOKEN_PREFIX + item, 'utf8').toString('base64url');
}

function tokenItem(token: string): string {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  if (!text.startsWith(TOKEN_PREFIX)) {
    throw new S3GateError('InvalidArgument', 'The continuation token provided is incorrect');
  }
  return text.slice(TOKEN_PREFIX.length);
}

/** S3's key order: the bytes of the UTF-8 encoding. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** One page of a listing: the keys to describe and the folders (common prefixes), in order. */
export interface ListPage {
  keys: string[];
  commonPrefixes: string[];
  /** The last item shown, when more follow. */
  next?: string;
}

/**
 * The page `request` selects from every key under its prefix (`keys`, any order): keys and
 * common prefixes share the page's `max-keys`, and a common prefix shown on an earlier page (at
 * or before the start) is not shown again.
 */
export function pageOf(request: ListRequest, keys: string[]): ListPage {
  const { prefix, delimiter, start, maxKeys } = request;
  const sorted = keys
    .filter((key) => key.startsWith(prefix) && compareKeys(key, start) > 0)
    .sort(compareKeys);
  const page: ListPage = { keys: [], commonPrefixes: [] };
  let shown = 0;
  let last: string | undefined;
  let lastPrefix: string | undefined;
  for (const key of sorted) {
    const at = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    const folder = at >= 0 ? key.slice(0, at + delimiter.length) : undefined;
    if (folder !== undefined && (folder === lastPrefix || compareKeys(folder, start) <= 0)) {
      continue;
    }
    if (shown === maxKeys) {
      page.next = last;
      break;
    }
    if (folder !== undefined) {
      page.commonPrefixes.push(folder);
      lastPrefix = folder;
      last = folder;
    } else {
      page.keys.push(key);
      last = key;
    }
    shown += 1;
  }
  return page;
}

/** The ListBucketResult XML of a page, each value escaped once (and URL-encoded when asked). */
export function listResultXml(
  bucketName: string,
  request: ListRequest,
  page: ListPage,
  objects: ListedObject[],
): string {
  const value = (text: string) =>
    xmlEscape(request.encodeUrl ? text.split('/').map(uriEncode).join('/') : text);
  const element = (name: string, text: string | number | undefined) =>
    text === undefined ? '' : `<${name}>${typeof text === 'number' ? text : value(text)}</${name}>`;
  const truncated = page.next !== undefined;
  const head = [
    `<Name>${xmlEscape(bucketName)}</Name>`,
    element('Prefix', request.prefix),
    request.delimiter ? element('Delimiter', request.delimiter) : '',
    element('MaxKeys', request.maxKeys),
    request.encodeUrl ? '<EncodingType>url</EncodingType>' : '',
    `<IsTruncated>${truncated}</IsTruncated>`,
  ];
  if (request.version === 2) {
    head.push(
      element('KeyCount', page.keys.length + page.commonPrefixes.length),
      request.continuationToken === undefined
        ? ''
        : `<ContinuationToken>${xmlEscape(request.continuationToken)}</ContinuationToken>`,
      truncated ? `<NextContinuationToken>${tokenOf(page.next!)}</NextContinuationToken>` : '',
      element('StartAfter', request.startAfter),
    );
  } else {
    head.push(
      element('Marker', request.marker ?? ''),
      truncated && request.delimiter ? element('NextMarker', page.next) : '',
    );
  }
  const contents = objects.map(
    (o) =>
      `<Contents>${element('Key', o.key)}<LastModified>${o.lastModified.toISOString()}</LastModified>` +
      `<ETag>${xmlEscape(o.etag)}</ETag><Size>${o.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
  );
  const folders = page.commonPrefixes.map(
    (p) => `<CommonPrefixes>${element('Prefix', p)}</CommonPrefixes>`,
  );
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${head.join('')}` +
    `${contents.join('')}${folders.join('')}</ListBucketResult>`
  );
}
