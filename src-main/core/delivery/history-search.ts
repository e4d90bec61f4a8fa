/**
 * Searching the delivery history for a track: by ISRC (in any case, with or without hyphens and
 * spaces), by outer_id (exactly), or by words of its title (whatever their case and Unicode
 * form). Folder calls (audio_only, audio_mapping) have no bodies: their tracks are found by the
 * name the service gives them (a mapping's outer_id, title or ISRC, else the file name) and by
 * their file name. Records are read one at a time, newest first, so a long history is searched in
 * the memory of its largest delivery.
 */
import { UsageError } from '../errors.js';
import { normalizeIsrc } from '../model/isrc.js';
import { containsFolded, foldForSearch } from '../model/text-search.js';
import { type DeliveredTrack, deliveredTracks } from './delivered-tracks.js';
import type { DeliveryRecord } from './delivery-record.js';
import type { DeliveryMode, DeliveryState } from './delivery-summary.js';

/** What a track matched: its ISRC, its outer_id, words of its title, or its file name. */
export type SearchReading = 'isrc' | 'outer_id' | 'title' | 'file';

/** A track that matched, and why. */
export interface TrackMatch extends DeliveredTrack {
  matched: SearchReading[];
}

/** A delivery holding matching tracks: which delivery, and those tracks. */
export interface DeliveryMatch {
  id: string;
  state: DeliveryState;
  profile: string;
  environment: string;
  catalog_id: string;
  /** The catalog's name in the profile (its id when the profile no longer names it). */
  catalog_name: string;
  mode: DeliveryMode;
  folder: string;
  created_at: string;
  finished_at: string;
  tracks: TrackMatch[];
}

/** What a search found, newest delivery first. */
export interface HistorySearchResult {
  query: string;
  deliveries: DeliveryMatch[];
  /** How many tracks matched (up to the limit). */
  tracks: number;
  /** More tracks matched than the limit: a narrower query finds them. */
  truncated: boolean;
}

/** Options of a search. */
export interface SearchOptions {
  /** The most tracks returned (default 500). */
  limit?: number;
  /** Whether json bodies come with the matches (default true). */
  bodies?: boolean;
  /** The catalog's name for a profile and catalog id (default: the id). */
  catalogName?: (profile: string, catalogId: string) => string;
}

/** The longest query taken: longer text is no title, ISRC or outer_id anyone typed. */
export const MAX_QUERY_LENGTH = 256;

/**
 * The test a query puts to each track: which readings it matches (none: not a match). A
 * UsageError for an empty query.
 */
export function trackMatcher(
  query: string,
): (track: DeliveredTrack, mode: DeliveryMode) => SearchReading[] {
  const text = query.trim();
  if (text === '') {
    throw new UsageError('the search is empty: give an ISRC, an outer_id or words of a title');
  }
  if (text.length > MAX_QUERY_LENGTH) {
    throw new UsageError(`the search is longer than ${MAX_QUERY_LENGTH} characters`);
  }
  const isrc = normalizeIsrc(text);
  const folded = foldForSearch(text);
  return (track, mode) => {
    const readings: SearchReading[] = [];
    if (isrc !== '' && track.isrc !== undefined && normalizeIsrc(track.isrc) === isrc) {
      readings.push('isrc');
    }
    if (track.outer_id === text) readings.push('outer_id');
    if (containsFolded(track.title, folded)) readings.push('title');
    if (
      mode !== 'json' &&
      containsFolded(track.file?.slice(track.file.lastIndexOf('/') + 1), folded)
    ) {
      readings.push('file');
    }
    return readings;
  };
}

/**
 * The deliveries (newest first) holding a track that matches `query`, with those tracks and
 * their bodies as sent. `records` yields the history newest first (`DeliveryStore.records`).
 */
export async function searchHistory(
  records: AsyncIterable<DeliveryRecord>,
  query: string,
  options: SearchOptions = {},
): Promise<HistorySearchResult> {
  const matches = trackMatcher(query);
  const limit = options.limit ?? 500;
  const result: HistorySearchResult = {
    query: query.trim(),
    deliveries: [],
    tracks: 0,
    truncated: false,
  };
  for await (const record of records) {
    const found: TrackMatch[] = [];
    for (const track of deliveredTracks(record, { bodies: options.bodies ?? true })) {
      const matched = matches(track, record.mode);
      if (matched.length === 0) continue;
      if (result.tracks === limit) {
        result.truncated = true;
        break;
      }
      found.push({ ...track, matched });
      result.tracks++;
    }
    if (found.length > 0) result.deliveries.push(matchOf(record, found, options.catalogName));
    if (result.truncated) break;
  }
  return result;
}

function matchOf(
  record: DeliveryRecord,
  tracks: TrackMatch[],
  catalogName: SearchOptions['catalogName'],
): DeliveryMatch {
  return {
    id: record.id,
    state: record.state,
    profile: record.profile,
    environment: record.environment,
    catalog_id: record.catalogId,
    catalog_name: catalogName?.(record.profile, record.catalogId) ?? record.catalogId,
    mode: record.mode,
    folder: record.folder,
    created_at: record.createdAt,
    finished_at: record.finishedAt ?? '',
    tracks,
  };
}
