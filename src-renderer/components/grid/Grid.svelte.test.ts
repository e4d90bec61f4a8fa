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
    // The line edited is drawn anew when the edit ends: the header is looked up again.
    const edited = screen.getByRole('row', { name: /^Album Night Shift/ });
    expect(edited.querySelector('[data-column="album_type"]')!.textContent?.trim()).toBe('EP');
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

  it('shows each line in a reused row as it scrolls, and gives the rows in line order', async () => {
    // 120 tracks; every seventh has an invalid ISRC, and track 45 is left out of deliveries.
    const tags = Object.fromEntries(
      Array.from({ length: 120 }, (_, i) => [
        `A/${String(i + 1).padStart(3, '0')}.flac`,
        {
          title: `Song ${i + 1}`,
          isrc: i % 7 === 0 ? 'bad' : `GBAYE21${String(i).padStart(5, '0')}`,
        },
      ]),
    );
    const { grid, library } = await libraryWith(tags);
    library.setExcluded(['id:A/045.flac'], true);
    render(Grid, { grid });
    await tick();
    const table = screen.getByRole('grid', { name: 'Tracks' });
    const rows = () => [...document.querySelectorAll<HTMLElement>('[role="row"][data-row-id]')];
    const firstRow = rows()[0]!;
    const isrc = grid.visible.findIndex((c) => c.id === 'isrc');
    const title = grid.visible.findIndex((c) => c.id === 'title');

    /** Every row shows the line its aria-rowindex names, and aria-owns lists them in order. */
    const expectRowsFollowLines = () => {
      for (const row of rows()) {
        const index = Number(row.getAttribute('aria-rowindex')) - 2;
        const n = index + 1;
        expect(row.dataset.rowId).toBe(grid.lines[index]);
        const cells = row.querySelectorAll('[role="gridcell"]');
        expect(cells[title]!.textContent).toBe(`Song ${n}`);
        expect(cells[title]!.id).toBe(`cell-${index}-${title}`);
        expect(cells[isrc]!.getAttribute('aria-invalid')).toBe(index % 7 === 0 ? 'true' : null);
        expect(row.classList.contains('excluded')).toBe(n === 45);
      }
      const owned = table.getAttribute('aria-owns')!.split(' ');
      const order = owned.map((id) => Number(document.getElementById(id)!.ariaRowIndex));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(order[0]).toBe(1);
      expect(owned).toHaveLength(rows().length + 1);
    };
    expectRowsFollowLines();

    // jsdom lays nothing out: the scroller says where it is scrolled to.
    for (const line of [30, 31, 55, 0]) {
      Object.defineProperty(table, 'scrollTop', { value: line * 28, configurable: true });
      await fireEvent.scroll(table);
      await tick();
      expectRowsFollowLines();
    }
    // Scrolled away and back, the first line's row is the element it was: reused, not made anew.
    expect(rows()[0]).toBe(firstRow);
    expect(firstRow.getAttribute('aria-rowindex')).toBe('2');
  });
});

describe('Grid cells', () => {
  afterEach(cleanup);

  it('shows tag text as text, never as markup, and a file by its name first', async () => {
    const { grid } = await libraryWith({
      'Night Shift/01.flac': { title: '<img src=x onerror="alert(1)"> & <b>Bold</b>' },
    });
    render(Grid, { grid });
    await tick();
    const cell = (id: string) => document.querySelector(`[data-row-id] [data-column="${id}"]`)!;
    expect(cell('title').textContent).toBe('<img src=x onerror="alert(1)"> & <b>Bold</b>');
    expect(document.querySelector('[role="grid"] img, [role="grid"] b')).toBeNull();
    const file = cell('file');
    expect(file.querySelector('.name')!.textContent).toBe('01.flac');
    expect(file.querySelector('.folder')!.textContent).toBe('Night Shift/');
    expect(file.textContent).toBe('Night Shift/01.flac');
    expect(file.querySelector('.file-name')!.getAttribute('title')).toBe('Night Shift/01.flac');
    const status = cell('status').querySelector('[role="img"]')!;
    expect(status.getAttribute('aria-label')).toMatch(/^warning: /);
    expect(status.textContent).toBe('1');
    expect(status.querySelector('svg.icon')).not.toBeNull();
  });

  it('repaints a cell in place when its selection or text changes', async () => {
    const { grid } = await libraryWith({
      'A/01.flac': { title: 'One' },
      'A/02.flac': { title: 'Two' },
    });
    render(Grid, { grid });
    await tick();
    const title = grid.visible.findIndex((c) => c.id === 'title');
    const before = document.getElementById(`cell-1-${title}`)!;
    grid.select({ row: 1, col: title });
    await tick();
    const after = document.getElementById(`cell-1-${title}`)!;
    expect(after).toBe(before);
    expect(after.classList.contains('selected')).toBe(true);
    expect(after.classList.contains('active')).toBe(true);
    expect(after.getAttribute('aria-selected')).toBe('true');
    grid.select({ row: 0, col: title });
    await tick();
    expect(after.classList.contains('selected')).toBe(false);
    expect(after.getAttribute('aria-selected')).toBe('false');
  });
});
