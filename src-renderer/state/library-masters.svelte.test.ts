import { describe, expect, it } from 'vitest';

import type { AudioProperties } from '../../src-main/core/model/audio-properties.js';
import { defaultRules } from '../../src-main/core/model/delivery-rules.js';
import { fakeApi, libraryWith } from '../../test/fakes/fake-library.js';
import { columns, qcColumnIds } from './columns.js';

const cd: AudioProperties = {
  format: 'flac',
  container: 'FLAC',
  codec: 'FLAC',
  lossless: true,
  sampleRate: 44_100,
  bitDepth: 16,
  channels: 2,
  duration: 204.5,
  bitrate: 1_014_000,
};
const cutShort = {
  level: 'error' as const,
  code: 'cut-short' as const,
  message:
    'the master is cut short: it ends at 1:42 of 3:24 (the audio ends before STREAMINFO says)',
};

describe('masters in the library', () => {
  it('shows each master’s QC in columns hidden until asked for', async () => {
    const { grid, library } = await libraryWith({ 'A/01.flac': { title: 'One', audio: cd } });
    const row = library.rows[0]!;
    expect(grid.visible.map((c) => c.id)).not.toContain('qc_rate');
    grid.toggleColumn('qc_rate');
    expect(grid.visible.map((c) => c.id)).toContain('qc_rate');
    const text = (id: keyof typeof columns) => grid.cellText(row, columns[id]);
    expect(qcColumnIds.map((id) => text(id))).toEqual([
      'FLAC',
      'Lossless',
      '44.1 kHz',
      '16-bit',
      'stereo',
      '3:24',
      '1,014 kb/s',
    ]);
  });

  it('blocks a master cut short until the user accepts it, and keeps the acceptance', async () => {
    const { library, api } = await libraryWith({
      'A/01.flac': { title: 'One', audio: cd, findings: [cutShort] },
    });
    const id = library.rows[0]!.id;
    expect(library.findings.get(id)).toContainEqual(cutShort);
    expect(library.setAcceptCutShort([id], true)).toBe(1);
    await library.validated();
    const accepted = library.findings.get(id)!.find((f) => f.code === 'cut-short')!;
    expect(accepted.level).toBe('warning');
    expect(accepted.message).toMatch(/ends at 1:42 of 3:24.*accepted as it is$/);
    await library.saveNow();
    expect(api.saved.session?.rows[0]).toMatchObject({ acceptCutShort: true, audio: cd });

    const { LibraryState } = await import('./library-state.svelte.js');
    const again = new LibraryState(fakeApi({ session: api.saved.session, missing: [] }), () => {
      throw new Error('no reading after a restart');
    });
    await again.load();
    await again.validated();
    expect(again.findings.get(id)!.find((f) => f.code === 'cut-short')!.level).toBe('warning');
    expect(again.rows[0]!.audio).toEqual(cd);
  });

  it("follows the active profile's masters rules", async () => {
    const { library } = await libraryWith({ 'A/01.flac': { title: 'One', audio: cd } });
    const id = library.rows[0]!.id;
    library.setRules({ ...defaultRules, minSampleRate: { hz: 48_000, level: 'error' } });
    await library.validated();
    expect(library.findings.get(id)).toContainEqual({
      level: 'error',
      message: "sample rate 44.1 kHz is below the minimum of 48 kHz (the profile's delivery rules)",
    });
    library.setRules(defaultRules);
    await library.validated();
    expect(library.findings.get(id)!.some((f) => f.message.includes('sample rate'))).toBe(false);
  });
});
