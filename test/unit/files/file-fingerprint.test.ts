import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  type FileFingerprint,
  fingerprintFiles,
  hashedFileCount,
} from '../../../src-main/core/files/file-fingerprint.js';

describe('file-fingerprint', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-fingerprint-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('fingerprintFiles()', () => {
    it('reads a file whose size and mtime are known only once they change', async () => {
      const path = join(dir, 'master.wav');
      await writeFile(path, 'first bytes');
      const before = hashedFileCount();
      const [first] = (await fingerprintFiles([path])) as FileFingerprint[];
      expect(first!.md5).toBe(createHash('md5').update('first bytes').digest('hex'));
      expect(hashedFileCount()).toBe(before + 1);

      const known = new Map([[path, first!]]);
      expect(await fingerprintFiles([path], { known })).toEqual([first]);
      expect(hashedFileCount()).toBe(before + 1);

      await appendFile(path, ', then more');
      const [second] = (await fingerprintFiles([path], { known })) as FileFingerprint[];
      expect(second).toEqual({
        size: (await stat(path)).size,
        mtimeMs: (await stat(path)).mtimeMs,
        md5: createHash('md5').update('first bytes, then more').digest('hex'),
      });
      expect(hashedFileCount()).toBe(before + 2);
    });
  });
});
