import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { proofOfPath } from '../../../src-main/core/files/file-inspection.js';
import { createServices } from '../../../src-main/core/services.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';

describe('router', () => {
  let dir: string;
  let router: Router;
  let proof: string;
  const mtime = new Date('2024-05-01T10:00:00Z');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-router-'));
    await writeFile(join(dir, 'a.flac'), 'abc');
    await utimes(join(dir, 'a.flac'), mtime, mtime);
    proof = proofOfPath(join(dir, 'a.flac'), 3)!;
    router = createRouter(
      { kind: 'electron', locate: async (ref) => (ref.path ? [ref.path] : []) },
      createServices({ COURIER_HOME: join(dir, 'home') }),
    );
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  const ref = (overrides: object = {}) => ({
    name: 'a.flac',
    relativePath: 'a.flac',
    size: 3,
    lastModified: mtime.getTime(),
    path: join(dir, 'a.flac'),
    proof,
    ...overrides,
  });

  describe('dispatch()', () => {
    it('answers an unknown channel with an error envelope', async () => {
      await expect(router.dispatch('fs:readFile', { path: '/etc/passwd' })).resolves.toEqual({
        ok: false,
        error: { code: 'unknown_channel', message: 'Unknown operation: fs:readFile' },
      });
    });

    it.each([
      ['an extra field', { files: [], extra: 1 }],
      ['a wrong type', { files: 'a.flac' }],
      ['a missing field', { files: [{ name: 'a.flac' }] }],
      [
        'a file without its content proof',
        { files: [{ name: 'a', relativePath: 'a', size: 3, lastModified: 0 }] },
      ],
      [
        'a proof that is not a SHA-256 in hex',
        {
          files: [
            { name: 'a', relativePath: 'a', size: 3, lastModified: 0, proof: 'x'.repeat(64) },
          ],
        },
      ],
      [
        'a fractional size',
        { files: [{ ...{ name: 'a', relativePath: 'a', lastModified: 0 }, size: 1.5 }] },
      ],
    ])('rejects %s before anything runs', async (_, request) => {
      const result = await router.dispatch('files:grant', request);
      expect(result).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    });
  });

  describe('files:grant', () => {
    it('grants a file that matches what the renderer saw, with a stable id', async () => {
      const first = await router.dispatch('files:grant', { files: [ref()] });
      const again = await router.dispatch('files:grant', { files: [ref()] });
      expect(first).toMatchObject({
        ok: true,
        value: { granted: [{ name: 'a.flac', relativePath: 'a.flac', size: 3 }], refused: [] },
      });
      expect(again).toEqual(first);
    });

    it('refuses a file whose size or date differ from what the user picked', async () => {
      const result = await router.dispatch('files:grant', {
        files: [ref({ size: 4 }), ref({ lastModified: 0 })],
      });
      expect(result).toMatchObject({
        ok: true,
        value: { granted: [], refused: [{ reason: expect.stringMatching(/changed/) }, {}] },
      });
    });

    it('refuses a file whose content is not the content the page proved', async () => {
      const result = await router.dispatch('files:grant', {
        files: [ref({ proof: 'f'.repeat(64) })],
      });
      expect(result).toMatchObject({
        ok: true,
        value: { granted: [], refused: [{ reason: expect.stringMatching(/content/) }] },
      });
    });

    it('refuses a file it cannot find, and a relative path', async () => {
      const result = await router.dispatch('files:grant', {
        files: [ref({ path: undefined }), ref({ path: 'a.flac' })],
      });
      expect(result).toMatchObject({
        ok: true,
        value: {
          granted: [],
          refused: [{ reason: 'not found on disk' }, { reason: expect.stringMatching(/absolute/) }],
        },
      });
    });
  });
});
