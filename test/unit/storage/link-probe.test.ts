import { describe, expect, it } from 'vitest';

import { LinkProbe } from '../../../src-main/core/storage/link-probe.js';

const isOpen = async (probe: LinkProbe): Promise<boolean> =>
  Promise.race([
    probe.opened.then(() => true),
    new Promise<boolean>((r) => setTimeout(r, 0, false)),
  ]);

describe('link probe', () => {
  it('holds files back until the link has a measured rate', async () => {
    const probe = new LinkProbe(2);
    probe.sawRate(0);
    probe.fileEnded();
    expect(await isOpen(probe)).toBe(false);
    probe.sawRate(1_000_000);
    expect(await isOpen(probe)).toBe(true);
  });

  it('lets every file start once the probe files have ended, measured or not', async () => {
    const probe = new LinkProbe(2);
    probe.fileEnded();
    expect(await isOpen(probe)).toBe(false);
    probe.fileEnded();
    expect(await isOpen(probe)).toBe(true);
  });

  it('ends on demand (cancel, stop)', async () => {
    const probe = new LinkProbe(2);
    probe.end();
    expect(await isOpen(probe)).toBe(true);
  });
});
