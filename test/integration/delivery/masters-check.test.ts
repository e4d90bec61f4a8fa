/**
 * The masters check at the level a user meets it: a master cut short blocks `courier deliver`
 * and the app's plan (main reads the file itself: a renderer cannot hide the cut), the label's
 * per-track acceptance lets it go with a warning, and the profile's masters rules (Settings)
 * warn or block — and a hand-edited rules file never stops the app.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { describe, expect, it } from 'vitest';

import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { createServices } from '../../../src-main/core/services.js';
import type { Envelope, ProfileList } from '../../../src-main/ipc/contract.js';
import { createRouter } from '../../../src-main/ipc/router.js';
import { makeAudio, missingFixtureTools } from '../../support/audio-fixtures.js';
import { useCliSandbox } from './delivery-helpers.js';

const run = promisify(execFile);
const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`the masters check needs ${missing.join(', ')}`);
  console.warn(`skipping the masters check tests: missing ${missing.join(', ')}`);
}

/** A 4-second FLAC, and a copy of it cut to its first 40 %. */
async function mastersIn(dir: string): Promise<void> {
  await makeAudio('flac', join(dir, '01 Whole.flac'), {
    seconds: 4,
    metadata: { title: 'Whole', artist: 'QC Band' },
  });
  await makeAudio('flac', join(dir, '02 Cut.flac'), {
    seconds: 4,
    metadata: { title: 'Cut', artist: 'QC Band' },
  });
  const bytes = await readFile(join(dir, '02 Cut.flac'));
  await writeFile(join(dir, '02 Cut.flac'), bytes.subarray(0, Math.floor(bytes.length * 0.4)));
}

describe.skipIf(missing.length > 0)('the masters check', () => {
  const cli = useCliSandbox();

  it('blocks a master cut short, saying where it ends; --accept-cut-short lets it go', async () => {
    const dir = join(cli.home, '..', `cut-${Date.now()}`);
    await mastersIn(dir);
    const blocked = await cli.deliver(dir, 'json', '--dry-run');
    expect(blocked.code).toBe(3);
    expect(blocked.stderr).toMatch(
      /02 Cut\.flac: the master is cut short: it ends at 0:0\d\.\d of 0:04\.0/,
    );
    // audio_only reads no tags, but checks every master all the same.
    const audioOnly = await cli.deliver(dir, 'audio_only', '--dry-run');
    expect(audioOnly.code).toBe(3);
    expect(audioOnly.stderr).toContain('cut short');

    const accepted = await cli.deliver(
      dir,
      'json',
      '--dry-run',
      '--accept-cut-short',
      join(dir, '02 Cut.flac'),
    );
    expect(accepted.stderr).not.toContain('blocks');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(/warning 02 Cut\.flac: the master is cut short.*accepted/);

    const outside = await cli.deliver(dir, 'json', '--accept-cut-short', '/etc/hostname');
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("--accept-cut-short: '/etc/hostname' is not a file in");
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('reads a WMA master, and delivers it only once the profile allows WMA', async () => {
    const dir = join(cli.home, '..', `wma-${Date.now()}`);
    await mkdir(dir, { recursive: true });
    await run('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'],
      ...['-c:a', 'wmav2', '-metadata', 'title=Legacy Master'],
      join(dir, 'legacy.wma'),
    ]);
    const scan = await cli.run(['scan', dir, '--json']);
    const [entry] = JSON.parse(scan.stdout) as Array<{
      track: { title?: string } | null;
      audio?: { format: string };
    }>;
    expect(entry).toMatchObject({ track: { title: 'Legacy Master' }, audio: { format: 'wma' } });
    const blocked = await cli.deliver(dir, 'json', '--dry-run');
    expect(blocked.code).toBe(3);
    expect(blocked.stderr).toContain('WMA is not a format this profile delivers');
    const settings = join(cli.home, 'settings.json');
    await writeFile(
      settings,
      JSON.stringify({
        profileRules: { Test: { formats: { allowed: ['wma', 'flac'], level: 'error' } } },
      }),
    );
    const allowed = await cli.deliver(dir, 'json', '--dry-run');
    expect(allowed.code).toBe(0);
    await rm(settings);
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("applies the profile's masters rules, and ignores a hand-edited rule it cannot read", async () => {
    const dir = join(cli.home, '..', `rules-${Date.now()}`);
    await makeAudio('flac', join(dir, 'Low.flac'), { seconds: 1, metadata: { title: 'Low' } });
    const settings = join(cli.home, 'settings.json');
    const rules = {
      formats: { allowed: ['flac', 'wav'], level: 'error' },
      minSampleRate: { hz: 44_100, level: 'error' },
      minBitDepth: { bits: 24, level: 'warning' },
      minDuration: { seconds: 30, level: 'warning' },
      mono: 'warning',
    };
    await writeFile(settings, JSON.stringify({ profileRules: { Test: rules } }));
    const blocked = await cli.deliver(dir, 'json', '--dry-run', '--verbose');
    expect(blocked.code).toBe(3);
    expect(blocked.stdout).toContain(
      "sample rate 8 kHz is below the minimum of 44.1 kHz (the profile's delivery rules)",
    );
    expect(blocked.stdout).toContain('bit depth 16-bit is below the minimum of 24-bit');
    expect(blocked.stdout).toContain('it lasts 0:01, under the minimum of 0:30');
    expect(blocked.stdout).toContain('the master is mono');

    // A rule written by hand with nonsense in it falls back to the defaults: nothing blocks.
    await writeFile(
      settings,
      JSON.stringify({ profileRules: { Test: { minSampleRate: { hz: 'lots', level: 'fatal' } } } }),
    );
    const lenient = await cli.deliver(dir, 'json', '--dry-run');
    expect(lenient.code).toBe(0);
    await rm(settings);
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("checks the app's files in main: a renderer cannot hide a cut, the user's acceptance can", async () => {
    const root = join(cli.home, '..', `app-${Date.now()}`);
    await mastersIn(root);
    const services = createServices(
      { COURIER_HOME: join(cli.home, '..', `app-home-${Date.now()}`) },
      { secrets: new MemorySecretStore() },
    );
    const router = createRouter(
      { kind: 'web', locate: async (ref) => [join(root, ref.relativePath)] },
      services,
    );
    const call = async <T>(channel: string, request: unknown): Promise<T> => {
      const result = (await router.dispatch(channel, request)) as Envelope<T>;
      if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
      return result.value;
    };
    try {
      const { profiles } = await call<ProfileList>('profiles:list', {});
      const files: Array<{ id: string; relativePath: string }> = [];
      for (const name of ['01 Whole.flac', '02 Cut.flac']) {
        const g = await services.grants.grant(join(root, name));
        files.push({ id: g.id, relativePath: `Masters/${name}` });
      }
      // The drafts claim nothing is wrong: what the renderer says about the audio is not asked.
      const manual = { kind: 'manual' as const };
      const request = (acceptCut: boolean) => ({
        profile: 'Sandbox',
        catalogId: profiles[0]!.catalogs[0]!.id,
        mode: 'json' as const,
        files: files.map((f, i) => ({
          ...f,
          draft: {
            file: f.relativePath,
            outerId: { value: `qc-${i}`, source: manual },
            title: { value: `Track ${i}`, source: manual },
          },
          ...(acceptCut && i === 1 ? { acceptCutShort: true } : {}),
        })),
      });
      type Plan = {
        blocked: boolean;
        findings: Array<{ level: string; message: string; fileId?: string }>;
      };
      const blocked = await call<Plan>('deliveries:plan', request(false));
      expect(blocked.blocked).toBe(true);
      expect(blocked.findings).toContainEqual(
        expect.objectContaining({
          level: 'error',
          fileId: files[1]!.id,
          message: expect.stringMatching(/^the master is cut short: it ends at 0:0\d\.\d of 0:04/),
        }),
      );
      const accepted = await call<Plan>('deliveries:plan', request(true));
      expect(accepted.blocked).toBe(false);
      expect(accepted.findings).toContainEqual(
        expect.objectContaining({ level: 'warning', message: expect.stringContaining('accepted') }),
      );
      // Rules set through Settings reach the next plan.
      await call('settings:set', {
        profileRules: {
          profile: 'Sandbox',
          rules: {
            formats: { allowed: ['wav'], level: 'error' },
            minSampleRate: { hz: 0, level: 'off' },
            minBitDepth: { bits: 0, level: 'off' },
            minDuration: { seconds: 0, level: 'off' },
            mono: 'off',
          },
        },
      });
      const ruled = await call<Plan>('deliveries:plan', request(true));
      expect(ruled.blocked).toBe(true);
      expect(ruled.findings).toContainEqual(
        expect.objectContaining({
          message: expect.stringContaining('FLAC is not a format this profile delivers'),
        }),
      );
    } finally {
      await services.connections.closeAll();
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
