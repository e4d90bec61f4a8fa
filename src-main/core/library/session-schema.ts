/**
 * The library session as it crosses IPC and sits on disk: the granted files and the drafts the
 * user reviewed, with every value's source. Strict and bounded like every request schema; pure
 * (valibot only) because the contract, and so the renderer, imports it.
 */
import * as v from 'valibot';

import { audioFormatIds } from '../model/audio-properties.js';

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const count = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));

const SourceSchema = v.variant('kind', [
  v.strictObject({
    kind: v.literal('tag'),
    tag: text(256),
    joinedWith: v.optional(v.literal('/')),
  }),
  v.strictObject({ kind: v.literal('file-name') }),
  v.strictObject({ kind: v.literal('manual') }),
  v.strictObject({ kind: v.literal('csv'), column: v.optional(text(256)) }),
  v.strictObject({ kind: v.literal('derived'), from: text(1024) }),
]);

const sourced = <T extends v.GenericSchema>(value: T) =>
  v.optional(v.strictObject({ value, source: SourceSchema }));

const shortText = sourced(text(4096));
const ReferenceSchema = v.strictObject({ id: text(1024), source: text(256) });
const references = sourced(v.pipe(v.array(ReferenceSchema), v.maxLength(100)));

const DraftAlbumSchema = v.strictObject({
  title: shortText,
  upc: shortText,
  releaseDate: shortText,
  type: shortText,
  references,
  trackPosition: shortText,
  diskNumber: shortText,
  label: shortText,
  catalogNumber: shortText,
});

/** A draft track (core/model/track.ts `DraftTrack`) as a runtime schema. */
export const DraftTrackSchema = v.strictObject({
  file: text(4096),
  outerId: shortText,
  primaryMedia: shortText,
  title: shortText,
  lyrics: sourced(text(100_000)),
  isrc: shortText,
  releaseDate: shortText,
  artists: sourced(
    v.pipe(
      v.array(v.strictObject({ name: text(1024), role: text(256), id: v.optional(text(1024)) })),
      v.maxLength(200),
    ),
  ),
  references,
  customerTags: sourced(
    v.pipe(v.array(v.strictObject({ tag: text(1024), category: text(256) })), v.maxLength(200)),
  ),
  album: v.optional(DraftAlbumSchema),
});

const FindingSchema = v.strictObject({
  level: v.picklist(['error', 'warning']),
  field: v.optional(text(128)),
  message: text(4096),
  code: v.optional(v.literal('cut-short')),
});

const level = v.picklist(['off', 'warning', 'error']);

/** A profile's masters rules (core/model/delivery-rules.ts `DeliveryRules`). */
export const DeliveryRulesSchema = v.strictObject({
  formats: v.strictObject({
    allowed: v.pipe(v.array(v.picklist(audioFormatIds)), v.maxLength(64)),
    level,
  }),
  minSampleRate: v.strictObject({
    hz: v.pipe(v.number(), v.minValue(0), v.maxValue(1_000_000)),
    level,
  }),
  minBitDepth: v.strictObject({ bits: v.pipe(v.number(), v.minValue(0), v.maxValue(64)), level }),
  minDuration: v.strictObject({
    seconds: v.pipe(v.number(), v.minValue(0), v.maxValue(86_400)),
    level,
  }),
  mono: level,
});

const positive = v.pipe(v.number(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));

/** A master's QC properties (core/model/audio-properties.ts `AudioProperties`). */
const AudioPropertiesSchema = v.strictObject({
  format: v.picklist(audioFormatIds),
  container: text(128),
  codec: text(128),
  lossless: v.boolean(),
  sampleRate: v.optional(positive),
  bitDepth: v.optional(positive),
  channels: v.optional(positive),
  duration: v.optional(positive),
  bitrate: v.optional(positive),
  md5: v.optional(v.boolean()),
});

/** One row of the library: a granted file and what the user made of its metadata. */
export const SessionRowSchema = v.strictObject({
  /** The file's grant id (stable per absolute path). */
  id: v.pipe(text(64), v.minLength(1)),
  size: count,
  lastModified: count,
  status: v.picklist(['reading', 'ready', 'unreadable']),
  draft: DraftTrackSchema,
  /** The draft as the tags gave it, before any edit (null when unreadable). */
  original: v.nullable(DraftTrackSchema),
  readFindings: v.pipe(v.array(FindingSchema), v.maxLength(50)),
  /** Left out of deliveries by the user until included again. */
  excluded: v.optional(v.boolean()),
  /** The master's QC properties, as read. */
  audio: v.optional(AudioPropertiesSchema),
  /** The user accepts this master cut short as it is. */
  acceptCutShort: v.optional(v.boolean()),
});

/** The whole session. */
export const LibrarySessionSchema = v.strictObject({
  version: v.literal(1),
  rows: v.pipe(v.array(SessionRowSchema), v.maxLength(200_000)),
  ignored: v.pipe(
    v.array(v.strictObject({ relativePath: text(4096), reason: text(1024) })),
    v.maxLength(200_000),
  ),
});

/** A library session. */
export type LibrarySession = v.InferOutput<typeof LibrarySessionSchema>;

/** One session row. */
export type SessionRow = v.InferOutput<typeof SessionRowSchema>;

/** Where a stored or sent row's `original` says it is its draft. */
const sameAsDraft = 'draft';

/**
 * A row as it is stored (the base, the journal) and sent to be saved: `original` is `'draft'`
 * when it is the draft itself (a track not edited since its tags were read, most of a library),
 * which halves what a save sends and checks and what a reopen reads.
 */
export const StoredRowSchema = v.strictObject({
  ...SessionRowSchema.entries,
  original: v.union([SessionRowSchema.entries.original, v.literal(sameAsDraft)]),
});

/** A row as stored or sent to be saved. */
export type StoredRow = v.InferOutput<typeof StoredRowSchema>;

/**
 * A row as a save sends it: an original that is its draft itself (the same object: a track not
 * edited since its tags were read) as `'draft'`. Cheap enough for every row of a save.
 */
export function sentRow(row: SessionRow): StoredRow {
  return row.original !== null && row.original === row.draft
    ? { ...row, original: sameAsDraft }
    : row;
}

/** A row as stored (an original that is its draft written once, even if a copy of it). */
export function storedRow(row: SessionRow): StoredRow {
  const sent = sentRow(row);
  if (sent !== row || row.original === null) return sent;
  // Equal in content though not the same object (a row as an older page sent it).
  return JSON.stringify(row.original) === JSON.stringify(row.draft)
    ? { ...row, original: sameAsDraft }
    : row;
}

/** A stored row as the session has it: an original that is its draft is the draft itself. */
export function sessionRow(row: StoredRow): SessionRow {
  return row.original === sameAsDraft ? { ...row, original: row.draft } : (row as SessionRow);
}
