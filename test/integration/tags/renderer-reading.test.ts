import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { listFiles, readTrackFile, toRelative } from '../../../src-main/core/tags/scan-folder.js';
import { readFileTags } from '../../../src-renderer/lib/tags/read-file.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { fixtureFolder, nfdName } from './fixtures.js';

const missing = missingFixtureTools();

describe.skipIf(missing.length > 0)('readFileTags() (the renderer tags worker)', () => {
  let root: string;
  let paths: string[];
  beforeAll(async () => {
    root = await fixtureFolder();
    paths = await listFiles(root);
  });

  it('maps every file exactly as the CLI does, from a Blob without a MIME type', async () => {
    for (const path of paths) {
      const blob = new Blob([await readFile(path)]);
      const relativePath = toRelative(root, path);
      expect(await readFileTags(blob, relativePath), relativePath).toEqual(
        await readTrackFile(root, path),
      );
    }
  });

  it('normalises an NFD relative path to NFC', async () => {
    const blob = new Blob([await readFile(join(root, nfdName))], { type: 'audio/flac' });
    const result = await readFileTags(blob, nfdName);
    expect(result.file).toBe('Björk/Café.flac');
    expect(result.draft?.primaryMedia?.value).toBe('Björk/Café.flac');
  });
});
