/**
 * AIFF's own text chunks as writers fill them: the format says ASCII, and a Latin-1 "Café
 * Crème" or a UTF-8 "Björk" must not lose its accents (music-metadata reads 7-bit ASCII).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readTrackFile } from '../../../src-main/core/tags/scan-folder.js';
import { makeAudio, missingFixtureTools } from '../../support/audio-fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`AIFF text tests need ${missing.join(', ')}`);
  console.warn(`skipping AIFF text tests: missing ${missing.join(', ')}`);
}

/** An AIFF chunk: id, big-endian size, body, pad byte. */
function chunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'latin1');
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body, Buffer.alloc(body.length & 1)]);
}

describe.skipIf(missing.length > 0)('AIFF text chunks', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'courier-aiff-'));
    await makeAudio('aiff', join(root, 'plain.aiff'));
    const plain = await readFile(join(root, 'plain.aiff'));
    const chunks = Buffer.concat([
      chunk('NAME', Buffer.from('Café Crème', 'latin1')),
      chunk('AUTH', Buffer.from('Björk', 'utf8')),
    ]);
    const file = Buffer.concat([plain, chunks]);
    file.writeUInt32BE(file.length - 8, 4);
    await writeFile(join(root, 'accents.aiff'), file);
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('reads Latin-1 and UTF-8 text with its accents', async () => {
    const result = await readTrackFile(root, join(root, 'accents.aiff'));
    expect(result.draft?.title).toEqual({
      value: 'Café Crème',
      source: { kind: 'tag', tag: 'NAME' },
    });
    expect(result.draft?.artists?.value).toEqual([{ name: 'Björk', role: 'Main' }]);
    expect(result.findings.filter((f) => f.level === 'error')).toEqual([]);
  });
});
