import { describe, expect, it } from 'vitest';

import { withFields } from '../../src-main/core/objects.js';

describe('withFields: a copy as the spread makes it', () => {
  it('copies the base, adds the new fields after it and replaces a field in its place', () => {
    const base = { path: 'a.flac', size: 3, state: 'pending' };
    const copy = withFields(base, { state: 'done', key: 'delivery/audio/a.flac' });
    expect(copy).toEqual({ path: 'a.flac', size: 3, state: 'done', key: 'delivery/audio/a.flac' });
    expect(Object.keys(copy)).toEqual(['path', 'size', 'state', 'key']);
    expect(base).toEqual({ path: 'a.flac', size: 3, state: 'pending' });
    expect(copy).not.toBe(base);
  });

  it('keeps an own "__proto__" key from parsed JSON as data, never as the copy\'s prototype', () => {
    const parsed = JSON.parse('{"title":"x","__proto__":{"polluted":true}}') as object;
    const copy = withFields(parsed, { outer_id: 'A1' });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(copy)).toEqual(['title', '__proto__', 'outer_id']);
    const more = JSON.parse('{"__proto__":{"polluted":true}}') as object;
    expect(Object.getPrototypeOf(withFields({ a: 1 }, more))).toBe(Object.prototype);
  });

  it('keeps fields given as undefined, as the spread does', () => {
    expect(Object.keys(withFields({ a: 1 }, { b: undefined }))).toEqual(['a', 'b']);
  });
});
