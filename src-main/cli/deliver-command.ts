/**
 * `courier deliver DIR`: plan, upload, verify, ingest and record one delivery. Re-running the
 * same command resumes it. Exit codes: 0 every batch accepted, 1 failure, 2 usage (or a
 * production profile without --yes), 3 validation blocks the delivery.
 */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';

import { standingText } from '../core/delivery/catalog-changes.js';
import { countsOf, type DeliveryRecord } from '../core/delivery/delivery-record.js';
import {
  BlockedError,
  type DeliveryRequest,
  DeliveryService,
  NothingChangedError,
} from '../core/delivery/delivery-service.js';
import { type DeliveryMode, deliveryModes } from '../core/delivery/delivery-summary.js';
import { summarize } from '../core/delivery/history.js';
import type { DeliveryPlan, PlanFinding } from '../core/delivery/plan.js';
import { PreflightError } from '../core/delivery/preflight.js';
import type { DeliveryEvent } from '../core/delivery/run-delivery.js';
import { CourierError, UsageError } from '../core/errors.js';
import { LockHeldError } from '../core/files/process-lock.js';
import { artistIdsLine } from '../core/model/artist-ids.js';
import { type CsvEncoding, csvEncodings } from '../core/model/csv-text.js';
import {
  type FileNameMapping,
  mappingFromOptions,
  parseMappingYaml,
} from '../core/model/filename-mapping.js';
import { AUDIO_ROOT, escapeControls } from '../core/storage/object-key.js';
import { cliServices, profileName } from './cli-services.js';
import { type CliIO, type Command, exitCodeOf } from './command.js';
import { sentence, uploadFailureLines } from './failure-lines.js';
import { progressBar, speedAndEta } from './progress-line.js';

const usage = [
  'courier deliver DIR --profile NAME --catalog ID --mode json|audio_only|audio_mapping',
  '        [--folder NAME] [--mapping FILE | --separator S --columns FIELD,FIELD,...] [--inline-mapping]',
  '        [--metadata FILE.csv|FILE.xlsx [--metadata-encoding auto|utf-8|utf-16le|utf-16be|windows-1252]]',
  '        [--download] [--ingestion-id ID] [--keep-delivered-files]',
  '        [--no-overwrite-audio] [--all] [--skip-invalid] [--accept-cut-short FILE]...',
  '        [--dry-run] [--yes] [--wait] [--verbose] [--json]',
].join('\n');

function findingLine(f: PlanFinding): string {
  return escapeControls(
    `  ${f.level}${f.path ? ` ${f.path}` : f.album ? ` album '${f.album}'` : ''}${f.field ? ` [${f.field}]` : ''}: ${f.message}`.replace(
      /\s*\n\s*/g,
      ' ',
    ),
  );
}

/** The plan as text: folder, keys, batches, findings. */
function planText(plan: DeliveryPlan, verbose: boolean): string {
  const r = plan.record;
  const lines = [
    `Delivery plan (${r.mode}) for catalog ${r.catalogId} on profile ${r.profile}`,
    `  folder: ${AUDIO_ROOT}${r.folder}/`,
    `  ingestion_id: ${r.options.ingestion_id}  overwrite_audio_file: ${r.options.overwrite_audio_file}  delete_delivered_file: ${r.options.delete_delivered_file}  media_fetch_type: ${r.options.media_fetch_type}`,
    `  ${r.files.length} file(s), ${r.bytes.total} bytes; ${r.batches.length} request(s)`,
  ];
  if (plan.catalog) {
    lines.push(`  against the catalog: ${standingText(plan.catalog.counts)}`);
    const albums = plan.catalog.albums;
    for (const a of verbose ? albums : albums.slice(0, 20)) {
      lines.push(escapeControls(`    ${a.album}: ${standingText(a)}`));
    }
    if (!verbose && albums.length > 20)
      lines.push(`    … ${albums.length - 20} more album(s) (--verbose)`);
  }
  if (r.mapping) {
    lines.push(
      `  mapping (${r.mapping.storage === 'file' ? `delivery/mapping/${r.mapping.name}` : 'mapping_content'}):`,
      ...r.mapping.yaml
        .trimEnd()
        .split('\n')
        .map((l) => `    ${l}`),
    );
  }
  for (const f of r.files) lines.push(escapeControls(`  ${f.path} -> ${f.key}`));
  r.batches.forEach((b) => {
    if (r.mode === 'json')
      lines.push(`  batch ${b.index + 1}: ${b.outerIds.length} track(s): ${b.outerIds.join(', ')}`);
    else lines.push(`  request: POST /ingestion/${r.mode} delivery_dir_path=${r.folder}`);
  });
  const artistIds = artistIdsLine(r.tracks?.flat() ?? []);
  if (artistIds) lines.push(escapeControls(`  ${artistIds}`));
  if (plan.findings.length > 0) lines.push('Findings:', ...findingLines(plan.findings, verbose));
  return lines.join('\n');
}

/** What differed from the catalog, for the delivery's first line. */
function changesText(changes: DeliveryRecord['changes']): string {
  if (!changes) return '';
  const parts = [
    [changes.new, 'new'],
    [changes.audio, 'with new audio'],
    [changes.metadata, 'with new metadata only'],
    [changes.unchanged, 'unchanged, not sent'],
  ] as const;
  return ` (tracks: ${parts
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}`)
    .join(', ')})`;
}

/** How many findings of each level are printed before a count stands for the rest. */
const FINDINGS_SHOWN = 10;

/** Findings one line each, errors first, summarised past FINDINGS_SHOWN unless `verbose`. */
function findingLines(findings: PlanFinding[], verbose: boolean): string[] {
  const lines: string[] = [];
  for (const level of ['error', 'warning'] as const) {
    const some = findings.filter((f) => f.level === level);
    const shown = verbose ? some : some.slice(0, FINDINGS_SHOWN);
    lines.push(...shown.map(findingLine));
    if (shown.length < some.length) {
      lines.push(
        `  … and ${some.length - shown.length} more ${level}(s) (--verbose lists them all)`,
      );
    }
  }
  return lines;
}

/** Findings on stderr (see `findingLines`). */
function printFindings(io: CliIO, findings: PlanFinding[], verbose: boolean): void {
  for (const line of findingLines(findings, verbose)) io.err(line);
}

/** The `deliver` command. */
export const deliverCommand: Command = {
  summary: 'deliver a folder of audio (and metadata) to a catalog; re-running resumes',
  usage,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        profile: { type: 'string' },
        catalog: { type: 'string' },
        mode: { type: 'string' },
        folder: { type: 'string' },
        mapping: { type: 'string' },
        separator: { type: 'string' },
        columns: { type: 'string' },
        'inline-mapping': { type: 'boolean', default: false },
        metadata: { type: 'string' },
        'metadata-encoding': { type: 'string' },
        download: { type: 'boolean', default: false },
        'ingestion-id': { type: 'string' },
        'keep-delivered-files': { type: 'boolean', default: false },
        'no-overwrite-audio': { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        all: { type: 'boolean', default: false },
        'skip-invalid': { type: 'boolean', default: false },
        'accept-cut-short': { type: 'string', multiple: true, default: [] },
        yes: { type: 'boolean', default: false },
        wait: { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
    });
    if (positionals.length !== 1) throw new UsageError(`expected one folder (usage: ${usage})`);
    const mode = values.mode as DeliveryMode;
    if (!deliveryModes.includes(mode))
      throw new UsageError(`--mode must be one of ${deliveryModes.join(', ')}`);
    if (!values.catalog) throw new UsageError('--catalog ID is required');
    const dir = resolve(positionals[0]!);
    if (!(await stat(dir).catch(() => null))?.isDirectory()) {
      throw new UsageError(`'${positionals[0]}' is not a folder`);
    }
    for (const [flag, file] of [
      ['--metadata', values.metadata],
      ['--mapping', values.mapping],
    ] as const) {
      if (file !== undefined && !(await stat(file).catch(() => null))?.isFile()) {
        throw new UsageError(`${flag}: '${file}' is not a file`);
      }
    }
    let mapping: (FileNameMapping & { storage: 'file' | 'content' }) | undefined;
    // The mapping is stored as delivery/mapping/<name>.yaml, or sent as mapping_content.
    const storage = values['inline-mapping'] ? ('content' as const) : ('file' as const);
    if (mode === 'audio_mapping') {
      if (values.mapping) {
        mapping = { ...parseMappingYaml(await readFile(values.mapping, 'utf8')), storage };
      } else if (values.separator !== undefined && values.columns) {
        mapping = { ...mappingFromOptions(values.separator, values.columns), storage };
      } else {
        throw new UsageError('audio_mapping needs --mapping FILE, or --separator S and --columns');
      }
    }
    const encoding = values['metadata-encoding'] as CsvEncoding | undefined;
    if (encoding !== undefined) {
      if (!csvEncodings.includes(encoding)) {
        throw new UsageError(`--metadata-encoding must be one of ${csvEncodings.join(', ')}`);
      }
      if (!values.metadata) throw new UsageError('--metadata-encoding needs --metadata FILE.csv');
    }
    // Masters the label knows are right though they look cut short: paths under DIR.
    const acceptCutShort: string[] = [];
    for (const given of values['accept-cut-short']) {
      const path = resolve(given);
      const inside = relative(dir, path);
      if (
        inside.startsWith('..') ||
        isAbsolute(inside) ||
        !(await stat(path).catch(() => null))?.isFile()
      ) {
        throw new UsageError(`--accept-cut-short: '${given}' is not a file in ${positionals[0]}`);
      }
      acceptCutShort.push(inside.split(sep).join('/'));
    }
    const download = values.download;
    if (download && mode !== 'json') throw new UsageError('--download works with --mode json only');
    if (download && !values.metadata) {
      throw new UsageError(
        '--download needs --metadata FILE.csv with an outer_id column and the audio URLs in its file (or primary_media) column',
      );
    }

    const services = await cliServices(io, 'deliver');
    const name = profileName(values.profile, io.env);
    const request: DeliveryRequest = {
      profile: name,
      catalogId: values.catalog,
      mode,
      ...(values.folder !== undefined ? { folder: values.folder } : {}),
      options: {
        ...(values['ingestion-id'] ? { ingestion_id: values['ingestion-id'] } : {}),
        overwrite_audio_file: !values['no-overwrite-audio'],
        delete_delivered_file: !values['keep-delivered-files'],
        media_fetch_type: download ? 'download' : 's3',
      },
      ...(mapping ? { mapping } : {}),
      ...(values.all ? { all: true } : {}),
      ...(values['skip-invalid'] ? { skipInvalid: true } : {}),
      source: {
        kind: 'folder',
        dir,
        metadataCsv: values.metadata,
        ...(encoding ? { metadataEncoding: encoding } : {}),
        download,
        ...(acceptCutShort.length > 0 ? { acceptCutShort } : {}),
      },
    };
    const controller = new AbortController();
    void io.stopRequested.then(() => controller.abort());
    const printProgress = progressPrinter(io);
    const deliveries = new DeliveryService(
      services,
      { event: (_id, _label, event) => printProgress(event) },
      'courier deliver',
    );
    /** Exit 3 with the findings on stderr — unless the plan on stdout already lists them. */
    const blocked = (plan: DeliveryPlan, listed = false) => {
      if (!listed) printFindings(io, plan.findings, values.verbose);
      const errors = plan.findings.filter((f) => f.level === 'error');
      const first = errors[0]!;
      io.err(
        escapeControls(
          `courier deliver: validation blocks this delivery (${errors.length} error(s), first: ${first.path ? `${first.path}: ` : ''}${first.message}); nothing was sent`,
        ),
      );
      return 3;
    };

    if (values['dry-run']) {
      const unfinished = await deliveries.unfinishedOf(request);
      if (unfinished) {
        io.out(
          `Delivery ${unfinished.id} is unfinished (${unfinished.state}); running the command without --dry-run resumes it.`,
        );
        return 0;
      }
      const {
        plan,
        nothingChanged: error,
        unknownCatalog,
      } = await deliveries.plan(request, controller.signal);
      if (error) {
        io.out(
          values.json
            ? JSON.stringify({
                dry_run: true,
                state: 'unchanged',
                unchanged: error.unchanged,
                since: error.latest ?? null,
              })
            : error.message,
        );
        return 0;
      }
      if (values.json) {
        io.out(
          JSON.stringify(
            { dry_run: true, blocked: plan.blocked, plan: plan.record, findings: plan.findings },
            null,
            2,
          ),
        );
      } else io.out(planText(plan, values.verbose));
      // A catalog the profile does not name is the command's to change, not the tracks'.
      if (unknownCatalog) {
        io.err(`courier deliver: ${unknownCatalog.message}`);
        return exitCodeOf(unknownCatalog);
      }
      return plan.blocked ? blocked(plan, true) : 0;
    }

    try {
      const startedAt = new Date().toISOString();
      const run = await deliveries
        .start(request, {
          confirmProduction: values.yes,
          resumeSameCommand: true,
          wait: values.wait,
          signal: controller.signal,
        })
        .catch((error: unknown) => {
          if (error instanceof CourierError && error.code === 'confirm_production') {
            throw new CourierError(
              'confirm_production',
              `"${name}" is a production profile; add --yes to deliver to it (or --dry-run to see the plan)`,
            );
          }
          if (error instanceof LockHeldError) {
            throw new LockHeldError(`${error.subject} (add --wait to wait for it)`, error.holder);
          }
          throw error;
        });
      // The header: the run holds the files and track bodies, this needs only their counts.
      const record = (await deliveries.store.loadHeader(run.id))!;
      printFindings(io, run.findings, values.verbose);
      const replan = record.replans?.at(-1);
      if (replan && replan.at >= startedAt) {
        io.err(
          escapeControls(
            `${replan.files.length} file(s) changed on disk since delivery ${run.id} was planned (first: ${replan.files[0]}): read again and validated; the requests already accepted stay as they are`,
          ),
        );
      }
      const accepted = record.batches.filter((b) => b.state === 'accepted').length;
      io.err(
        run.resumed
          ? `Resuming delivery ${run.id} (${accepted}/${record.batches.length} request(s) accepted)`
          : `Delivery ${run.id}: ${countsOf(record).files} file(s) to ${AUDIO_ROOT}${record.folder}/, ${record.batches.length} request(s)${changesText(record.changes)}`,
      );
      const final = await run.done;
      const summary = summarize(final);
      const connection = await services.connections.get(name);
      if (values.json) {
        io.out(
          JSON.stringify(
            {
              delivery_id: final.id,
              state: final.state,
              folder: final.folder,
              files: summary.files,
              tracks: summary.tracks,
              bytes: summary.bytes,
              bytes_sent: summary.bytes_sent,
              batches: summary.batches,
              batches_accepted: summary.batches_accepted,
              batches_failed: summary.batches_failed,
              token_requests: connection.api.tokenRequests,
              ...(final.error ? { error: final.error } : {}),
            },
            null,
            2,
          ),
        );
      }
      if (final.state === 'accepted') {
        io.err(
          `Delivery ${final.id} accepted: ${summary.batches_accepted} request(s), ${summary.tracks} track(s).`,
        );
        return 0;
      }
      io.err(
        `courier deliver: delivery ${final.id} failed: ${sentence(final.error ?? 'unknown error')} Run the same command again to resume.`,
      );
      return 1;
    } catch (error) {
      if (error instanceof BlockedError) return blocked(error.plan);
      // Another process delivered this very command while this one waited: all accepted.
      if (error instanceof CourierError && error.code === 'finished') {
        io.err(error.message);
        return 0;
      }
      if (error instanceof NothingChangedError) {
        if (values.json) {
          io.out(
            JSON.stringify({
              state: 'unchanged',
              unchanged: error.unchanged,
              since: error.latest ?? null,
            }),
          );
        }
        io.err(`courier deliver: ${error.message}`);
        return 0;
      }
      if (error instanceof PreflightError) {
        io.err(`courier deliver: pre-flight: ${error.message}; nothing was uploaded`);
        return exitCodeOf(error);
      }
      throw error;
    } finally {
      await services.connections.closeAll();
    }
  },
};

/** Progress on stderr: a redrawn line on a terminal, plain lines otherwise. */
function progressPrinter(io: CliIO): (event: DeliveryEvent) => void {
  // io.err ends every line: redraw the bar by moving up one line and clearing it.
  let drawn = false;
  const failureLine = uploadFailureLines();
  const redraw = () => (drawn ? '\x1b[1A\x1b[2K' : ((drawn = true), ''));
  return (event) => {
    if (event.type !== 'upload' || event.event.type === 'file-failed') drawn = false;
    if (event.type === 'phase') {
      io.err(
        `${event.phase}: ${event.files ?? event.batches ?? 0} ${event.files !== undefined ? 'file(s)' : 'request(s)'}`,
      );
    } else if (event.type === 'batch') {
      if (event.state !== 'sent' || !io.isTTY) {
        io.err(
          `  request ${event.index + 1}: ${event.state}${event.tracks ? ` (${event.tracks} track(s))` : ''}${event.message ? `: ${event.message}` : ''}`,
        );
      }
    } else if (event.type === 'upload') {
      const u = event.event;
      if (u.type === 'file-failed') {
        const line = failureLine(u);
        if (line !== null) io.err(`  upload failed: ${line}`);
      } else if (u.type === 'progress' && io.isTTY) {
        const share = u.totalBytes > 0 ? u.confirmedBytes / u.totalBytes : 0;
        io.err(
          `${redraw()}  [${progressBar(share)}] ${u.filesDone}/${u.filesTotal} file(s) · ${speedAndEta(u)}`,
        );
      }
    }
  };
}
