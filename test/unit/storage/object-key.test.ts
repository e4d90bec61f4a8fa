import { describe, expect, it } from 'vitest';

import {
  assertDeliveryKey,
  deliveryKey,
  deliveryPrefix,
} from '../../../src-main/core/storage/object-key.js';

describe('object keys', () => {
  describe('deliveryKey()', () => {
    it('puts files under delivery/audio/<folder>/ keeping the relative path', () => {
      expect(deliveryKey('Label Q1', 'Disc 1/01 Intro.wav')).toBe(
        'delivery/audio/Label Q1/Disc 1/01 Intro.wav',
      );
    });

    it('normalises Unicode to NFC', () => {
      const decomposed = 'Cafe\u0301/Beyonce\u0301.flac';
      expect(deliveryKey('Fo\u0308lder', decomposed)).toBe(
        'delivery/audio/Földer/Café/Beyoncé.flac',
      );
    });

    // Listings already give '/'-separated paths; a backslash left is part of a macOS or Linux
    // name, which Windows and S3 tools would read as a folder: refused, never split.
    it.each([
      ['ok', 'AC\\DC - Live.wav', 'path'],
      ['ok', 'Disc 1\\01.wav', 'path'],
      ['Q1\\Box', 'a.wav', 'folder'],
    ])('refuses folder %j with path %j, which holds a backslash', (folder, path, what) => {
      expect(() => deliveryKey(folder, path)).toThrow(
        expect.objectContaining({
          code: 'invalid-key',
          message: expect.stringMatching(new RegExp(`^The ${what} ".*" contains a backslash`)),
        }),
      );
    });

    it.each([
      ['..', 'a.wav'],
      ['ok', '../escape.wav'],
      ['ok', 'a//b.wav'],
      ['ok', './a.wav'],
      ['', 'a.wav'],
      ['ok', 'bad\u0007name.wav'],
      ['ok', 'line\nbreak.wav'],
      ['a/../../b', 'x.wav'],
    ])('refuses folder %j with path %j', (folder, path) => {
      expect(() => deliveryKey(folder, path)).toThrow(
        expect.objectContaining({ code: 'invalid-key' }),
      );
    });

    it('refuses keys longer than S3 allows', () => {
      const deep = Array.from({ length: 12 }, () => 'x'.repeat(100)).join('/');
      expect(() => deliveryKey('f', `${deep}.wav`)).toThrow(/1,024 bytes/);
    });

    it('refuses a name longer than 200 bytes (UTF-8), which the bucket could not store', () => {
      expect(() => deliveryKey('f', `${'é'.repeat(101)}.wav`)).toThrow(/longer than 200 bytes/);
      expect(() => deliveryKey('f', `${'é'.repeat(97)}.wav`)).not.toThrow();
    });
  });

  it('deliveryPrefix() ends with a slash', () => {
    expect(deliveryPrefix('Q1/Box')).toBe('delivery/audio/Q1/Box/');
  });

  describe('assertDeliveryKey()', () => {
    it('accepts a clean key under delivery/audio/', () => {
      expect(() => assertDeliveryKey('delivery/audio/x/y.wav')).not.toThrow();
    });

    it.each([
      'delivery/mapping/x.yaml',
      'INFO.json',
      'delivery/audio/../INFO.json',
      'delivery/audio/a/Cafe\u0301.wav',
      'delivery/audio/a\\b.wav',
      'delivery/audio/x\\..\\..\\INFO.json',
    ])('refuses %j', (key) => {
      expect(() => assertDeliveryKey(key)).toThrow(
        expect.objectContaining({ code: 'invalid-key' }),
      );
    });
  });
});
