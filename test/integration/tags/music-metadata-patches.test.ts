/**
 * The bundles run music-metadata with two speed-ups (`scripts/music-metadata-patches.mjs`: tag
 * mappers shared between files, ID3v2 padding not read as frames), the sources under test run it
 * as published: `courier scan --json` (the bundle) must read every file of the real-world corpus
 * exactly as the core does in this process.
 */
import { existsSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { patchMusicMetadata } from '../../../scripts/music-metadata-patches.mjs';
import { finishScan } from '../../../src-main/core/model/read-result.js';
import { scanFolder } from '../../../src-main/core/tags/scan-folder.js';
import { corpusRoot } from '../../support/corpus-oracle.js';
import { runCli } from '../../support/run-cli.js';

describe('music-metadata, patched in the bundles', () => {
  it('refuses a music-metadata that no longer has a line it changes', () => {
    const path = '/x/node_modules/music-metadata/lib/id3v2/ID3v2Parser.js';
    expect(() => patchMusicMetadata('export class ID3v2Parser {}', path)).toThrow(
      /ID3v2Parser\.js: music-metadata no longer has the line 'const frameHeaderBytes/,
    );
    expect(patchMusicMetadata('same', '/x/node_modules/music-metadata/lib/core.js')).toBe('same');
  });

  it('the bundled scan reads the whole corpus as the core does', { timeout: 120_000 }, async () => {
    if (!existsSync(corpusRoot)) {
      if (process.env.CI === 'true') throw new Error(`the corpus is missing at ${corpusRoot}`);
      console.warn(`skipped: no corpus at ${corpusRoot}`);
      return;
    }
    const run = await runCli(['scan', corpusRoot, '--json'], { timeoutMs: 110_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const bundled = JSON.parse(run.stdout) as unknown[];
    const core = JSON.parse(JSON.stringify(finishScan(await scanFolder(corpusRoot))));
    expect(bundled.length).toBeGreaterThan(200);
    expect(bundled).toEqual(core);
  });
});
