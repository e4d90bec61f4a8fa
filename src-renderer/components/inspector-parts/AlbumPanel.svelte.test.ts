import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';

import { type FakeTags, libraryWith } from '../../../test/fakes/fake-library.js';
import Inspector from '../Inspector.svelte';

const UPC = '0602445566778';

/** A 12-track album in one folder; `change` alters some tracks' tags. */
function album12(change: (n: number) => FakeTags = () => ({})): Record<string, FakeTags> {
  const files: Record<string, FakeTags> = {};
  for (let n = 1; n <= 12; n++) {
    files[`Harbour Lights/${String(n).padStart(2, '0')} Song ${n}.flac`] = {
      title: `Song ${n}`,
      artist: 'Aurora Vale',
      album: 'Harbour Lights',
      upc: UPC,
      track: String(n),
      ...change(n),
    };
  }
  return files;
}

const id = (n: number) => `id:Harbour Lights/${String(n).padStart(2, '0')} Song ${n}.flac`;

async function inspected(files: Record<string, FakeTags>, row: number) {
  const setup = await libraryWith(files);
  await setup.library.validated();
  setup.grid.selectRows(row, row);
  render(Inspector, { grid: setup.grid });
  await tick();
  return setup;
}

describe('AlbumPanel', () => {
  afterEach(cleanup);

  it('shows the album of a selected track with its UPC in 13 digits, whatever one track wrote', async () => {
    await inspected(
      album12((n) => (n === 3 ? { upc: UPC.slice(1) } : {})),
      0,
    );
    const panel = within(screen.getByTestId('album-panel'));
    expect(panel.getByTestId('album-upc').textContent).toBe(UPC);
    expect(panel.getByText('Harbour Lights')).toBeTruthy();
    expect(panel.getAllByRole('listitem').filter((li) => li.closest('ol'))).toHaveLength(12);
    expect(panel.queryByRole('list', { name: 'Album problems' })).toBeNull();
  });

  it('says once that one track disagrees on UPC and fixes it on one click, as one step to undo', async () => {
    const { library } = await inspected(
      album12((n) => (n === 7 ? { upc: '12345' } : {})),
      0,
    );
    const panel = within(screen.getByTestId('album-panel'));
    const problems = within(panel.getByRole('list', { name: 'Album problems' }));
    expect(problems.getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      expect.stringContaining(
        `1 track disagrees on UPC: 11 have ${UPC}, 1 has 12345 (07 Song 7.flac)`,
      ),
    ]);
    // No gap: the odd track is still the album's track 7.
    const tracks = within(panel.getByRole('list', { name: 'Album tracks' }));
    expect(tracks.queryByText('— missing')).toBeNull();
    expect(library.findings.get(id(1))).toEqual([]);
    expect(library.findings.get(id(7))!.map((f) => f.field)).toEqual(['album.upc', 'album.upc']);

    await fireEvent.click(problems.getByRole('button', { name: `Use ${UPC} on all 12 tracks` }));
    await library.validated();
    await tick();
    expect(library.row(id(7))!.draft.album?.upc?.value).toBe(UPC);
    expect(library.findings.get(id(7))).toEqual([]);
    expect(screen.queryByRole('list', { name: 'Album problems' })).toBeNull();
    expect(library.undoLabel).toBe(`Use ${UPC} on all 12 tracks`);
    library.undo();
    await library.validated();
    expect(library.row(id(7))!.draft.album?.upc?.value).toBe('12345');
  });

  it('lists the tracks in position order with a missing line for a real gap and marks duplicates', async () => {
    await inspected(
      album12((n) => (n === 10 ? { track: '11' } : {})),
      0,
    );
    const panel = within(screen.getByTestId('album-panel'));
    const lines = within(panel.getByRole('list', { name: 'Album tracks' }))
      .getAllByRole('listitem')
      .map((li) => li.textContent?.replace(/\s+/g, ' ').trim());
    expect(lines.slice(8)).toEqual([
      '9 Song 9',
      '10 — missing',
      '11 Song 10 duplicate',
      '11 Song 11 duplicate',
      '12 Song 12',
    ]);
    expect(panel.getByText(/^no track 10: a track is missing or numbered wrong/)).toBeTruthy();
  });

  it('shows the album of a selected album header in the grouped view', async () => {
    const setup = await libraryWith(album12((n) => (n === 7 ? { upc: '12345' } : {})));
    await setup.library.validated();
    setup.grid.groupByAlbum = true;
    // One album: one header, then its 12 tracks (the odd UPC does not split it).
    expect(setup.grid.lines.filter((l) => typeof l === 'object')).toHaveLength(1);
    setup.grid.selectRows(0, 0);
    render(Inspector, { grid: setup.grid });
    await tick();
    const panel = within(screen.getByTestId('album-panel'));
    expect(panel.getByText(/1 track disagrees on UPC/)).toBeTruthy();
  });
});
