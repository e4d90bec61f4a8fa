/**
 * Errors inside core are typed and carry a stable code; the doors (IPC, CLI) turn them into
 * envelopes or one clear line. A message says what happened, to what, and what to do.
 */
export class CourierError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CourierError';
  }
}

/** A request or argument that can never succeed as given. */
export class UsageError extends CourierError {
  constructor(message: string) {
    super('usage', message);
    this.name = 'UsageError';
  }
}

/** The code of a pre-flight's error for a catalog the profile does not name (a usage error). */
export const unknownCatalogCode = 'unknown_catalog';
