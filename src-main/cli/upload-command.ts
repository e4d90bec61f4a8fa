/**
 * `courier upload DIR --to FOLDER`: uploads every audio file under DIR to
 * `delivery/audio/FOLDER/` with the resumable uploader. Re-running resumes; exit 0 only when
 * every file is confirmed in the bucket.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { UsageError } from '../core/errors.js';
import { deliveryPrefix, uploadDirectory } from '../core/storage/index.js';
import { cliServices, profileName, withConnection } from './cli-services.js';
import type { Command } from './command.js';
import { uploadFailureLines } from './failure-lines.js';
import { mib, progressBar, speedAndEta } from './progress-line.js';

const usage = 'courier upload DIR --to FOLDER [--profile NAME] [--json]';

/** The `upload` command. */
export const uploadCommand: Command = {
  summary: 'upload a folder of audio to the delivery bucket (resumable)',
  usage,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        profile: { type: 'string' },
        to: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    if (positionals.length !== 1) throw new UsageError(`expected one folder (usage: ${usage})`);
    if (!values.to) throw new UsageError(`--to FOLDER is required (usage: ${usage})`);
    const folder = values.to.replace(/^\/+|\/+$/g, '');
    deliveryPrefix(folder); // throws a clear error for a folder that can't be a key
    const dir = resolve(positionals[0]!);
    if (!(await stat(dir).catch(() => null))?.isDirectory()) {
      throw new UsageError(`'${positionals[0]}' is not a folder`);
    }
    const services = await cliServices(io, 'upload');
    return withConnection(services, profileName(values.profile, io.env), async (connection) => {
      const controller = new AbortController();
      void io.stopRequested.then(() => controller.abort());
      // io.err ends every line: redraw the bar by moving up one line and clearing it.
      let drawn = false;
      const failureLine = uploadFailureLines();
      const redraw = () => (drawn ? '\x1b[1A\x1b[2K' : ((drawn = true), ''));
      const report = await uploadDirectory({
        dir,
        folder,
        target: connection.bucket,
        dataDir: services.dataDir,
        // Ctrl-C stops and keeps the journals: running the command again resumes.
        stopSignal: controller.signal,
        onEvent(event) {
          if (event.type === 'progress' && io.isTTY) {
            const share = event.totalBytes > 0 ? event.confirmedBytes / event.totalBytes : 0;
            io.err(
              `${redraw()}[${progressBar(share)}] ${(share * 100).toFixed(0)}% ${mib(event.confirmedBytes)} · ${speedAndEta(event)}`,
            );
          } else if (!io.isTTY && (event.type === 'file-done' || event.type === 'file-skipped')) {
            io.err(`${event.type === 'file-done' ? 'uploaded' : 'already there'}: ${event.key}`);
          } else if (event.type === 'file-failed') {
            const line = failureLine(event);
            if (line === null) return;
            drawn = false;
            io.err(`failed: ${line}`);
          }
        },
      });
      const uploaded = report.files.filter((f) => f.status === 'uploaded').length;
      const skipped = report.files.filter((f) => f.status === 'skipped').length;
      const failed = report.files.filter((f) => f.status === 'failed' || f.status === 'canceled');
      if (values.json) {
        io.out(
          JSON.stringify(
            {
              ok: report.ok,
              folder: deliveryPrefix(folder),
              files: report.files.length,
              uploaded,
              skipped,
              failed: failed.length,
              bytes_sent: report.bytesSent,
              outcomes: report.files,
            },
            null,
            2,
          ),
        );
      }
      io.err(
        `${report.files.length} file(s) to ${deliveryPrefix(folder)}: ${uploaded} uploaded, ${skipped} already there, ${failed.length} failed${report.canceled ? ' (canceled; run again to resume)' : ''}`,
      );
      return report.ok && !report.canceled ? 0 : 1;
    });
  },
};
