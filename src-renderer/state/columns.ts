/**
 * The grid's columns: their labels, widths and which validation fields their cells show. How a
 * cell's text is read from a draft and written back lives in core (metadata-columns), shared
 * with the CSV import and `courier deliver --metadata`.
 */
import { artistCreditText, withArtistCredit } from '../../src-main/core/model/artist-credit.js';
import {
  audioFormatLabels,
  type AudioProperties,
  channelsLabel,
  formatDuration,
} from '../../src-main/core/model/audio-properties.js';
import {
  metadataCells,
  metadataColumnIds,
  withTrackText,
} from '../../src-main/core/model/metadata-columns.js';
import type { DraftTrack, ValueSource } from '../../src-main/core/model/track.js';

/** The masters QC columns (hidden until the user shows them). */
export const qcColumnIds = [
  'qc_format',
  'qc_lossless',
  'qc_rate',
  'qc_depth',
  'qc_channels',
  'qc_duration',
  'qc_bitrate',
] as const;

/** Every column id, in the default order. */
export const columnIds = ['status', ...metadataColumnIds, 'catalog', ...qcColumnIds] as const;

/**
 * The grid's default column order: the file's name and the metadata a reviewer reads first, so
 * that at 1280×720 with the inspector collapsed they fit without scrolling sideways. (An album
 * header's label runs across File and Title; a longer one is cut, whole in its tooltip.)
 */
export const defaultColumnOrder: readonly ColumnId[] = [
  'status',
  'track',
  'file',
  'title',
  'artists',
  'album',
  'isrc',
  'upc',
  'release_date',
  'disk',
  'outer_id',
  'artist_ids',
  'album_type',
  'customer_tags',
  'lyrics',
  'catalog',
  ...qcColumnIds,
];

/** Columns hidden in the default layout. */
export const defaultHiddenColumns: readonly ColumnId[] = ['artist_ids', ...qcColumnIds];

/**
 * Columns about the row (validation, the catalog, the master's QC), not its metadata: never
 * edited or imported.
 */
export const rowColumnIds = ['status', 'catalog', ...qcColumnIds] as const;
export type RowColumnId = (typeof rowColumnIds)[number];

/** Whether a column is about the row rather than its metadata. */
export function isRowColumn(id: ColumnId): id is RowColumnId {
  return (rowColumnIds as readonly string[]).includes(id);
}

/** One column id. */
export type ColumnId = (typeof columnIds)[number];

/** A grid column. */
export interface Column {
  id: ColumnId;
  label: string;
  /**
   * Default width in px: a UPC's 13 digits, an ISRC's 12 characters and a date's 10 show whole
   * (widest glyphs, at the UI font) and the main columns fit 1280×720 (see defaultColumnOrder).
   */
  width: number;
  /** Whether the cell can be edited as text in the grid. */
  editable: boolean;
  /** Album-level: the same for every track of an album. */
  album?: boolean;
  /** Validation fields (Finding.field) shown on this column's cells. */
  fields: readonly string[];
  /** The cell's text. */
  get(draft: DraftTrack): string;
  /** The draft with the cell set to `text` ('' clears it); never mutates `draft`. */
  set?(draft: DraftTrack, text: string, source: ValueSource): DraftTrack;
  /** Where the cell's value came from, for the inspector. */
  source?(draft: DraftTrack): ValueSource | undefined;
  /** The cell's text from the master's QC properties (the QC columns). */
  ofAudio?(audio: AudioProperties | undefined): string;
}

/** A QC column: read-only text from the master's properties ('' when unknown). */
function qc(
  id: (typeof qcColumnIds)[number],
  label: string,
  width: number,
  text: (audio: AudioProperties) => string,
): Column {
  return {
    id,
    label,
    width,
    editable: false,
    fields: [],
    get: () => '',
    ofAudio: (audio) => (audio ? text(audio) : ''),
  };
}

type MetadataColumnId = Exclude<ColumnId, RowColumnId>;

/** A column whose text, edits and source are the shared metadata cell's. */
function cell(
  id: MetadataColumnId,
  label: string,
  width: number,
  fields: readonly string[],
  album = false,
): Column {
  const { get, set, source } = metadataCells[id];
  return { id, label, width, editable: set !== undefined, fields, get, set, source, album };
}

/** Every column, by id. */
export const columns: Record<ColumnId, Column> = {
  status: { id: 'status', label: 'Status', width: 72, editable: false, fields: [], get: () => '' },
  // Where the track stands against the Deliver view's catalog at the last Check.
  catalog: {
    id: 'catalog',
    label: 'Catalog',
    width: 170,
    editable: false,
    fields: [],
    get: () => '',
  },
  file: cell('file', 'File', 176, ['primary_media']),
  outer_id: cell('outer_id', 'outer_id', 150, ['outer_id']),
  title: cell('title', 'Title', 150, ['title']),
  // Every artist with its role ("Aurora Vale · feat. Nils Berg"); the sheet's Artists are the
  // main ones, other roles having columns of their own there.
  artists: {
    ...cell('artists', 'Artists', 130, ['artists']),
    get: artistCreditText,
    set: withArtistCredit,
  },
  // Only ids the label gave: an artist without one is sent with its name (core/model/artist-ids).
  artist_ids: cell('artist_ids', 'Artist ids', 200, []),
  album: cell('album', 'Album', 130, [], true),
  upc: cell('upc', 'UPC', 134, ['album.upc'], true),
  isrc: cell('isrc', 'ISRC', 140, ['isrc']),
  release_date: cell('release_date', 'Release date', 124, ['release_date', 'album.release_date']),
  track: cell('track', 'Track #', 76, ['album.track_position']),
  disk: cell('disk', 'Disk #', 72, ['album.disk_number']),
  album_type: cell('album_type', 'Album type', 110, [], true),
  customer_tags: cell('customer_tags', 'Customer tags', 190, []),
  // Lyrics are edited in the inspector; the cell only says whether there are any.
  lyrics: {
    id: 'lyrics',
    label: 'Lyrics',
    width: 70,
    editable: false,
    fields: [],
    get: (d) => (d.lyrics?.value.trim() ? 'Yes' : ''),
    source: (d) => d.lyrics?.source,
  },
  qc_format: qc('qc_format', 'Format', 110, (a) =>
    a.format === 'other' ? a.codec || a.container : audioFormatLabels[a.format],
  ),
  qc_lossless: qc('qc_lossless', 'Lossless', 80, (a) => (a.lossless ? 'Lossless' : 'Lossy')),
  qc_rate: qc('qc_rate', 'Sample rate', 96, (a) =>
    a.sampleRate ? `${Number((a.sampleRate / 1000).toFixed(2))} kHz` : '',
  ),
  qc_depth: qc('qc_depth', 'Bit depth', 76, (a) => (a.bitDepth ? `${a.bitDepth}-bit` : '')),
  qc_channels: qc('qc_channels', 'Channels', 84, (a) =>
    a.channels ? channelsLabel(a.channels) : '',
  ),
  qc_duration: qc('qc_duration', 'Duration', 76, (a) =>
    a.duration !== undefined ? formatDuration(a.duration) : '',
  ),
  qc_bitrate: qc('qc_bitrate', 'Bitrate', 90, (a) =>
    a.bitrate ? `${Math.round(a.bitrate / 1000).toLocaleString('en')} kb/s` : '',
  ),
};

/** Sets lyrics (edited in the inspector, not in a grid cell). */
export function setLyrics(draft: DraftTrack, text: string, source: ValueSource): DraftTrack {
  return withTrackText(draft, 'lyrics', text, source);
}

/** A short human name for where a value came from. */
export function describeSource(source: ValueSource | undefined): string {
  if (!source) return '';
  switch (source.kind) {
    case 'tag':
      return `tag ${source.tag}`;
    case 'file-name':
      return 'file name';
    case 'manual':
      return 'edited';
    case 'csv':
      return source.column ? `CSV column ${source.column}` : 'CSV';
    case 'derived':
      return `derived from ${source.from}`;
  }
}
