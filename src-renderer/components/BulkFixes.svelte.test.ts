import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';

import { libraryWith } from '../../test/fakes/fake-library.js';
import { columns } from '../state/columns.js';
import BulkFixes from './BulkFixes.svelte';
import Inspector from './Inspector.svelte';

async function catalog() {
  return libraryWith({
    'A/01.flac': {
      title: 'One',
      artist: 'Aurora Vale feat. Nils Berg',
      isrc: 'GBAYE2100001',
      date: '2021/5/14',
    },
    // No ISRC when read: its outer_id falls back to the file name; the ISRC comes later.
    'A/02.flac': { title: 'Two', artist: 'Aurora Vale', date: '20210514' },
    'A/03.flac': { title: 'Three', artist: 'Aurora Vale', isrc: 'bad', date: '2021-05-14' },
  });
}

type Setup = Awaited<ReturnType<typeof catalog>>;
const text = ({ library }: Setup, file: string, id: keyof typeof columns) =>
  columns[id].get(library.row(`id:A/${file}`)!.draft);
const button = (kind: string) =>
  document.querySelector<HTMLButtonElement>(`.bulk-fixes [data-fix="${kind}"]`)!;

describe('BulkFixes', () => {
  afterEach(cleanup);

  it('applies each fix to every track shown when one row is selected, each one step to undo', async () => {
    const setup = await catalog();
    const { library } = setup;
    library.setCell(['id:A/02.flac'], columns.isrc, 'GBAYE2100002');
    expect(text(setup, '02.flac', 'outer_id')).toBe('02');
    render(BulkFixes, { grid: setup.grid });
    const panel = within(screen.getByRole('region', { name: 'Bulk fixes' }));
    panel.getByText(/Applies to all 3 tracks shown/);
    expect(button('split-artists').textContent).toBe('Split artists (1 track)');
    expect(button('isrc-as-outer-id').textContent).toBe('Use ISRC as outer_id (1 track)');
    expect(button('normalize-dates').textContent).toBe('Normalise dates (2 tracks)');

    await fireEvent.click(button('split-artists'));
    await library.validated();
    await tick();
    expect(text(setup, '01.flac', 'artists')).toBe('Aurora Vale · feat. Nils Berg');
    expect(button('split-artists').textContent).toBe('Split artists (nothing to fix)');
    expect(button('split-artists').disabled).toBe(true);

    await fireEvent.click(button('isrc-as-outer-id'));
    expect(['01.flac', '02.flac', '03.flac'].map((f) => text(setup, f, 'outer_id'))).toEqual([
      'GBAYE2100001',
      'GBAYE2100002',
      '03',
    ]);
    await fireEvent.click(button('normalize-dates'));
    expect(['01.flac', '02.flac', '03.flac'].map((f) => text(setup, f, 'release_date'))).toEqual([
      '2021-05-14',
      '2021-05-14',
      '2021-05-14',
    ]);
    expect(setup.grid.notice).toBe('Normalise dates: 2 tracks changed (Undo takes it back)');

    library.undo();
    expect(text(setup, '01.flac', 'release_date')).toBe('2021/5/14');
    expect(text(setup, '02.flac', 'outer_id')).toBe('GBAYE2100002');
    library.undo();
    expect(text(setup, '02.flac', 'outer_id')).toBe('02');
    expect(text(setup, '01.flac', 'artists')).toBe('Aurora Vale · feat. Nils Berg');
    library.undo();
    expect(text(setup, '01.flac', 'artists')).toBe('Aurora Vale feat. Nils Berg');
  });

  it('applies to the selection when it holds several tracks', async () => {
    const setup = await catalog();
    setup.grid.selectRows(1, 2);
    render(BulkFixes, { grid: setup.grid });
    screen.getByText(/Applies to the 2 tracks selected/);
    expect(button('normalize-dates').textContent).toBe('Normalise dates (1 track)');
    await fireEvent.click(button('normalize-dates'));
    expect(text(setup, '01.flac', 'release_date')).toBe('2021/5/14');
    expect(text(setup, '02.flac', 'release_date')).toBe('2021-05-14');
  });

  it("applies a finding's fix from the inspector: the ISRC as outer_id", async () => {
    const setup = await catalog();
    setup.library.setCell(['id:A/02.flac'], columns.isrc, 'GBAYE2100002');
    setup.library.setCell(['id:A/02.flac'], columns.outer_id, '');
    await setup.library.validated();
    setup.grid.selectRows(1, 1);
    render(Inspector, { grid: setup.grid });
    await tick();
    const use = screen.getByRole('button', { name: 'Use the ISRC GBAYE2100002 as outer_id' });
    await fireEvent.click(use);
    expect(text(setup, '02.flac', 'outer_id')).toBe('GBAYE2100002');
    expect(setup.library.undoLabel).toBe('Use ISRC as outer_id');
  });
});
