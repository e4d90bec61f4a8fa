/**
 * `courier history [--json | --csv]`: every delivery with its state, counts, bytes and batches.
 * `courier history --pickup ID`: whether the service has taken every file of a delivery's folder.
 */
import { parseArgs } from 'node:util';

import { DeliveryStore } from '../core/delivery/delivery-record.js';
import { historyCsv, pickupCheck, summarize } from '../core/delivery/history.js';
import { CourierError } from '../core/errors.js';
import { createS3Client } from '../core/storage/s3-client.js';
import { cliServices, table, withConnection } from './cli-services.js';
import type { Command } from './command.js';

/** The `history` command. */
export const historyCommand: Command = {
  name: 'history',
  summary: 'list deliveries (state, counts, bytes, batches); --csv exports them',
  usage: 'courier history [--json | --csv] | courier history --pickup ID [--json]',
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        json: { type: 'boolean', default: false },
        csv: { type: 'boolean', default: false },
        pickup: { type: 'string' },
      },
    });
    const services = await cliServices(io, 'history');
    const store = new DeliveryStore(services.dataDir);
    if (values.pickup) {
      const record = await store.load(values.pickup);
      if (!record)
        throw new CourierError('not_found', `No delivery ${values.pickup} in the history.`);
      return withConnection(services, record.profile, async (connection) => {
        const s3 = createS3Client(connection.bucket);
        try {
          const result = await pickupCheck(s3, connection.bucket.bucket, record);
          if (values.json) io.out(JSON.stringify({ id: record.id, ...result }, null, 2));
          else
            io.out(
              result.pickedUp
                ? `Delivery ${record.id}: the service has taken every file of delivery/audio/${record.folder}/.`
                : `Delivery ${record.id}: ${result.remaining.length} file(s) still in delivery/audio/${record.folder}/.`,
            );
          return 0;
        } finally {
          s3.destroy();
        }
      });
    }
    const records = await store.list();
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
