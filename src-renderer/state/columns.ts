/**
 * The grid's columns: their labels, widths and which validation fields their cells show. How a
 * cell's text is read from a draft and written back lives in core (metadata-columns), shared
 * with the CSV import and `courier deliver --metadata`.
 */
import {
  metadataCells,
  metadataColumnIds,
  withTrackText,
} from '../../src-main/core/model/metadata-columns.js';
import type { DraftTrack, ValueSource } from '../../src-main/core/model/track.js';

/** Every column id, in the default order. */
export const columnIds = ['status', ...metadataColumnIds, 'catalog'] as const;

/** Columns about the row (validation, the catalog), not its metadata: never edited or imported. */
export const rowColumnIds = ['status', 'catalog'] as const;
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
  /** Default width in px. */
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
  status: { id: 'status', label: 'Status', width: 74, editable: false, fields: [], get: () => '' },
  // Where the track stands against the Deliver view's catalog at the last Check.
  catalog: {
    id: 'catalog',
    label: 'Catalog',
    width: 170,
    editable: false,
    fields: [],
    get: () => '',
  },
  file: cell('file', 'File', 240, ['primary_media']),
  outer_id: cell('outer_id', 'outer_id', 150, ['outer_id']),
  title: cell('title', 'Title', 200, ['title']),
  artists: cell('artists', 'Artists', 170, ['artists']),
  album: cell('album', 'Album', 170, [], true),
  upc: cell('upc', 'UPC', 130, ['album.upc'], true),
  isrc: cell('isrc', 'ISRC', 130, ['isrc']),
  release_date: cell('release_date', 'Release date', 110, ['release_date', 'album.release_date']),
  track: cell('track', 'Track #', 70, ['album.track_position']),
  disk: cell('disk', 'Disk #', 64, ['album.disk_number']),
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
