import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { useCliSandbox } from './delivery-helpers.js';

describe('courier deliver --mode audio_mapping, the mapping given', () => {
  const cli = useCliSandbox();
  let dir: string;

  beforeAll(async () => {
    dir = join(cli.home, 'masters');
    await mkdir(dir);
    // Only the names matter to a mapping plan; the plan never reads the audio.
    await writeFile(join(dir, 'CAT1_skip_Song One.wav'), 'RIFF....WAVE');
    await writeFile(join(dir, 'CAT2_skip_Song Two.wav'), 'RIFF....WAVE');
  });

  const deliver = (...mapping: string[]) =>
    cli.deliver(dir, 'audio_mapping', '--dry-run', ...mapping);

  async function mappingFile(name: string, text: string): Promise<string> {
    const path = join(cli.home, name);
    await writeFile(path, text);
    return path;
  }

  it('exits 2 with one line when the mapping file is not YAML', async () => {
    const file = await mappingFile('broken.yaml', 'mapping:\n  - separator: [\n  - column_0: x\n');
    const run = await deliver('--mapping', file);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^courier deliver: the mapping is not valid YAML \(line 3, column 3: /),
    ]);
  });

  it('exits 2 on a mapping without outer_id, which the service would refuse after the upload', async () => {
    const file = await mappingFile(
      'no-outer-id.yaml',
      "mapping:\n  - separator: '_'\n  - column_0: isrc\n  - column_2: title\n",
    );
    for (const run of [
      await deliver('--mapping', file),
      await deliver('--separator', '_', '--columns', 'isrc,,title'),
    ]) {
      expect(run.code).toBe(2);
      expect(run.stderr.trimEnd().split('\n')).toEqual([
        'courier deliver: the mapping is unusable: no column takes outer_id, which the service needs from each file name',
      ]);
    }
  });

  it('plans a mapping that skips a column, as the service reads it', async () => {
    const file = await mappingFile(
      'gap.yaml',
      "mapping:\n  - separator: '_'\n  - column_0: outer_id\n  - column_2: title\n",
    );
    for (const run of [
      await deliver('--mapping', file),
      await deliver('--separator', '_', '--columns', 'outer_id,,title'),
    ]) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('- column_0: outer_id');
      expect(run.stdout).toContain('- column_2: title');
    }
  });

  it('exits 3 listing each file name the service would refuse', async () => {
    const run = await deliver('--separator', '_', '--columns', 'outer_id,release_date');
    expect(run.code).toBe(3);
    expect(run.stdout).toContain(
      "CAT1_skip_Song One.wav: the file name does not fit the mapping: 'CAT1_skip_Song One' has release_date 'skip', not a date YYYYMMDD (column_1)",
    );
    expect(run.stdout).toContain('CAT2_skip_Song Two.wav: the file name does not fit');
  });
});
