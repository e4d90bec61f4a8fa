import type { DraftTrack } from '../../../src-main/core/model/track.js';

const tag = (name: string) => ({ kind: 'tag' as const, tag: name });

/** A complete, valid draft; override any part. */
export function draft(file: string, overrides: Partial<DraftTrack> = {}): DraftTrack {
  return {
    file,
    primaryMedia: { value: file, source: { kind: 'file-name' } },
    title: { value: 'Yesterday', source: tag('TIT2') },
    artists: { value: [{ name: 'The Beatles', role: 'Main' }], source: tag('TPE1') },
    ...overrides,
  };
}

/** A sourced value from a tag. */
export function fromTag<T>(value: T, name = 'X') {
  return { value, source: tag(name) };
}
