import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';

import { libraryWith } from '../../test/fakes/fake-library.js';
import { columns } from '../state/columns.js';
import FindReplace from './FindReplace.svelte';

async function setup() {
  const setup = await libraryWith({
    'A/01.flac': { title: 'Live at Night (Live)', artist: 'Lena Park' },
    'A/02.flac': { title: 'Night Drive (live)', artist: 'Lena Park' },
    'A/03.flac': { title: 'Morning', artist: 'Lena Park' },
  });
  render(FindReplace, { grid: setup.grid });
  return setup;
}

const titles = (library: Awaited<ReturnType<typeof setup>>['library']) =>
  library.rows.map((r) => columns.title.get(r.draft));

describe('FindReplace', () => {
  afterEach(cleanup);

  it('counts matches live while the user types', async () => {
    await setup();
    const find = screen.getByRole('textbox', { name: 'Find' });
    const summary = screen.getByTestId('find-summary');
    await fireEvent.input(find, { target: { value: 'live' } });
    expect(summary.textContent).toBe('3 matches in 2 tracks');
    await fireEvent.input(find, { target: { value: 'night' } });
    expect(summary.textContent).toBe('2 matches in 2 tracks');
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Match case' }));
    expect(summary.textContent).toBe('No match in 3 tracks');
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Regular expression' }));
    await fireEvent.input(find, { target: { value: '(' } });
    expect(summary.textContent).toMatch(/^Not a valid regular expression/);
    expect(screen.getByRole('button', { name: 'Replace all' })).toHaveProperty('disabled', true);
  });

  it('previews before → after, then replaces as one undoable command', async () => {
    const { library } = await setup();
    await fireEvent.change(screen.getByRole('combobox', { name: 'Column' }), {
      target: { value: 'title' },
    });
    await fireEvent.input(screen.getByRole('textbox', { name: 'Find' }), {
      target: { value: ' (live)' },
    });
    await fireEvent.input(screen.getByRole('textbox', { name: 'Replace with' }), {
      target: { value: '' },
    });
    await tick();
    const preview = screen.getByRole('list', { name: 'What Replace all changes' });
    expect(
      [...preview.querySelectorAll('li')].map((li) => li.textContent?.replace(/\s+/g, ' ').trim()),
    ).toEqual([
      'Title of A/01.flac: Live at Night (Live) → Live at Night',
      'Title of A/02.flac: Night Drive (live) → Night Drive',
    ]);
    expect(titles(library)).toEqual(['Live at Night (Live)', 'Night Drive (live)', 'Morning']);
    await fireEvent.click(screen.getByRole('button', { name: 'Replace all' }));
    expect(titles(library)).toEqual(['Live at Night', 'Night Drive', 'Morning']);
    expect(screen.getByTestId('find-summary').textContent).toBe('No match in 3 tracks');
    expect(library.undoLabel).toBe('Replace');
    library.undo();
    expect(titles(library)).toEqual(['Live at Night (Live)', 'Night Drive (live)', 'Morning']);
  });
});
