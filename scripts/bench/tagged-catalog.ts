/**
 * A generated back catalog for the benchmarks: `count` tagged files in label/album folders, of
 * mixed formats and tag families. One template per format is made by ffmpeg, then copied and
 * re-tagged by mutagen in one Python run (never ffmpeg per file). A `<dir>.complete` marker keeps
 * a finished folder between runs.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { gs1CheckDigit } from '../../src-main/core/model/gtin.js';
import {
  copyTemplate,
  extensionOf,
  type FixtureFormat,
  makeAudio,
  type TagFamily,
  type TagJob,
  writeTags,
} from '../../test/support/audio-fixtures.js';

/** Which formats, with which tag family, in what proportion (cycled through). */
export type CatalogMix = { format: FixtureFormat; family: TagFamily }[];

const PER_ALBUM = 12;

/** What the folder holds; a marker of another version makes it again. */
const VERSION = 2;

/** Album `n`'s own valid UPC-A (a 12-digit GTIN: 11 digits and the check digit). */
function upcOf(n: number): string {
  const body = `50999${String(n).padStart(6, '0')}`;
  return `${body}${gs1CheckDigit(body)}`;
}

/** Writes the catalog into `dir` unless a complete one of the same size is already there. */
export async function generateTaggedCatalog(
  dir: string,
  count: number,
  mix: CatalogMix,
): Promise<void> {
  const marker = `${dir}.complete`;
  const complete = `${VERSION}:${count}`;
  if (existsSync(marker) && (await readFile(marker, 'utf8')) === complete) return;
  await rm(dir, { recursive: true, force: true });
  const templates = `${dir}-templates`;
  await mkdir(templates, { recursive: true });
  const made = new Map<FixtureFormat, string>();
  for (const { format } of mix) {
    if (made.has(format)) continue;
    const path = join(templates, `${format}.${extensionOf(format)}`);
    await makeAudio(format, path);
    made.set(format, path);
  }
  const jobs: TagJob[] = [];
  for (let i = 0; i < count; i++) {
    const { format, family } = mix[i % mix.length]!;
    const album = Math.floor(i / PER_ALBUM);
    const position = (i % PER_ALBUM) + 1;
    const path = join(
      dir,
      `label-${album % 7}`,
      `album-${album}`,
      `${String(position).padStart(2, '0')} Track ${i}.${extensionOf(format)}`,
    );
    await copyTemplate(made.get(format)!, [path]);
    jobs.push({
      path,
      family,
      tags: {
        title: `Track ${i}`,
        artists: [`Artist ${album % 50}`],
        album: `Album ${album}`,
        isrc: `GBXYZ${String(20 + (i % 70)).padStart(2, '0')}${String(i).padStart(5, '0')}`,
        barcode: upcOf(album),
        track: `${position}/${PER_ALBUM}`,
        disk: '1',
        date: '2021-05-14',
        genres: ['Electronic'],
        mood: 'Calm',
        label: `Label ${album % 7}`,
        catalogNumber: `CAT-${album}`,
      },
    });
  }
  await writeTags(jobs);
  await rm(templates, { recursive: true, force: true });
  await writeFile(marker, complete);
}
