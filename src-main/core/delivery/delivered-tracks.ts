/**
 * The tracks of a recorded delivery as the service receives them: in json mode each body exactly
 * as sent, request by request; in a folder call (audio_only, audio_mapping) each file under the
 * name the service gives it (the mapping's outer_id, else the file name). History's search,
 * `courier history ID` and the catalog ledger read them here.
 */
import { CourierError } from '../errors.js';
import {
  applyFileNameMapping,
  type FileNameMapping,
  parseMappingYaml,
} from '../model/filename-mapping.js';
import type { Track } from '../model/track.js';
import { withFields } from '../objects.js';
import { AUDIO_ROOT } from '../storage/object-key.js';
import type { DeliveryBatch, DeliveryRecord } from './delivery-record.js';

/** One track of a delivery, where it stands, and (json) its body as sent. */
export interface DeliveredTrack {
  outer_id: string;
  title?: string;
  isrc?: string;
  /** The audio, relative to the delivery's folder on disk (absent when the service downloads it). */
  file?: string;
  /** The request that carries it (0-based, like History's `requests[].index`) and its state. */
  request_index: number;
  request_state: DeliveryBatch['state'];
  /** Sent as new metadata only: the catalog kept the audio it had. */
  metadata_only?: true;
  /** json: the body exactly as sent (or as it will be sent, while its request is pending). */
  body?: Track;
}

/** What the service takes from a folder call's file: its outer_id, and a mapping's title/ISRC. */
export interface FolderCallName {
  outer_id: string;
  title?: string;
  isrc?: string;
}

/**
 * How the service names the files of a folder call: a mapping's outer_id (with its title and
 * ISRC), else the file name. `key` is the object key or a path; only its last segment counts.
 */
export function folderCallNamer(
  mapping: FileNameMapping | undefined,
): (key: string) => FolderCallName {
  return (key) => {
    const name = key.slice(key.lastIndexOf('/') + 1);
    const mapped = mapping ? applyFileNameMapping(name, mapping) : undefined;
    if (!mapped?.ok) return { outer_id: name };
    const { outer_id, title, isrc } = mapped.values;
    return {
      outer_id: outer_id ?? name,
      ...(title !== undefined ? { title } : {}),
      ...(isrc !== undefined ? { isrc } : {}),
    };
  };
}

/** The namer of a recorded folder call (its mapping as it was sent). */
export function recordNamer(
  record: Pick<DeliveryRecord, 'mapping'>,
): (key: string) => FolderCallName {
  return folderCallNamer(record.mapping ? parseMappingYaml(record.mapping.yaml) : undefined);
}

/**
 * Every track of a delivery, request by request. `bodies: false` leaves the json bodies out
 * (a listing that does not show them need not carry them).
 */
export function deliveredTracks(
  record: DeliveryRecord,
  options: { bodies?: boolean } = {},
): DeliveredTrack[] {
  const bodies = options.bodies ?? true;
  const fileOf = new Map(record.files.map((f) => [f.key, f.path]));
  const tracks: DeliveredTrack[] = [];
  if (record.mode === 'json') {
    for (const [index, batch] of (record.tracks ?? []).entries()) {
      const request = record.batches[index];
      for (const body of batch) {
        const file =
          record.audioOf?.[body.outer_id]?.path ?? fileOf.get(AUDIO_ROOT + body.primary_media);
        tracks.push({
          outer_id: body.outer_id,
          ...(body.title !== undefined ? { title: body.title } : {}),
          ...(body.isrc !== undefined ? { isrc: body.isrc } : {}),
          ...(file !== undefined && record.options.media_fetch_type === 's3' ? { file } : {}),
          request_index: index,
          request_state: request?.state ?? 'pending',
          ...(request?.overwriteAudio === false ? { metadata_only: true as const } : {}),
          ...(bodies ? { body } : {}),
        });
      }
    }
    return tracks;
  }
  const nameOf = recordNamer(record);
  const requestOf = new Map<string, DeliveryBatch>();
  for (const batch of record.batches) for (const key of batch.keys) requestOf.set(key, batch);
  for (const file of record.files) {
    const request = requestOf.get(file.key) ?? record.batches[0];
    tracks.push(
      withFields(nameOf(file.key), {
        file: file.path,
        request_index: request?.index ?? 0,
        request_state: request?.state ?? 'pending',
      }),
    );
  }
  return tracks;
}

/**
 * One track of a delivery with its body as sent. A CourierError `not_found` when the delivery
 * carries no such outer_id.
 */
export function deliveredTrack(record: DeliveryRecord, outerId: string): DeliveredTrack {
  const track = deliveredTracks(record).find((t) => t.outer_id === outerId);
  if (!track) {
    throw new CourierError(
      'not_found',
      `Delivery ${record.id} carries no track with outer_id "${outerId}".`,
    );
  }
  return track;
}
