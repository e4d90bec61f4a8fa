import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';

import { libraryWith } from '../../../test/fakes/fake-library.js';
import Grid from './Grid.svelte';

// jsdom has no layout: bind:clientHeight needs a ResizeObserver, which never fires here.
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};

describe('Grid', () => {
  afterEach(cleanup);

  it('is an ARIA grid usable from the keyboard alone', async () => {
    const { grid } = await libraryWith({
      'A/01.flac': { title: 'One', isrc: 'GBAYE2100001' },
      'A/02.flac': { title: 'Two', isrc: 'bad' },
    });
    render(Grid, { grid });
    const table = screen.getByRole('grid', { name: 'Tracks' });
    expect(table.getAttribute('aria-rowcount')).toBe('3');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent?.trim())).toContain('ISRC');

    const isrc = grid.visible.findIndex((c) => c.id === 'isrc');
    grid.select({ row: 1, col: isrc });
    await fireEvent.keyDown(table, { key: 'ArrowUp' });
    expect(table.getAttribute('aria-activedescendant')).toBe(`cell-0-${isrc}`);

    const invalid = document.getElementById(`cell-1-${isrc}`)!;
    expect(invalid.getAttribute('aria-invalid')).toBe('true');
    expect(invalid.getAttribute('title')).toMatch(/is not valid/);

    await fireEvent.keyDown(table, { key: 'ArrowDown' });
    await fireEvent.keyDown(table, { key: 'F2' });
    const editor = screen.getByRole('textbox', { name: 'ISRC of A/02.flac' });
    await fireEvent.input(editor, { target: { value: 'GBAYE2100002' } });
    await fireEvent.keyDown(editor, { key: 'Enter' });
    await grid.library.validated();
    await tick();
    expect(document.getElementById(`cell-1-${isrc}`)!.textContent?.trim()).toBe('GBAYE2100002');
    expect(document.getElementById(`cell-1-${isrc}`)!.getAttribute('aria-invalid')).toBeNull();
  });

  it('shows an album header row when grouped, and edits the album type once there', async () => {
    const { grid, library } = await libraryWith({
      'A/01.flac': { title: 'One', artist: 'Lena Park', album: 'Night Shift', track: '1' },
      'A/03.flac': { title: 'Three', artist: 'Lena Park', album: 'Night Shift', track: '3' },
    });
    grid.groupByAlbum = true;
    render(Grid, { grid });
    await tick();
    const table = screen.getByRole('grid', { name: 'Tracks' });
    expect(table.getAttribute('aria-rowcount')).toBe('4');
    const header = screen.getByRole('row', { name: /^Album Night Shift/ });
    expect(header.getAttribute('aria-label')).toBe(
      'Album Night Shift, by Lena Park, 2 tracks, no track 2',
    );
    expect(header.querySelector('[data-column="track"]')!.textContent?.trim()).toBe('−2');
    const label = 'Night Shift — Lena Park · 2 tracks · no track 2';
    expect(header.querySelector('[data-column="file"]')!.textContent?.trim()).toBe(label);
    // The label runs across the blank File and Title cells up to Artists, each of which keeps
    // its own cell (and the full label as tooltip); the album cells stay editable.
    const spanned = ['file', 'title'];
    const width = grid.visible
      .filter((c) => spanned.includes(c.id))
      .reduce((sum, c) => sum + grid.widthOf(c), 0);
    expect(header.querySelector<HTMLElement>('.album-label')!.style.width).toBe(
      `calc(${width}px - 1rem)`,
    );
    for (const id of spanned) {
      const cell = header.querySelector(`[data-column="${id}"]`)!;
      expect(cell.getAttribute('title')).toBe(label);
      expect(cell.getAttribute('role')).toBe('gridcell');
    }
    expect(header.querySelector('[data-column="artists"]')!.getAttribute('title')).toBe(
      'Lena Park',
    );

    const type = grid.visible.findIndex((c) => c.id === 'album_type');
    grid.select({ row: 0, col: type });
    await fireEvent.keyDown(table, { key: 'Enter' });
    const editor = screen.getByRole('textbox', { name: 'Album type of album Night Shift' });
    await fireEvent.input(editor, { target: { value: 'EP' } });
    await fireEvent.keyDown(editor, { key: 'Enter' });
    await tick();
    expect(
      [...document.querySelectorAll('[data-row-id] [data-column="album_type"]')].map((c) =>
        c.textContent?.trim(),
      ),
    ).toEqual(['EP', 'EP']);
    expect(header.querySelector('[data-column="album_type"]')!.textContent?.trim()).toBe('EP');
    await fireEvent.keyDown(table, { key: 'z', ctrlKey: true });
    await tick();
    expect(library.row('id:A/03.flac')!.draft.album?.type).toBeUndefined();
  });

  it('adds rows to the selection with Ctrl/Cmd-click and extends with Shift-click', async () => {
    const { grid } = await libraryWith({
      'A/01.flac': { title: 'One' },
      'A/02.flac': { title: 'Two' },
      'A/03.flac': { title: 'Three' },
      'A/04.flac': { title: 'Four' },
    });
    render(Grid, { grid });
    await tick();
    const title = grid.visible.findIndex((c) => c.id === 'title');
    const cell = (row: number) => document.getElementById(`cell-${row}-${title}`)!;
    const selected = () =>
      [0, 1, 2, 3].filter((row) => cell(row).getAttribute('aria-selected') === 'true');
    await fireEvent.mouseDown(cell(0), { button: 0 });
    await fireEvent.mouseDown(cell(2), { button: 0, ctrlKey: true });
    expect(selected()).toEqual([0, 2]);
    await fireEvent.mouseDown(cell(3), { button: 0, shiftKey: true });
    expect(selected()).toEqual([0, 2, 3]);
    expect(document.querySelectorAll('.row.selected-row')).toHaveLength(3);
    await fireEvent.mouseDown(cell(1), { button: 0 });
    expect(selected()).toEqual([1]);
  });
});
