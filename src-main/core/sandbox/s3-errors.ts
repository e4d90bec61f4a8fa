import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

const STATUS: Record<string, number> = {
  AccessDenied: 403,
  InvalidAccessKeyId: 403,
  SignatureDoesNotMatch: 403,
  RequestTimeTooSkewed: 403,
  AuthorizationHeaderMalformed: 400,
  AuthorizationQueryParametersError: 400,
  InvalidArgument: 400,
  KeyTooLongError: 400,
  NoSuchKey: 404,
  NoSuchUpload: 404,
  InvalidRequest: 400,
  InvalidURI: 400,
  BadDigest: 400,
  XAmzContentSHA256Mismatch: 400,
  IncompleteBody: 400,
  MalformedXML: 400,
  MaxMessageLengthExceeded: 400,
  NotImplemented: 501,
  ServiceUnavailable: 503,
};

/** An S3 protocol error the gate answers itself, as S3's XML error body. */
export class S3GateError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'S3GateError';
  }

  /** The HTTP status S3 uses for this code. */
  get status(): number {
    return STATUS[this.code] ?? 400;
  }
}

/**
 * Text made safe inside an XML element: markup characters as references, and the control
 * characters XML 1.0 can't carry at all shown as `\u0000`.
 */
export function xmlEscape(text: string): string {
  return text
    .replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`)
    .replace(
      // eslint-disable-next-line no-control-regex
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
}

/** Answers an S3 error (no body for HEAD, as S3 does). */
export function sendS3Error(
  res: ServerResponse,
  error: S3GateError,
  resource: string,
  head: boolean,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${error.code}</Code><Message>${xmlEscape(error.message)}</Message>` +
    `<Resource>${xmlEscape(resource)}</Resource><RequestId>${requestId}</RequestId></Error>`;
  res.writeHead(error.status, {
    'content-type': 'application/xml',
    'content-length': head ? 0 : Buffer.byteLength(body),
    'x-amz-request-id': requestId,
    // The client may still be sending a body; do not keep reading it.
    connection: 'close',
  });
  res.end(head ? undefined : body);
}
