/**
 * Issue #14's `kill -9` matrix: the real `courier deliver` process is killed at moments drawn
 * from a seeded generator, in a json and an audio_mapping delivery, and two processes race on
 * one delivery. After each kill the same command is run again until it exits 0. Then the
 * service holds one entry per track and accepted each request once (twice only for the one in
 * flight at the kill, which the interface's overwrite by outer_id makes safe), nothing is left
 * in the delivery folder or as an unfinished multipart upload, and `courier history` shows one
 * accepted delivery.
 *
 * Replay a failure with `KILL_MATRIX_SEED=<seed>` (the seed is in the describe block's name).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  type DeliveryRecord,
  DeliveryStore,
} from '../../../src-main/core/delivery/delivery-record.js';
import type { DeliverySummary } from '../../../src-main/core/delivery/delivery-summary.js';
import { CatalogLedger } from '../../../src-main/core/ledger/catalog-ledger.js';
import type { LoggedRequest } from '../../../src-main/core/sandbox/index.js';
import { makeAudio, missingFixtureTools } from '../../support/audio-fixtures.js';
import { prng } from '../../support/prng.js';
import { type CliRun, runCli, startCli } from '../../support/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import { addProfile, makeHome, makeTaggedTracks } from './delivery-helpers.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`the kill -9 matrix needs ${missing.join(', ')}`);
  console.warn(`skipping the kill -9 matrix: missing ${missing.join(', ')}`);
}

const SEED = process.env.KILL_MATRIX_SEED
  ? Number(process.env.KILL_MATRIX_SEED)
  : Date.now() % 1_000_000;
if (!Number.isSafeInteger(SEED)) throw new Error('KILL_MATRIX_SEED must be an integer');

/** Every API answer waits this long, so a request is in flight long enough to be killed in. */
const SLOW_MS = 400;
/** Scenarios run side by side (each with its own sandbox); more only makes each one slower. */
const PARALLEL = 3;
/** Runs of the same command after a kill before the test gives up on it exiting 0. */
const MAX_RERUNS = 3;

/** At most `n` callers at once; the others wait their turn. */
function limiter(n: number) {
  let free = n;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((turn) => waiting.push(turn));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/** What one mode delivers, and the stderr lines an uninterrupted run prints, in order. */
interface ModeSpec {
  mode: 'json' | 'audio_mapping';
  /** outer_ids the catalog must hold afterwards. */
  outerIds: string[];
  /** Options after `--mode MODE`. */
  extra: string[];
  /** The stderr lines of an uninterrupted run: a short name and the line's pattern. */
  lines: [string, RegExp][];
}

const requestLines = (tracks: number[]): [string, RegExp][] =>
  tracks.flatMap((n, i): [string, RegExp][] => [
    [
      `request ${i + 1}: sent`,
      new RegExp(`^ {2}request ${i + 1}: sent( \\(${n} track\\(s\\)\\))?$`),
    ],
    [
      `request ${i + 1}: accepted`,
      new RegExp(`^ {2}request ${i + 1}: accepted( \\(${n} track\\(s\\)\\))?$`),
    ],
  ]);

const pad = (i: number) => String(i).padStart(2, '0');

/**
 * 59 tagged MP3s and one WAV big enough to go multipart (2 parts): 60 tracks. The WAV
 * sorts first, so it starts before the uploader has measured the link (which would send it in
 * one PUT).
 */
const JSON_SPEC: ModeSpec = {
  mode: 'json',
  outerIds: [
    ...Array.from({ length: 59 }, (_, i) => `GBABC26${String(i + 1).padStart(5, '0')}`),
    '000', // the WAV has no tags: its file name
  ],
  extra: [],
  lines: [
    [
      'Delivery …: 60 file(s)',
      /^Delivery \S+: 60 file\(s\) to delivery\/audio\/\S+\/, 3 request\(s\)$/,
    ],
    ['upload: 60 file(s)', /^upload: 60 file\(s\)$/],
    ['confirm: 0 file(s)', /^confirm: 0 file\(s\)$/],
    ['ingest: 3 request(s)', /^ingest: 3 request\(s\)$/],
    ...requestLines([25, 25, 10]),
    ['Delivery … accepted', /^Delivery \S+ accepted: 3 request\(s\), 60 track\(s\)\.$/],
  ],
};

/** One multipart WAV (first) and 19 MP3s, named OUTERID_Title: one folder request. */
const MAPPING_SPEC: ModeSpec = {
  mode: 'audio_mapping',
  outerIds: Array.from({ length: 20 }, (_, i) => `KM${pad(i)}`),
  extra: ['--separator', '_', '--columns', 'outer_id,title'],
  lines: [
    [
      'Delivery …: 20 file(s)',
      /^Delivery \S+: 20 file\(s\) to delivery\/audio\/\S+\/, 1 request\(s\)$/,
    ],
    ['upload: 20 file(s)', /^upload: 20 file\(s\)$/],
    ['confirm: 0 file(s)', /^confirm: 0 file\(s\)$/],
    ['ingest: 1 request(s)', /^ingest: 1 request\(s\)$/],
    ...requestLines([0]),
    ['Delivery … accepted', /^Delivery \S+ accepted: 1 request\(s\), 20 track\(s\)\.$/],
  ],
};

/**
 * A moment to kill at. `timed`: `fraction` of the way through gap `gap` of an uninterrupted
 * run, where gap k runs from event k-1 to event k (event 0 is the spawn, events 1..n the stderr
 * lines, event n+1 the exit), timed from the observed event k-1. `moving`: as soon as the
 * service has begun to move the audio of request `request` out of the delivery folder, so the
 * request is processed and its answer lost. `parts`: as soon as the WAV's multipart upload holds
 * a part, so it is left half done.
 */
type KillPoint =
  | { kind: 'timed'; gap: number; fraction: number }
  | { kind: 'moving'; request: number }
  | { kind: 'parts' };

/** The moments of an uninterrupted run: ms after spawn of each line, then of the exit. */
type Timeline = number[];

function gapName(spec: ModeSpec, gap: number): string {
  const at = (event: number) =>
    event === 0 ? 'start' : event > spec.lines.length ? 'exit' : spec.lines[event - 1]![0];
  return `"${at(gap - 1)}" → "${at(gap)}"`;
}

function pointName(spec: ModeSpec, point: KillPoint): string {
  if (point.kind === 'timed')
    return `${Math.round(point.fraction * 100)}% into ${gapName(spec, point.gap)}`;
  if (point.kind === 'parts') return 'with the WAV half uploaded in parts';
  return `while the service moves request ${point.request}'s audio (its answer lost)`;
}

/** The stderr line a point is timed from (0: the spawn). */
function lineBefore(spec: ModeSpec, point: KillPoint): number {
  if (point.kind === 'timed') return point.gap - 1;
  if (point.kind === 'parts')
    return spec.lines.findIndex(([name]) => name.startsWith('upload:')) + 1;
  return spec.lines.findIndex(([name]) => name === `request ${point.request}: sent`) + 1;
}

/** Fixture folders, shared by every scenario (each scenario has its own sandbox and home). */
const fixtures = { root: '', json: '', mapping: '' };

/** One sandbox, one data directory with its 'Test' profile, one command. */
interface Scenario {
  spec: ModeSpec;
  sandbox: TestSandbox;
  home: string;
  env: NodeJS.ProcessEnv;
  args: string[];
}

async function openScenario(spec: ModeSpec): Promise<Scenario> {
  const sandbox = await startTestSandbox({
    faults: { errorRate: 0, throttleRate: 0, slowRate: 1, slowMs: SLOW_MS },
  });
  const home = await makeHome();
  const env = await addProfile(home, sandbox);
  const dir = spec.mode === 'json' ? fixtures.json : fixtures.mapping;
  const catalog = sandbox.info.catalogs[0]!.id;
  const args = ['deliver', dir, '--profile', 'Test', '--catalog', catalog, '--mode', spec.mode];
  return { spec, sandbox, home, env, args: [...args, ...spec.extra] };
}

async function closeScenario(scenario: Scenario): Promise<void> {
  await scenario.sandbox.close();
  await rm(scenario.home, { recursive: true, force: true });
}

/** When to SIGKILL a run: armed at its `afterLines`-th stderr line (0: at once). */
interface Trigger {
  afterLines: number;
  /** Starts waiting for the moment; returns a function that stops waiting. */
  arm(kill: () => void): () => void;
}

/** Kills `delayMs` after the trigger's line. */
function after(afterLines: number, delayMs: number): Trigger {
  return {
    afterLines,
    arm(kill) {
      const timer = setTimeout(kill, delayMs);
      return () => clearTimeout(timer);
    },
  };
}

/** Kills as soon as `happened` holds, checked every few ms from the trigger's line. */
function once(afterLines: number, happened: () => Promise<boolean>): Trigger {
  return {
    afterLines,
    arm(kill) {
      let stopped = false;
      void (async () => {
        while (!stopped) {
          if (await happened()) return kill();
          await sleep(5);
        }
      })();
      return () => (stopped = true);
    },
  };
}

/** Objects under `delivery/audio/`: fewer than before means the service is taking a request. */
function audioObjects(scenario: Scenario): () => Promise<number> {
  const s3 = scenario.sandbox.s3();
  return async () => {
    const listed = await s3.send(
      new ListObjectsV2Command({
        Bucket: scenario.sandbox.info.bucket.bucket_name,
        Prefix: 'delivery/audio/',
      }),
    );
    return listed.KeyCount ?? 0;
  };
}

function triggerOf(scenario: Scenario, timeline: Timeline, point: KillPoint): Trigger {
  const afterLines = lineBefore(scenario.spec, point);
  if (point.kind === 'parts') {
    return once(afterLines, async () =>
      (await unfinishedUploads(scenario.sandbox)).some((u) => u.parts > 0),
    );
  }
  if (point.kind === 'moving') {
    const count = audioObjects(scenario);
    // The service waits SLOW_MS before it handles the request: time enough to count first.
    let before: Promise<number> | undefined;
    return once(afterLines, async () => (await count()) < (await (before ??= count())));
  }
  const from = point.gap === 1 ? 0 : timeline[point.gap - 2]!;
  return after(afterLines, point.fraction * (timeline[point.gap - 1]! - from));
}

/**
 * Runs `courier deliver` (the scenario's command plus `more`), SIGKILLed at `kill` if given.
 * Resolves with how it ended, the ms after spawn of each stderr line and of the exit, its pid.
 */
async function deliver(
  scenario: Scenario,
  options: { kill?: Trigger; more?: string[]; onLine?: (count: number) => void } = {},
) {
  const { kill } = options;
  const started = Date.now();
  const times: number[] = [];
  let disarm = () => {};
  const cli = startCli([...scenario.args, ...(options.more ?? [])], {
    env: scenario.env,
    timeoutMs: 60_000,
    onLine: (_line, stream) => {
      if (stream !== 'stderr') return;
      times.push(Date.now() - started);
      options.onLine?.(times.length);
      if (kill && times.length === kill.afterLines) arm();
    },
  });
  const arm = () => (disarm = kill!.arm(() => cli.child.kill('SIGKILL')));
  if (kill?.afterLines === 0) arm();
  const run = await cli.done;
  disarm();
  times.push(Date.now() - started);
  return { run, times, pid: cli.child.pid! };
}

async function recordsOf(home: string): Promise<DeliveryRecord[]> {
  return new DeliveryStore(home).list();
}

/** What the test knows about one scenario's runs, for the final checks. */
interface Outcome {
  /** How the test names the scenario in its report line. */
  name: string;
  /** The record as the kill left it on disk (none when killed before it was saved). */
  atKill?: DeliveryRecord;
  /** Multipart uploads holding parts right after the kill (for the report). */
  partsAtKill?: number;
  /** The runs after the kill (or the one uninterrupted run), in order: the last must exit 0. */
  runs: CliRun[];
}

/** Runs the same command again until it exits 0, at most MAX_RERUNS times. */
async function rerunUntilDone(scenario: Scenario, atKill?: DeliveryRecord): Promise<CliRun[]> {
  const reruns: CliRun[] = [];
  for (let i = 0; i < MAX_RERUNS; i++) {
    const run = await runCli(scenario.args, { env: scenario.env, timeoutMs: 60_000 });
    reruns.push(run);
    if (i === 0 && atKill) {
      expect(run.stderr, 'the first re-run resumes the killed delivery').toContain(
        `Resuming delivery ${atKill.id}`,
      );
    }
    if (run.code !== 1) break;
  }
  return reruns;
}

/** s3rver's multipart uploads on disk (it has no ListMultipartUploads): key and parts held. */
async function unfinishedUploads(sandbox: TestSandbox): Promise<{ key: string; parts: number }[]> {
  const dir = join(sandbox.dataDir, 'bucket', sandbox.info.bucket.bucket_name, '._S3rver_uploads');
  const ids = await readdir(dir).catch(() => [] as string[]);
  return Promise.all(
    ids.map(async (id) => {
      const files = await readdir(join(dir, id));
      const key = await readFile(join(dir, id, 'key'), 'utf8').catch(() => '?');
      return { key, parts: files.filter((f) => /^\d+$/.test(f)).length };
    }),
  );
}

/**
 * Checks what a user (and the service) would see once the command has exited 0: one accepted
 * delivery, every outer_id once in the catalog, each request accepted once (twice only for one
 * in flight at the kill), the delivery folder empty, no multipart upload left holding parts.
 */
async function expectDeliveredOnce(scenario: Scenario, outcome: Outcome): Promise<void> {
  const { sandbox, env, spec } = scenario;
  const last = outcome.runs.at(-1);
  const context = `runs: ${outcome.runs.map((r) => `exit ${r.code}: ${r.stderr.trim()}`).join(' | ')}`;
  if (last) {
    expect(last.code, context).toBe(0);
    for (const earlier of outcome.runs.slice(0, -1)) expect(earlier.code, context).toBe(1);
  }

  const history = await runCli(['history', '--json'], { env });
  expect(history.code).toBe(0);
  const deliveries = JSON.parse(history.stdout) as DeliverySummary[];
  expect(deliveries, 'one delivery in courier history').toHaveLength(1);
  const [summary] = deliveries;
  expect(summary).toMatchObject({
    state: 'accepted',
    mode: spec.mode,
    tracks: spec.outerIds.length,
  });
  expect(summary!.batches_accepted).toBe(summary!.batches);
  const [record] = await recordsOf(scenario.home);
  expect(record!.id).toBe(summary!.id);
  if (outcome.atKill)
    expect(record!.id, 'the kill left a record: it was resumed').toBe(outcome.atKill.id);

  const catalog = sandbox.info.catalogs[0]!.id;
  const entries = (await sandbox.api(`/sandbox/catalogs/${catalog}/entries`)).body.data as {
    outer_id: string;
  }[];
  expect(entries.map((e) => e.outer_id).sort(), 'one entry per track').toEqual(
    [...spec.outerIds].sort(),
  );
  // The catalog ledger survived the kill: it names every track the service holds, and a re-run
  // now sends nothing.
  const ledger = await CatalogLedger.open(scenario.home, 'Test', catalog);
  const recorded = ledger.entries().map((e) => e.outer_id);
  expect(recorded.sort(), 'the ledger after the kill').toEqual([...spec.outerIds].sort());
  const rerun = await runCli(scenario.args, { env });
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stderr).toMatch(/nothing changed since delivery/);

  // Which request each accepted ingestion was: json by its outer_ids, a folder call by its path.
  const requests = (await sandbox.api('/sandbox/requests')).body.data as LoggedRequest[];
  const accepted = requests.filter((r) => r.path.startsWith('/ingestion/') && r.status < 300);
  const batchOf = (r: LoggedRequest) =>
    spec.mode === 'json'
      ? record!.batches.findIndex((b) => b.outerIds.join('\n') === r.outer_ids?.join('\n'))
      : r.path === `/ingestion/${spec.mode}` && r.query.delivery_dir_path === record!.folder
        ? 0
        : -1;
  const counts = record!.batches.map(() => 0);
  for (const request of accepted) {
    const index = batchOf(request);
    expect(index, `an accepted request that is no batch of the delivery: ${request.path}`).not.toBe(
      -1,
    );
    counts[index]!++;
  }
  const inFlight = new Set(
    (outcome.atKill?.batches ?? []).filter((b) => b.state === 'sent').map((b) => b.index),
  );
  expect(inFlight.size, 'at most one request in flight at a kill').toBeLessThanOrEqual(1);
  const atKill = outcome.atKill?.batches.map((b) => b.state).join(', ') ?? 'no record';
  const wrong = counts
    .map((count, index) => ({
      request: index + 1,
      accepted: count,
      allowed: inFlight.has(index) ? [1, 2] : [1],
    }))
    .filter((c) => !c.allowed.includes(c.accepted));
  expect(wrong, `times each request was accepted (states at the kill: ${atKill})`).toEqual([]);

  const s3 = sandbox.s3();
  const listed = await s3.send(
    new ListObjectsV2Command({
      Bucket: sandbox.info.bucket.bucket_name,
      Prefix: `delivery/audio/${record!.folder}/`,
    }),
  );
  expect(
    (listed.Contents ?? []).map((o) => o.Key),
    'nothing left in the delivery folder',
  ).toEqual([]);
  // A part-less upload is the pre-flight's probe, whose abort s3rver answers MethodNotAllowed
  // (docs/sandbox.md), or one created just before a kill, before its id was journalled. An
  // upload holding parts is one Courier abandoned: bytes stored for nothing.
  const uploads = await unfinishedUploads(sandbox);
  expect(
    uploads.filter((u) => u.parts > 0),
    'no multipart upload left holding parts',
  ).toEqual([]);

  const refused = requests.filter((r) => r.path.startsWith('/ingestion/') && r.status >= 300);
  console.info(
    `[kill-matrix ${SEED}] ${spec.mode} ${outcome.name}: at the kill ${outcome.atKill ? `${outcome.atKill.state} [${atKill}]` : 'no record'}; ` +
      `re-runs exited [${outcome.runs.map((r) => r.code).join(', ')}]; accepted per request [${counts.join(', ')}]; ` +
      `refused requests ${refused.map((r) => r.status).join(', ') || 'none'}; part-less uploads ${uploads.length}` +
      (outcome.partsAtKill === undefined
        ? ''
        : `; uploads holding parts at the kill ${outcome.partsAtKill}`),
  );
}

/** Kill points per mode: starting, uploading, a request in flight, anywhere, then two exact ones. */
function killPoints(spec: ModeSpec, random: () => number): KillPoint[] {
  const gapAfter = (name: string) => spec.lines.findIndex(([n]) => n === name) + 2;
  const requests = spec.lines.filter(([n]) => n.endsWith(': sent')).length;
  const pick = (n: number) => 1 + Math.floor(random() * n);
  const gaps: number[] = [
    1, // starting: planning (tags read), pre-flight
    gapAfter(`upload: ${spec.outerIds.length} file(s)`), // uploading (the WAV in parts)
    gapAfter(`request ${pick(requests)}: sent`), // a request in flight
    pick(spec.lines.length + 1), // anywhere
  ];
  return [
    ...gaps.map((gap): KillPoint => ({ kind: 'timed', gap, fraction: random() })),
    { kind: 'parts' },
    { kind: 'moving', request: pick(requests) },
  ];
}

const random = prng(SEED);
const slot = limiter(PARALLEL);

/** The uninterrupted run of each mode, made once: the timeline kill moments are placed in. */
const calibrations = new Map<
  ModeSpec,
  Promise<{ scenario: Scenario; run: CliRun; timeline: Timeline }>
>();
function calibrated(spec: ModeSpec) {
  let calibration = calibrations.get(spec);
  if (!calibration) {
    calibration = (async () => {
      const scenario = await openScenario(spec);
      const { run, times } = await deliver(scenario);
      return { scenario, run, timeline: times };
    })();
    calibrations.set(spec, calibration);
  }
  return calibration;
}

/** Kills one run of `scenario` at `point`, runs the command again until it exits 0, checks. */
async function killAndResume(scenario: Scenario, timeline: Timeline, point: KillPoint) {
  const name = `killed ${pointName(scenario.spec, point)}`;
  const { run } = await deliver(scenario, { kill: triggerOf(scenario, timeline, point) });
  const [atKill] = await recordsOf(scenario.home);
  const partsAtKill = (await unfinishedUploads(scenario.sandbox)).filter((u) => u.parts > 0).length;
  // The exact points wait for what they name, which always happens before the run ends.
  if (point.kind !== 'timed') expect(run.signal, run.stderr).toBe('SIGKILL');
  // Killed after it had finished (the last gaps are short), or after the record says accepted
  // with only the last line left to print: there is nothing to resume. `courier history` says
  // so; running the command again would start a new delivery of the folder, by design.
  if (run.signal !== 'SIGKILL' || atKill?.state === 'accepted') {
    expect(run.signal ?? run.code, run.stderr).toBeOneOf(['SIGKILL', 0]);
    const how = run.signal ? 'after the record said accepted' : 'too late: it had exited 0';
    await expectDeliveredOnce(scenario, {
      name: `${name} (${how})`,
      ...(atKill ? { atKill } : {}),
      runs: run.signal ? [] : [run],
    });
    return;
  }
  const runs = await rerunUntilDone(scenario, atKill);
  await expectDeliveredOnce(scenario, { name, atKill, partsAtKill, runs });
}

describe.skipIf(missing.length > 0)(
  `courier deliver under kill -9 (seed ${SEED}; KILL_MATRIX_SEED=${SEED} replays it)`,
  () => {
    beforeAll(async () => {
      fixtures.root = await mkdtemp(join(tmpdir(), 'courier-kill-'));
      fixtures.json = join(fixtures.root, 'json-masters');
      fixtures.mapping = join(fixtures.root, 'mapping-masters');
      await makeTaggedTracks(fixtures.json, 59);
      await makeTaggedTracks(fixtures.mapping, 19, (i) => `KM${pad(i)}_Song ${i}.mp3`);
      // 9.6 MB, above the 8 MiB part floor: uploaded in 2 parts, so a kill can land between two.
      await makeAudio('wav', join(fixtures.json, '000.wav'), { seconds: 600 });
      await makeAudio('wav', join(fixtures.mapping, 'KM00_Long Song.wav'), { seconds: 600 });
    });
    afterAll(async () => {
      for (const calibration of calibrations.values()) {
        await closeScenario((await calibration).scenario);
      }
      if (fixtures.root) await rm(fixtures.root, { recursive: true, force: true });
    });

    for (const spec of [JSON_SPEC, MAPPING_SPEC]) {
      describe(`${spec.mode}, ${spec.outerIds.length} tracks`, () => {
        it('delivers uninterrupted: its lines in order, each request accepted once', async () => {
          const { run, scenario } = await calibrated(spec);
          // The plan's warnings (e.g. the WAV's missing tags) come first; the run's lines follow.
          const lines = run.stderr
            .trimEnd()
            .split('\n')
            .filter((line) => !/^ {2}(warning |… and \d+ more)/.test(line));
          expect(lines).toHaveLength(spec.lines.length);
          lines.forEach((line, i) => expect(line).toMatch(spec.lines[i]![1]));
          await expectDeliveredOnce(scenario, { name: 'uninterrupted', runs: [run] });
        });

        for (const point of killPoints(spec, random)) {
          it.concurrent(
            `kill -9 ${pointName(spec, point)}, run again until exit 0: delivered once`,
            async () => {
              const { timeline } = await calibrated(spec);
              await slot(async () => {
                const scenario = await openScenario(spec);
                try {
                  await killAndResume(scenario, timeline, point);
                } finally {
                  await closeScenario(scenario);
                }
              });
            },
            120_000,
          );
        }
      });
    }

    describe('two processes on one json delivery', () => {
      it.concurrent(
        'started together: one delivers, the other exits 2 naming its pid',
        async () =>
          slot(async () => {
            const scenario = await openScenario(JSON_SPEC);
            try {
              const [a, b] = await Promise.all([deliver(scenario), deliver(scenario)]);
              const [winner, loser] = a.run.code === 0 ? [a, b] : [b, a];
              expect([winner.run.code, loser.run.code]).toEqual([0, 2]);
              expect(loser.run.stderr.trimEnd().split('\n')).toEqual([
                expect.stringMatching(
                  new RegExp(
                    `^courier deliver: This delivery \\(add --wait to wait for it\\) is in use by another Courier process \\(pid ${winner.pid}, courier deliver, since .*\\); wait for it to finish or stop it\\.$`,
                  ),
                ),
              ]);
              await expectDeliveredOnce(scenario, { name: 'two at once', runs: [winner.run] });
            } finally {
              await closeScenario(scenario);
            }
          }),
        120_000,
      );

      it.concurrent(
        'started together with --wait: one delivers, the other waits for it and sends nothing',
        async () =>
          slot(async () => {
            const scenario = await openScenario(JSON_SPEC);
            try {
              const [a, b] = await Promise.all([
                deliver(scenario, { more: ['--wait'] }),
                deliver(scenario, { more: ['--wait'] }),
              ]);
              const both = `${a.run.stderr}\n---\n${b.run.stderr}`;
              expect([a.run.code, b.run.code], both).toEqual([0, 0]);
              const [first, second] = a.times[0]! <= b.times[0]! ? [a, b] : [b, a];
              await expectDeliveredOnce(scenario, {
                name: 'two at once with --wait',
                runs: [first.run],
              });
              const [record] = await recordsOf(scenario.home);
              expect(second.run.stderr, 'the waiter names the delivery it waited for').toContain(
                record!.id,
              );
            } finally {
              await closeScenario(scenario);
            }
          }),
        120_000,
      );

      // From the upload to the last answer: the waiter is waiting by then.
      const point: KillPoint = {
        kind: 'timed',
        gap: 3 + Math.floor(random() * 8),
        fraction: random(),
      };
      it.concurrent(
        `kill -9 the holder ${pointName(JSON_SPEC, point)} while a second waits (--wait): the second finishes it`,
        async () => {
          const { timeline } = await calibrated(JSON_SPEC);
          await slot(async () => {
            const scenario = await openScenario(JSON_SPEC);
            try {
              let waiter: ReturnType<typeof startCli> | undefined;
              const holder = await deliver(scenario, {
                kill: triggerOf(scenario, timeline, point),
                // Its first line comes once it holds the delivery: start the one that waits.
                onLine: (count) => {
                  if (count === 1) {
                    waiter = startCli([...scenario.args, '--wait'], { env: scenario.env });
                  }
                },
              });
              expect(holder.run.signal, holder.run.stderr).toBe('SIGKILL');
              const [atKill] = await recordsOf(scenario.home);
              const waited = await waiter!.done;
              expect(waited.stderr).toContain(`Resuming delivery ${atKill!.id}`);
              const runs: CliRun[] = [waited];
              if (waited.code === 1) runs.push(...(await rerunUntilDone(scenario)));
              await expectDeliveredOnce(scenario, {
                name: `holder killed ${pointName(JSON_SPEC, point)}, waiter resumed`,
                atKill,
                runs,
              });
            } finally {
              await closeScenario(scenario);
            }
          });
        },
        120_000,
      );
    });
  },
);
