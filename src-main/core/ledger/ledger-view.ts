/**
 * The ledger's view of a catalog — "what does Main Catalog hold from this workstation": one row
 * per track the service accepted (its outer_id, title, ISRC and artists as sent, the audio's key,
 * file and MD5, which delivery sent it and when), and the same rows as a CSV. Both doors (the
 * CLI's `courier ledger`, the app's History view) read it here.
 */
import { recordNamer } from '../delivery/delivered-tracks.js';
import { DeliveryStore } from '../delivery/delivery-record.js';
import type { DeliveryMode } from '../delivery/delivery-summary.js';
import { formatCsv } from '../model/csv-text.js';
import { artistRoles } from '../model/tags-to-track.js';
import type { Artist } from '../model/track.js';
import { findCatalog } from '../profiles/find-catalog.js';
import type { ProfileStore } from '../profiles/profile-store.js';
import { CatalogLedger, type LedgerEntry } from './catalog-ledger.js';

/** One track the catalog holds from this workstation, as a row. */
export interface LedgerRow {
  outer_id: string;
  title: string;
  isrc: string;
  /** Main artists by name, other roles in brackets: `Mara Quinn; Joe Ray (Composer)`. */
  artists: string;
  mode: DeliveryMode;
  /** `primary_media` as sent: the audio's key under `delivery/audio/`. */
  audio: string;
  /** The file as delivered, relative to the delivery's folder on disk. */
  file: string;
  /** Where that file was on this workstation. */
  local_path: string;
  md5: string;
  size: number | null;
  delivery: string;
  delivered_at: string;
}

/** The columns of the ledger's CSV, in order (the row's fields). */
export const ledgerColumns = [
  'outer_id',
  'title',
  'isrc',
  'artists',
  'mode',
  'audio',
  'file',
  'local_path',
  'md5',
  'size',
  'delivery',
  'delivered_at',
] as const satisfies readonly (keyof LedgerRow)[];

/** What a catalog holds from this workstation. */
export interface CatalogLedgerView {
  profile: string;
  catalog_id: string;
  catalog_name: string;
  /** How many tracks the catalog holds from here. */
  total: number;
  /** The rows, in the order the tracks were last accepted (the first `limit` of them). */
  entries: LedgerRow[];
}

/** Artists as one cell: main artists by name, the others with their role in brackets. */
export function artistsCell(artists: readonly Artist[] | undefined): string {
  return (artists ?? [])
    .map((a) => (a.role === artistRoles.main || !a.role ? a.name : `${a.name} (${a.role})`))
    .join('; ');
}

/** One ledger entry as a row; a folder call's title and ISRC come from its mapping, if any. */
export function ledgerRow(
  entry: LedgerEntry,
  named?: { title?: string; isrc?: string },
): LedgerRow {
  const body = entry.body;
  return {
    outer_id: entry.outer_id,
    title: body?.title ?? named?.title ?? '',
    isrc: body?.isrc ?? named?.isrc ?? '',
    artists: artistsCell(body?.artists),
    mode: entry.mode,
    audio: entry.primary_media ?? '',
    file: entry.path ?? '',
    local_path: entry.localPath ?? '',
    md5: entry.md5 ?? '',
    size: entry.size ?? null,
    delivery: entry.delivery,
    delivered_at: entry.at,
  };
}

/** The rows as CSV (header first, CRLF), formula-safe for spreadsheets. */
export function ledgerCsv(rows: readonly LedgerRow[]): string {
  return formatCsv([
    [...ledgerColumns],
    ...rows.map((row) => ledgerColumns.map((column) => String(row[column] ?? ''))),
  ]);
}

/**
 * The ledger of a profile's catalog, named by id or name: the profile and the catalog must exist
 * (CourierError `not_found` otherwise), so a name never reaches the file system unchecked.
 */
export async function openCatalogLedger(
  services: { dataDir: string; profiles: ProfileStore },
  profileName: string,
  catalogRef: string,
): Promise<{ profile: string; catalog: { id: string; name: string }; ledger: CatalogLedger }> {
  const profile = await services.profiles.get(profileName);
  const catalog = findCatalog(profile, catalogRef);
  const ledger = await CatalogLedger.open(services.dataDir, profile.name, catalog.id);
  return { profile: profile.name, catalog, ledger };
}

/**
 * Every row of a ledger. Tracks of audio_mapping calls get the title and ISRC their file names
 * gave (each delivery's mapping is read once).
 */
export async function ledgerRows(dataDir: string, ledger: CatalogLedger): Promise<LedgerRow[]> {
  const store = new DeliveryStore(dataDir);
  const namers = new Map<string, ((key: string) => { title?: string; isrc?: string }) | null>();
  const namerOf = async (delivery: string) => {
    if (!namers.has(delivery)) {
      const record = await store.load(delivery, { answers: false }).catch(() => undefined);
      namers.set(delivery, record?.mapping ? recordNamer(record) : null);
    }
    return namers.get(delivery);
  };
  const rows: LedgerRow[] = [];
  for (const entry of ledger.entries()) {
    const namer = entry.mode === 'audio_mapping' ? await namerOf(entry.delivery) : null;
    const key = entry.primary_media ?? entry.path;
    rows.push(ledgerRow(entry, namer && key ? namer(key) : undefined));
  }
  return rows;
}

/** What a profile's catalog holds from this workstation (the first `limit` rows). */
export async function catalogLedgerView(
  services: { dataDir: string; profiles: ProfileStore },
  profileName: string,
  catalogRef: string,
  options: { limit?: number } = {},
): Promise<CatalogLedgerView> {
  const { profile, catalog, ledger } = await openCatalogLedger(services, profileName, catalogRef);
  const rows = await ledgerRows(services.dataDir, ledger);
  return {
    profile,
    catalog_id: catalog.id,
    catalog_name: catalog.name,
    total: rows.length,
    entries: options.limit === undefined ? rows : rows.slice(0, options.limit),
  };
}
