import { CourierError } from '../errors.js';
import { redactor, redactValue } from '../log.js';

/**
 * A failed call to the service, as a value: the HTTP status (0 when no answer came), the
 * endpoint, and the server's own message and body kept verbatim (secrets redacted) — the interface does not show
 * error bodies, so nothing about their shape is assumed.
 */
export class ApiError extends CourierError {
  /** The server's answer, with every token and secret redacted. */
  readonly body: unknown;

  constructor(
    code: string,
    message: string,
    readonly status: number,
    readonly endpoint: string,
    body: unknown = undefined,
    options?: { cause?: unknown },
  ) {
    // Servers echo what they were sent (an Authorization header, a client_secret): the message
    // and body end up on stderr, in records and logs, so they are redacted here, once.
    super(code, redactor.redact(message), options);
    this.body = redactValue(body);
    this.name = 'ApiError';
  }
}

/** The stable code for an HTTP status the service answered with. */
export function codeForStatus(status: number): string {
  if (status === 400) return 'bad_request';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return 'http_error';
}

/** The most specific human message in an error body, whatever its shape; else the raw text. */
export function serverMessage(body: unknown, text: string): string {
  const candidates: unknown[] = [];
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const error = b.error as Record<string, unknown> | string | undefined;
    candidates.push(typeof error === 'object' ? error?.message : error, b.message);
    const data = b.data as Record<string, unknown> | undefined;
    candidates.push(data && typeof data === 'object' ? data.message : undefined, b.detail);
  }
  const found = candidates.find((c): c is string => typeof c === 'string' && c.length > 0);
  return found ?? text.trim().slice(0, 300);
}
