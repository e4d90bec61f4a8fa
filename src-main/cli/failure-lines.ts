import type { UploadEvent } from '../core/storage/upload-context.js';

/**
 * The line a failed upload prints, or null when it says nothing new: an unreachable bucket fails
 * every file in flight with the same reason, which `courier upload` and `courier deliver` say once.
 */
export function uploadFailureLines(): (
  event: Extract<UploadEvent, { type: 'file-failed' }>,
) => string | null {
  const said = new Set<string>();
  return (event) => {
    if (event.code !== 'unreachable') return `${event.localPath}: ${event.message}`;
    if (said.has(event.message)) return null;
    said.add(event.message);
    return event.message;
  };
}

/** A sentence, ending in exactly one full stop. */
export function sentence(text: string): string {
  return `${text.trim().replace(/\.+$/, '')}.`;
}
