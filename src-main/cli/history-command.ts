/** `courier history [--json | --csv]`: every delivery with its state, counts, bytes and batches. */
import { parseArgs } from 'node:util';

import { DeliveryStore } from '../core/delivery/delivery-record.js';
import { historyCsv, summarize } from '../core/delivery/history.js';
import { cliServices, table } from './cli-services.js';
import type { Command } from './command.js';

/** The `history` command. */
export const historyCommand: Command = {
  name: 'history',
  summary: 'list deliveries (state, counts, bytes, batches); --csv exports them',
  usage: 'courier history [--json | --csv]',
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        json: { type: 'boolean', default: false },
        csv: { type: 'boolean', default: false },
      },
    });
    const services = await cliServices(io, 'history');
    const records = await new DeliveryStore(services.dataDir).list();
    if (values.csv) {
      io.out(historyCsv(records).trimEnd());
      return 0;
    }
    if (values.json) {
      io.out(JSON.stringify(records.map(summarize), null, 2));
      return 0;
    }
    if (records.length === 0) {
      io.err('No delivery yet.');
      return 0;
    }
    io.out(
      table(
        ['ID', 'STATE', 'PROFILE', 'MODE', 'FOLDER', 'FILES', 'BYTES', 'BATCHES'],
        records
          .map(summarize)
          .map((s) => [
            s.id,
            s.state,
            s.profile,
            s.mode,
            s.folder,
            String(s.files),
            String(s.bytes),
            `${s.batches_accepted}/${s.batches}${s.batches_failed ? ` (${s.batches_failed} failed)` : ''}`,
          ]),
      ),
    );
    return 0;
  },
};
