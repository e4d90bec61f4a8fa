/**
 * The track as the service receives it (service-interface 2.4) and the editable "draft" the
 * app and the CLI build from tags, file names, CSV or manual edits. Every draft value remembers
 * where it came from so the UI can show it.
 */

/** An official reference of a track or an album. */
export interface Reference {
  id: string;
  source: string;
}

/** A track artist: the caller's id, the name and a caller-chosen role. */
export interface Artist {
  id: string;
  name: string;
  role: string;
}

/** A caller's tag; the service names the categories Genre and Mood. */
export interface CustomerTag {
  tag: string;
  category: string;
}

/** An album a track appears on, as sent. */
export interface Album {
  upc?: string;
  title?: string;
  /** YYYYMMDD as a string (unlike the track's integer). */
  release_date?: string;
  type?: string;
  references?: Reference[];
  track_position?: string;
  disk_number?: string;
}

/** One element of the `POST /ingestion/json` body. */
export interface Track {
  outer_id: string;
  primary_media: string;
  references?: Reference[];
  title?: string;
  lyrics?: string;
  isrc?: string;
  /** YYYYMMDD as an integer. */
  release_date?: number;
  albums?: Album[];
  artists?: Artist[];
  customer_tags?: CustomerTag[];
}

/** Where a draft value came from. */
export type ValueSource =
  | {
      kind: 'tag';
      tag: string;
      /**
       * The tag family joins several values into one text with this character (ID3v2.3 and
       * 2.2: "/"), which the reader kept whole as it cannot tell "AC/DC" from two names.
       */
      joinedWith?: '/';
    }
  | { kind: 'file-name' }
  | { kind: 'manual' }
  | { kind: 'csv'; column?: string }
  | { kind: 'derived'; from: string };

/** A value with its origin. */
export interface Sourced<T> {
  value: T;
  source: ValueSource;
}

/** An artist before it gets an id (the id defaults to the name). */
export interface DraftArtist {
  name: string;
  role: string;
  id?: string;
}

/** The album part of a draft. */
export interface DraftAlbum {
  title?: Sourced<string>;
  /** Raw UPC/EAN as found (normalised and checked by validation). */
  upc?: Sourced<string>;
  /** Raw date text as found (YYYY, YYYY-MM-DD, YYYYMMDD, ...). */
  releaseDate?: Sourced<string>;
  type?: Sourced<string>;
  references?: Sourced<Reference[]>;
  trackPosition?: Sourced<string>;
  diskNumber?: Sourced<string>;
  /** Not sent (2.4 has no field) but shown, and usable for outer_id. */
  label?: Sourced<string>;
  /** Not sent as such (2.4 has no field) but shown, and usable for outer_id. */
  catalogNumber?: Sourced<string>;
}

/** A track being prepared: every field optional and sourced. */
export interface DraftTrack {
  /** Path relative to the delivery root, forward slashes, NFC. */
  file: string;
  outerId?: Sourced<string>;
  primaryMedia?: Sourced<string>;
  title?: Sourced<string>;
  lyrics?: Sourced<string>;
  /** Raw ISRC as found (normalised by the body builder, checked by validation). */
  isrc?: Sourced<string>;
  /** Raw date text as found. */
  releaseDate?: Sourced<string>;
  artists?: Sourced<DraftArtist[]>;
  references?: Sourced<Reference[]>;
  customerTags?: Sourced<CustomerTag[]>;
  album?: DraftAlbum;
}

/**
 * A split of one combined artist credit that validation offers (`artists.ts`): the artist at
 * `index` of the draft's artists, named `name`, becomes `into`.
 */
export interface ArtistSplitFix {
  kind: 'split-artist';
  index: number;
  name: string;
  into: DraftArtist[];
}

/** Use the track's (valid) ISRC as its missing outer_id (`track-fixes.ts`). */
export interface IsrcAsOuterIdFix {
  kind: 'isrc-as-outer-id';
  isrc: string;
}

/** A one-click fix a finding offers. */
export type FindingFix = ArtistSplitFix | IsrcAsOuterIdFix;

/** One thing the user should know about a track or file, field by field. */
export interface Finding {
  level: 'error' | 'warning';
  /** The 2.4 field (`album.` prefix for album fields); absent for the file as a whole. */
  field?: string;
  message: string;
  /** A finding the label may accept per track (`masters.ts`): 'cut-short'. */
  code?: 'cut-short';
  /** What resolves it, for the app to apply on one click (validation's, never saved). */
  fix?: FindingFix;
}
