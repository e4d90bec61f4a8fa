/**
 * A finding names the service's field it is about (`album.track_position`, the request body's
 * path); people read it by the name the grid gives that field ("Track #"). One table, for the app
 * and the CLI alike. Pure: the renderer bundles it.
 */

const labels: Record<string, string> = {
  outer_id: 'outer_id',
  primary_media: 'Audio file',
  title: 'Title',
  isrc: 'ISRC',
  release_date: 'Release date',
  artists: 'Artists',
  customer_tags: 'Customer tags',
  references: 'References',
  lyrics: 'Lyrics',
  'album.title': 'Album',
  'album.artist': 'Album artist',
  'album.upc': 'UPC',
  'album.release_date': 'Album release date',
  'album.type': 'Album type',
  'album.track_position': 'Track #',
  'album.disk_number': 'Disk #',
  'album.label': 'Label',
  'album.catalog_number': 'Catalog number',
  'album.references': 'Album references',
};

/** The name people know a finding's field by; the field itself when it has none. */
export function fieldLabel(field: string): string {
  return labels[field] ?? labels[field.replace(/^albums\[\d+\]\./, 'album.')] ?? field;
}
