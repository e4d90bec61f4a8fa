import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A failed API request, answered in the envelope with a stable error code. The service's own
 * error shape is "not shown" in the interface; this is the sandbox's documented choice.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Shorthand for a 400 naming the parameter or field at fault. */
export function badRequest(code: string, message: string, details?: unknown): ApiError {
  return new ApiError(400, code, message, details);
}

/** Writes a JSON body with the right length and type. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** The success envelope of section 2.2, with list fields when given. */
export function envelope(status: number, now: number, data: unknown, list?: ListFields): unknown {
  return { status, timestamp: now, data, ...list };
}

/** The list fields of section 2.2. */
export interface ListFields {
  offset: number;
  limit: number;
  size: number;
  total_size: number;
}

/** The error envelope: `status`, `timestamp`, `data: null` and an `error` with code and message. */
export function errorEnvelope(error: ApiError, now: number): unknown {
  return {
    status: error.status,
    timestamp: now,
    data: null,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}

/** Reads a request body up to a size limit; a larger body is a 413. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > maxBytes) {
      throw new ApiError(
        413,
        'body_too_large',
        `The request body is larger than ${maxBytes} bytes; send fewer tracks per request.`,
      );
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Reads and parses a JSON body; malformed JSON is a 400. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const raw = (await readBody(req, maxBytes)).toString('utf8');
  if (raw.trim() === '') throw badRequest('invalid_body', 'The request body is empty; send JSON.');
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw badRequest(
      'invalid_json',
      `The request body is not valid JSON: ${(error as Error).message}`,
    );
  }
}

/** Parses an optional boolean query parameter ("true"/"false", any case). */
export function booleanParam(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = query.get(name);
  if (value === null) return fallback;
  const lower = value.trim().toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw badRequest(
    'invalid_parameter',
    `Query parameter '${name}' must be true or false, not '${value}'.`,
    {
      parameter: name,
    },
  );
}

/** Reads a required, non-empty query parameter. */
export function requiredParam(query: URLSearchParams, name: string): string {
  const value = query.get(name);
  if (value === null || value.trim() === '') {
    throw badRequest('missing_parameter', `Query parameter '${name}' is required.`, {
      parameter: name,
    });
  }
  return value;
}
