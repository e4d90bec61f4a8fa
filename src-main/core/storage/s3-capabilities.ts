/**
 * What one S3-protocol server turned out not to support, learned from its answers during a run.
 * s3rver, for one, answers ListParts and AbortMultipartUpload with 405 MethodNotAllowed; the
 * uploader then trusts its journal instead of asking, and leaves aborted parts to the server.
 */
export class S3Capabilities {
  listParts = true;
  abortMultipart = true;
}

/** True when an error says the server doesn't implement the operation at all. */
export function isUnsupported(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  const status = e?.$metadata?.httpStatusCode;
  return (
    e?.name === 'MethodNotAllowed' ||
    e?.name === 'NotImplemented' ||
    status === 405 ||
    status === 501
  );
}
