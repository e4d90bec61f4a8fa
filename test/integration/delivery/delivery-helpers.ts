/** Shared set-up of the delivery tests: tagged audio, a profile for a test sandbox, the core. */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll } from 'vitest';

import { ServiceClient } from '../../../src-main/core/api/service-client.js';
import { DeliveryStore } from '../../../src-main/core/delivery/delivery-record.js';
import { planDelivery, type PlanInput } from '../../../src-main/core/delivery/plan.js';
import { fingerprintPlan } from '../../../src-main/core/delivery/planned-files.js';
import { prepareDelivery } from '../../../src-main/core/delivery/prepare.js';
import { runDelivery } from '../../../src-main/core/delivery/run-delivery.js';
import type { Environment } from '../../../src-main/core/profiles/profile.js';
import { ProfileStore } from '../../../src-main/core/profiles/profile-store.js';
import type { SandboxOptions } from '../../../src-main/core/sandbox/index.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { copyTemplate, makeAudio, writeTags } from '../../support/audio-fixtures.js';
import { type CliRun, runCli } from '../../support/run-cli.js';
import { bucketTarget, startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

/** A valid ISRC for track number `i`. */
export const isrcOf = (i: number) => `GBABC26${String(i).padStart(5, '0')}`;

/** Writes `count` tiny tagged MP3s (`NNN.mp3`, title "Track N", ISRC, one artist) under `dir`. */
export async function makeTaggedTracks(dir: string, count: number, names?: (i: number) => string) {
  await mkdir(dir, { recursive: true });
  const template = join(dir, '..', `.template-${Date.now()}.mp3`);
  await makeAudio('mp3', template, { seconds: 0.1 });
  const paths = Array.from({ length: count }, (_, i) =>
    join(dir, names ? names(i + 1) : `${String(i + 1).padStart(3, '0')}.mp3`),
  );
  await copyTemplate(template, paths);
  await writeTags(
    paths.map((path, i) => ({
      path,
      family: 'id3v2.4' as const,
      tags: { title: `Track ${i + 1}`, isrc: isrcOf(i + 1), artists: [`Artist ${i + 1}`] },
    })),
  );
  return paths;
}

/** A fresh data directory for Courier. */
export function makeHome(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'courier-delivery-'));
}

/** The API client and bucket target of a test sandbox, as a connection would give them. */
export function connectionTo(sandbox: TestSandbox) {
  const { info } = sandbox;
  const api = new ServiceClient({
    baseUrl: info.base_url,
    clientId: info.client_id,
    clientSecret: async () => info.client_secret,
    backoffBaseMs: 20,
  });
  return { api, bucket: bucketTarget(info.bucket) };
}

/** What a delivery is planned from in these tests; the sandbox gives the profile and bucket. */
type TestPlanInput = Omit<PlanInput, 'files' | 'tracks' | 'profile' | 'bucket' | 'catalogId'> & {
  metadataCsv?: string;
};

/** Plans a delivery in-process for a test sandbox's first catalog, saving it unless blocked. */
export async function planInProcess(sandbox: TestSandbox, home: string, input: TestPlanInput) {
  const prepared = await prepareDelivery({
    dir: input.dir,
    mode: input.mode,
    metadataCsv: input.metadataCsv,
  });
  const plan = planDelivery({
    ...input,
    profile: { name: 'Test', environment: 'development' },
    bucket: sandbox.info.bucket.bucket_name,
    catalogId: sandbox.info.catalogs[0]!.id,
    files: prepared.files,
    tracks: prepared.tracks,
  });
  if (!plan.blocked) await fingerprintPlan(plan); // as the service records it
  const store = new DeliveryStore(home);
  if (!plan.blocked) await store.save(plan.record);
  return { plan, store };
}

/** Plans and runs a delivery in-process against a test sandbox. */
export async function deliverInProcess(sandbox: TestSandbox, home: string, input: TestPlanInput) {
  const { api, bucket } = connectionTo(sandbox);
  const { plan, store } = await planInProcess(sandbox, home, input);
  if (plan.blocked) return { plan, record: undefined, api };
  const record = await runDelivery({ record: plan.record, store, api, bucket, dataDir: home });
  return { plan, record, api, store };
}

/**
 * Adds a profile named `name` pointing at the test sandbox to the data directory `home`; its
 * secrets are not stored but passed to child processes through the returned environment.
 */
export async function addProfile(
  home: string,
  sandbox: TestSandbox,
  name = 'Test',
  environment: Environment = 'development',
  /** Catalogs the profile names besides the sandbox's (e.g. one the service doesn't know). */
  extraCatalogs: { id: string; name: string }[] = [],
): Promise<NodeJS.ProcessEnv> {
  const { info } = sandbox;
  const store = new ProfileStore(home, new MemorySecretStore(), {});
  await store.save({
    name,
    environment,
    base_url: info.base_url,
    client_id: info.client_id,
    bucket: {
      bucket_name: info.bucket.bucket_name,
      bucket_region: info.bucket.bucket_region,
      access_key_id: info.bucket.access_key_id,
      endpoint: info.bucket.endpoint,
    },
    catalogs: [
      ...info.catalogs.map(({ id, name: label }) => ({ id, name: label })),
      ...extraCatalogs,
    ],
  });
  return {
    COURIER_HOME: home,
    COURIER_CLIENT_SECRET: info.client_secret,
    COURIER_SECRET_ACCESS_KEY: info.bucket.secret_access_key,
  };
}

/** A test sandbox with a data directory holding its 'Test' profile, for `courier` subprocesses. */
export interface CliSandbox {
  sandbox: TestSandbox;
  home: string;
  /** COURIER_HOME and the profile's secrets, for the child's environment. */
  env: NodeJS.ProcessEnv;
  /** The sandbox's first catalog. */
  catalog: string;
  /** `courier deliver DIR --profile Test --catalog <catalog> --mode MODE ...more`. */
  deliver(dir: string, mode: string, ...more: string[]): Promise<CliRun>;
  /** Any `courier` command with this data directory and the profile's secrets. */
  run(args: string[]): Promise<CliRun>;
}

/**
 * Starts a sandbox and a data directory before the describe block's tests and removes both
 * after; the returned object is filled in by then.
 */
export function useCliSandbox(options: Partial<SandboxOptions> = {}): CliSandbox {
  const context = {
    run: (args: string[]) => runCli(args, { env: context.env }),
    deliver: (dir: string, mode: string, ...more: string[]) =>
      runCli(
        [
          'deliver',
          dir,
          '--profile',
          'Test',
          '--catalog',
          context.catalog,
          '--mode',
          mode,
          ...more,
        ],
        { env: context.env },
      ),
  } as CliSandbox;
  beforeAll(async () => {
    context.sandbox = await startTestSandbox(options);
    context.home = await makeHome();
    context.env = await addProfile(context.home, context.sandbox);
    context.catalog = context.sandbox.info.catalogs[0]!.id;
  });
  afterAll(async () => {
    await context.sandbox?.close();
    if (context.home) await rm(context.home, { recursive: true, force: true });
  });
  return context;
}
