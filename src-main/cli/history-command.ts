/**
 * `courier history [--json | --csv]`: every delivery with its state, counts, bytes and batches.
 * `courier history --search TEXT`: the deliveries holding a track with that ISRC or outer_id, or
 * those words in its title. `courier history ID`: one delivery's tracks, request by request;
 * `--track OUTER_ID`: that track's body as sent. `courier history --pickup ID`: whether the
 * service has taken every file of a delivery's folder.
 */
import { parseArgs } from 'node:util';

import { deliveredTrack, deliveredTracks } from '../core/delivery/delivered-tracks.js';
import { type DeliveryRecord, DeliveryStore } from '../core/delivery/delivery-record.js';
import { DeliveryService } from '../core/delivery/delivery-service.js';
import { historyCsv, pickupCheck, summarize } from '../core/delivery/history.js';
import type { HistorySearchResult } from '../core/delivery/history-search.js';
import { CourierError, UsageError } from '../core/errors.js';
import type { CoreServices } from '../core/services.js';
import { createS3Client } from '../core/storage/s3-client.js';
import { cliServices, table, withConnection } from './cli-services.js';
import type { CliIO, Command } from './command.js';

const usage = [
  'courier history [--json | --csv]',
  'courier history --search TEXT [--limit N] [--json]',
  'courier history ID [--json]',
  'courier history ID --track OUTER_ID [--json]',
  'courier history --pickup ID [--json]',
].join(' | ');

/** The `history` command. */
export const historyCommand: Command = {
  summary:
    'list deliveries (--csv exports them); --search an ISRC, outer_id or title; ID --track shows a body as sent',
  usage,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        csv: { type: 'boolean', default: false },
        pickup: { type: 'string' },
        search: { type: 'string' },
        limit: { type: 'string' },
        track: { type: 'string' },
      },
    });
    if (positionals.length > 1)
      throw new UsageError(`expected at most one delivery id (usage: ${usage})`);
    const [id] = positionals;
    const chosen = [
      id !== undefined && 'ID',
      values.search !== undefined && '--search',
      values.pickup !== undefined && '--pickup',
      values.csv && '--csv',
    ].filter(Boolean);
    if (chosen.length > 1) throw new UsageError(`${chosen.join(' and ')} do not go together`);
    if (values.track !== undefined && id === undefined) {
      throw new UsageError('--track needs a delivery: courier history ID --track OUTER_ID');
    }
    if (values.limit !== undefined && values.search === undefined) {
      throw new UsageError('--limit goes with --search');
    }
    const services = await cliServices(io, 'history');
    const store = new DeliveryStore(services.dataDir);
    if (values.search !== undefined) {
      return search(services, values.search, limitOf(values.limit), values.json, io);
    }
    if (values.pickup !== undefined) {
      const record = await load(store, values.pickup);
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
    if (id !== undefined) {
      const record = await load(store, id);
      if (values.track !== undefined) return showTrack(record, values.track, values.json, io);
      return showDelivery(record, values.json, io);
    }
    const records = await store.headers();
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

async function load(store: DeliveryStore, id: string): Promise<DeliveryRecord> {
  // Its tracks as sent; the service's answers are not shown here.
  const record = await store.load(id, { answers: false });
  if (!record) throw new CourierError('not_found', `No delivery ${id} in the history.`);
  return record;
}

function limitOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new UsageError(`--limit must be a whole number of tracks above 0, not '${text}'`);
  }
  return limit;
}

/** `--search TEXT`: one line per matching track, newest delivery first. */
async function search(
  services: CoreServices,
  query: string,
  limit: number | undefined,
  json: boolean,
  io: CliIO,
): Promise<number> {
  const deliveries = new DeliveryService(services, {}, 'courier history');
  const result: HistorySearchResult = await deliveries.search(query, {
    ...(limit !== undefined ? { limit } : {}),
  });
  if (json) {
    io.out(JSON.stringify(result, null, 2));
    return 0;
  }
  if (result.deliveries.length === 0) {
    io.err(`No delivery holds a track matching "${result.query}" (ISRC, outer_id or title).`);
    return 0;
  }
  io.out(
    table(
      ['DELIVERY', 'STATE', 'CATALOG', 'MODE', 'REQUEST', 'OUTER_ID', 'ISRC', 'TITLE', 'MATCHED'],
      result.deliveries.flatMap((d) =>
        d.tracks.map((t) => [
          d.id,
          d.state,
          d.catalog_name,
          d.mode,
          `${t.request_index + 1} ${t.request_state}`,
          t.outer_id,
          t.isrc ?? '',
          t.title ?? '',
          t.matched.join(','),
        ]),
      ),
    ),
  );
  if (result.truncated) {
    io.err(
      `Only the first ${result.tracks} matching tracks are listed: narrow the search or raise --limit.`,
    );
  }
  return 0;
}

/** `ID`: the delivery's tracks, request by request (`--json`: with their bodies as sent). */
function showDelivery(record: DeliveryRecord, json: boolean, io: CliIO): number {
  if (json) {
    io.out(JSON.stringify({ ...summarize(record), tracks: deliveredTracks(record) }, null, 2));
    return 0;
  }
  const tracks = deliveredTracks(record, { bodies: false });
  if (tracks.length === 0) {
    io.err(`Delivery ${record.id} has no track.`);
    return 0;
  }
  io.out(
    table(
      ['REQUEST', 'STATE', 'OUTER_ID', 'ISRC', 'TITLE', 'FILE'],
      tracks.map((t) => [
        String(t.request_index + 1),
        t.request_state,
        t.outer_id,
        t.isrc ?? '',
        t.title ?? '',
        t.file ?? '',
      ]),
    ),
  );
  return 0;
}

/** `ID --track OUTER_ID`: the body as sent (`--json`: with its request and state). */
function showTrack(record: DeliveryRecord, outerId: string, json: boolean, io: CliIO): number {
  const track = deliveredTrack(record, outerId);
  if (json) {
    io.out(JSON.stringify(track, null, 2));
    return 0;
  }
  if (!track.body) {
    throw new CourierError(
      'not_found',
      `Delivery ${record.id} was an ${record.mode} call: the service named "${outerId}" from its file, and no metadata body was sent.`,
    );
  }
  io.out(JSON.stringify(track.body, null, 2));
  return 0;
}
