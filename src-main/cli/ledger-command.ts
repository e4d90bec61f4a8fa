/**
 * `courier ledger PROFILE CATALOG [--csv FILE | --json]`: what a catalog holds from this
 * workstation, track by track, as the catalog ledger knows it (the catalog by id or by name).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { CourierError, UsageError } from '../core/errors.js';
import { writeFileAtomic } from '../core/files/atomic-file.js';
import { catalogLedgerView, ledgerCsv } from '../core/ledger/ledger-view.js';
import { cliServices, table } from './cli-services.js';
import type { Command } from './command.js';

const usage = 'courier ledger PROFILE CATALOG [--csv FILE | --json]';

/** The `ledger` command. */
export const ledgerCommand: Command = {
  summary:
    'what a catalog holds from this workstation (CATALOG: id or name); --csv FILE exports it',
  usage,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        csv: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    if (positionals.length !== 2) {
      throw new UsageError(`expected a profile and a catalog (usage: ${usage})`);
    }
    if (values.csv !== undefined && values.json) {
      throw new UsageError('--csv and --json do not go together');
    }
    if (values.csv === '') throw new UsageError('--csv needs a file name (or - for the output)');
    const [profile, catalog] = positionals as [string, string];
    const services = await cliServices(io, 'ledger');
    const view = await catalogLedgerView(services, profile, catalog);
    const what = `${view.catalog_name} (${view.catalog_id}) on profile ${view.profile}`;
    if (values.csv === '-') {
      io.out(ledgerCsv(view.entries).trimEnd());
      return 0;
    }
    if (values.csv !== undefined) {
      const file = resolve(values.csv);
      await writeFileAtomic(file, ledgerCsv(view.entries)).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new CourierError('write_failed', `Could not write ${file}: ${reason}.`);
      });
      io.err(`Wrote the ${view.total} track(s) ${what} holds from this workstation to ${file}.`);
      return 0;
    }
    if (values.json) {
      io.out(JSON.stringify(view, null, 2));
      return 0;
    }
    if (view.total === 0) {
      io.err(`${what} holds nothing from this workstation yet.`);
      return 0;
    }
    io.err(`${what} holds ${view.total} track(s) from this workstation:`);
    io.out(
      table(
        ['OUTER_ID', 'ISRC', 'TITLE', 'ARTISTS', 'MODE', 'MD5', 'DELIVERY', 'DELIVERED'],
        view.entries.map((e) => [
          e.outer_id,
          e.isrc,
          e.title,
          e.artists,
          e.mode,
          e.md5,
          e.delivery,
          e.delivered_at.replace('T', ' ').slice(0, 19),
        ]),
      ),
    );
    return 0;
  },
};
