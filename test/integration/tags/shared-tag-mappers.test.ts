/**
 * The bundles share one set of music-metadata's tag mappers between files
 * (`scripts/shared-tag-mappers.mjs`), the sources under test do not: `courier scan --json` (the
 * bundle) must read every file of the real-world corpus exactly as the core does in this process,
 * whatever order the files come in.
 */
import { existsSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { shareTagMappers } from '../../../scripts/shared-tag-mappers.mjs';
import { finishScan } from '../../../src-main/core/model/read-result.js';
import { scanFolder } from '../../../src-main/core/tags/scan-folder.js';
import { corpusRoot } from '../../support/corpus-oracle.js';
import { runCli } from '../../support/run-cli.js';

describe('shared tag mappers', () => {
  it('refuses a music-metadata whose MetadataCollector no longer has the line it changes', () => {
    expect(() => shareTagMappers('export class MetadataCollector {}', 'x.js')).toThrow(
      /x\.js: music-metadata's MetadataCollector no longer builds its tag mappers/,
    );
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
