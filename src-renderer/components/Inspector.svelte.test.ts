import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';

import { fail, ok, type TagList } from '../../src-main/ipc/contract.js';
import { fakeDoor } from '../../test/fakes/courier-door.js';
import { libraryWith } from '../../test/fakes/fake-library.js';
import { TagsState } from '../state/tags-state.svelte.js';
import Grid from './grid/Grid.svelte';
import Inspector from './Inspector.svelte';

// jsdom has no layout: the grid's bind:clientHeight needs a ResizeObserver, which never fires here.
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};

const lexicology: TagList['tags'] = [
  { id: 't1', name: 'Mellow', category: { id: 'c1', name: 'Mood' } },
  { id: 't2', name: 'Melancholic', category: { id: 'c1', name: 'Mood' } },
  { id: 't3', name: 'Electronic', category: { id: 'c2', name: 'Genre' } },
];

/** A lexicology behind a fake door that counts how often it was asked. */
function tagsFor(tags = lexicology) {
  const door = { calls: 0 };
  const api = fakeDoor({
    async listTags() {
      door.calls++;
      return ok({ tags, total: tags.length, complete: true });
    },
  });
  return { tags: new TagsState(api), door };
}

async function twoTracks() {
  const setup = await libraryWith({
    'A/01.flac': { title: 'One', artist: 'Lena Park', album: 'Night Shift', track: '1' },
    'A/02.flac': { title: 'Two', artist: 'Sam Reed', album: 'Night Shift', track: '2' },
  });
  setup.grid.selectRows(0, 1);
  return setup;
}

const draftOf = (library: Awaited<ReturnType<typeof libraryWith>>['library'], file: string) =>
  library.row(`id:${file}`)!.draft;

describe('Inspector', () => {
  afterEach(cleanup);

  describe('artists', () => {
    it('shows the artists of several tracks as mixed and sets a role only where that artist is', async () => {
      const { grid, library, api } = await twoTracks();
      render(Inspector, { grid });
      const artists = within(screen.getByTestId('inspector-artists'));
      // Each artist is on one of the two selected tracks.
      expect(artists.getAllByText('1/2')).toHaveLength(2);

      const role = artists.getByRole('combobox', { name: 'Role of Sam Reed' });
      await fireEvent.change(role, { target: { value: 'Featured' } });
      expect(draftOf(library, 'A/02.flac').artists).toEqual({
        value: [{ name: 'Sam Reed', role: 'Featured' }],
        source: { kind: 'manual' },
      });
      // The other track, and every other field, stay as they were.
      expect(draftOf(library, 'A/01.flac')).toBe(library.row('id:A/01.flac')!.original);
      expect(draftOf(library, 'A/02.flac').title?.value).toBe('Two');
      expect(library.undoLabel).toBe('Set artist role');

      library.undo();
      expect(draftOf(library, 'A/02.flac').artists?.value).toEqual([
        { name: 'Sam Reed', role: 'Main' },
      ]);
      library.redo();
      expect(draftOf(library, 'A/02.flac').artists?.value[0]?.role).toBe('Featured');
      // Saved with the session like any other edit.
      await library.saveNow();
      const saved = api.saved.session!.rows.find((r) => r.id === 'id:A/02.flac')!;
      expect(saved.draft.artists?.value[0]?.role).toBe('Featured');
    });

    it('adds an artist to every selected track as one undo step, then reorders and removes it', async () => {
      const { grid, library } = await twoTracks();
      render(Inspector, { grid });
      await fireEvent.input(screen.getByRole('textbox', { name: 'New artist name' }), {
        target: { value: 'Theo Vance' },
      });
      await fireEvent.input(screen.getByRole('combobox', { name: 'New artist role' }), {
        target: { value: 'Composer' },
      });
      await fireEvent.click(screen.getByRole('button', { name: 'Add artist' }));
      for (const file of ['A/01.flac', 'A/02.flac']) {
        expect(draftOf(library, file).artists?.value.at(-1)).toEqual({
          name: 'Theo Vance',
          role: 'Composer',
        });
      }
      const artists = within(screen.getByTestId('inspector-artists'));
      await tick();
      // On both tracks now: no count. The lists differ, so there is no common order to change.
      expect(artists.getAllByText(/\/2/)).toHaveLength(2);
      expect(
        (artists.getByRole('button', { name: 'Move Theo Vance up' }) as HTMLButtonElement).disabled,
      ).toBe(true);

      grid.selectRows(0, 0);
      await tick();
      await fireEvent.click(screen.getByRole('button', { name: 'Move Theo Vance up' }));
      expect(draftOf(library, 'A/01.flac').artists?.value.map((a) => a.name)).toEqual([
        'Theo Vance',
        'Lena Park',
      ]);
      await fireEvent.click(screen.getByRole('button', { name: 'Remove Theo Vance (Composer)' }));
      expect(draftOf(library, 'A/01.flac').artists?.value).toEqual([
        { name: 'Lena Park', role: 'Main' },
      ]);
      // The inspector shows where the list came from and what it was.
      expect(screen.getByTestId('inspector').textContent).toContain('edited');

      library.undo();
      library.undo();
      library.undo();
      expect(draftOf(library, 'A/02.flac').artists?.value).toEqual([
        { name: 'Sam Reed', role: 'Main' },
      ]);
    });

    it("sets an artist's own id on the selected tracks that have that artist, shown mixed first", async () => {
      const { grid, library, api } = await libraryWith({
        'A/01.flac': { title: 'One', artist: 'Lena Park' },
        'A/02.flac': { title: 'Two', artist: 'Lena Park' },
        'B/01.flac': { title: 'Other', artist: 'Sam Reed' },
      });
      const first = draftOf(library, 'A/01.flac');
      library.applyEdits('Id', [
        {
          id: 'id:A/01.flac',
          draft: {
            ...first,
            artists: {
              value: [{ ...first.artists!.value[0]!, id: 'art-1' }],
              source: { kind: 'manual' },
            },
          },
        },
      ]);
      grid.selectRows(0, 2);
      render(Inspector, { grid });
      const lena = screen.getByRole('textbox', { name: 'Artist id of Lena Park (Main)' });
      expect((lena as HTMLInputElement).value).toBe('');
      expect(lena.getAttribute('placeholder')).toBe('(mixed)');
      const sam = screen.getByRole('textbox', { name: 'Artist id of Sam Reed (Main)' });
      // No id of its own: the name is what the delivery sends, and the inspector says so.
      expect((sam as HTMLInputElement).value).toBe('');
      expect(sam.closest('li')!.textContent).toContain('id from name');
      expect(lena.closest('li')!.textContent).not.toContain('id from name');

      const other = draftOf(library, 'B/01.flac');
      await fireEvent.change(lena, { target: { value: ' LP-7 ' } });
      for (const file of ['A/01.flac', 'A/02.flac']) {
        expect(draftOf(library, file).artists).toEqual({
          value: [{ name: 'Lena Park', role: 'Main', id: 'LP-7' }],
          source: { kind: 'manual' },
        });
      }
      expect(draftOf(library, 'B/01.flac')).toBe(other);
      expect(library.undoLabel).toBe('Set artist id');
      await tick();
      expect((lena as HTMLInputElement).value).toBe('LP-7');

      // One undo step restores both tracks' own ids.
      library.undo();
      expect(draftOf(library, 'A/01.flac').artists?.value[0]?.id).toBe('art-1');
      expect(draftOf(library, 'A/02.flac').artists?.value[0]?.id).toBeUndefined();
      library.redo();

      // Emptied on one track, the id goes: the name is sent instead.
      grid.selectRows(0, 0);
      await tick();
      const only = screen.getByRole('textbox', { name: 'Artist id of Lena Park (Main)' });
      await fireEvent.change(only, { target: { value: '' } });
      expect(draftOf(library, 'A/01.flac').artists?.value).toEqual([
        { name: 'Lena Park', role: 'Main' },
      ]);
      expect(draftOf(library, 'A/02.flac').artists?.value[0]?.id).toBe('LP-7');
      // The other track shows what its artists were before the id.
      grid.selectRows(1, 1);
      await tick();
      expect(screen.getByTestId('inspector').textContent).toContain(
        'edited · was Lena Park (Main)',
      );
      await library.saveNow();
      const saved = api.saved.session!.rows.find((r) => r.id === 'id:A/02.flac')!;
      expect(saved.draft.artists?.value[0]?.id).toBe('LP-7');
    });

    it("gives an artist's id to every track of the library that names it, in one undoable step", async () => {
      const { grid, library } = await libraryWith({
        'A/01.flac': { title: 'One', artist: 'Lena Park' },
        'A/02.flac': { title: 'Two', artist: 'Lena Park' },
        'B/01.flac': { title: 'Three', artist: 'Lena Park' },
        'C/01.flac': { title: 'Other', artist: 'Sam Reed' },
      });
      grid.selectRows(0, 0);
      render(Inspector, { grid });
      expect(screen.queryByTestId('artist-id-everywhere')).toBeNull();
      const id = screen.getByRole('textbox', { name: 'Artist id of Lena Park (Main)' });
      await fireEvent.change(id, { target: { value: 'LP-7' } });
      await tick();
      // The two other tracks of Lena Park still send her name.
      const everywhere = screen.getByTestId('artist-id-everywhere');
      expect(everywhere.textContent).toBe('Use on 2 more tracks');
      expect(screen.queryByTestId('artist-id-from-name')).toBeNull();

      await fireEvent.click(everywhere);
      for (const file of ['A/01.flac', 'A/02.flac', 'B/01.flac']) {
        expect(draftOf(library, file).artists?.value).toEqual([
          { name: 'Lena Park', role: 'Main', id: 'LP-7' },
        ]);
      }
      expect(draftOf(library, 'C/01.flac').artists?.value).toEqual([
        { name: 'Sam Reed', role: 'Main' },
      ]);
      await tick();
      expect(screen.queryByTestId('artist-id-everywhere')).toBeNull();
      expect(library.undoLabel).toBe('Set id of Lena Park everywhere');

      library.undo();
      expect(draftOf(library, 'B/01.flac').artists?.value).toEqual([
        { name: 'Lena Park', role: 'Main' },
      ]);
      expect(draftOf(library, 'A/01.flac').artists?.value[0]?.id).toBe('LP-7');
    });

    it('keeps an artist whose name is emptied as it was', async () => {
      const { grid, library } = await twoTracks();
      grid.selectRows(0, 0);
      render(Inspector, { grid });
      const name = screen.getByRole('textbox', { name: 'Artist name: Lena Park' });
      await fireEvent.change(name, { target: { value: '  ' } });
      expect((name as HTMLInputElement).value).toBe('Lena Park');
      expect(library.undoLabel).toBeUndefined();
    });
  });

  describe('artist splits', () => {
    /** A grid and inspector side by side over tracks credited the way taggers write them. */
    async function credits() {
      const setup = await libraryWith({
        'A/01.flac': { title: 'Whole Lotta Rosie', artist: 'AC/DC feat. Bon Scott' },
        'A/02.flac': { title: 'Thunderstruck', artist: 'AC/DC' },
        'A/03.flac': { title: 'Black Coffee', artist: 'Beth Hart & Joe Bonamassa' },
        'A/04.flac': { title: 'September', artist: 'Earth, Wind & Fire' },
      });
      await setup.library.validated();
      render(Grid, { grid: setup.grid });
      return setup;
    }
    const artistsCell = (file: string) =>
      document.querySelector(`[data-row-id="id:${file}"] [data-column="artists"]`)!;
    const problems = () => screen.queryByRole('list', { name: 'Problems' });

    it('offers a split only where it is likely, and applies it on one click, undone in one step', async () => {
      const { grid, library } = await credits();
      // One name: neither "AC/DC" nor "Earth, Wind & Fire" is offered a split.
      for (const row of [1, 3]) {
        grid.selectRows(row, row);
        const { unmount } = render(Inspector, { grid });
        expect(problems()).toBeNull();
        expect(screen.queryByRole('button', { name: /^Split/ })).toBeNull();
        unmount();
      }

      grid.selectRows(0, 0);
      render(Inspector, { grid });
      expect(within(problems()!).getByRole('listitem').textContent).toContain(
        "'AC/DC feat. Bon Scott' looks like several artists; split into AC/DC (Main), Bon Scott (Featured)?",
      );
      expect(artistsCell('A/01.flac').getAttribute('title')).toMatch(/looks like several artists/);
      expect(screen.queryByRole('button', { name: /^Split all/ })).toBeNull();

      await fireEvent.click(screen.getByRole('button', { name: 'Split AC/DC feat. Bon Scott' }));
      await library.validated();
      await tick();
      expect(artistsCell('A/01.flac').textContent?.trim()).toBe('AC/DC · feat. Bon Scott');
      expect(artistsCell('A/01.flac').getAttribute('title')).toBeNull();
      expect(problems()).toBeNull();
      const artists = within(screen.getByTestId('inspector-artists'));
      expect(
        (artists.getByRole('combobox', { name: 'Role of Bon Scott' }) as HTMLInputElement).value,
      ).toBe('Featured');
      expect(library.undoLabel).toBe('Split artists');
      // The other tracks are left alone.
      expect(artistsCell('A/03.flac').textContent?.trim()).toBe('Beth Hart & Joe Bonamassa');

      library.undo();
      await library.validated();
      await tick();
      expect(artistsCell('A/01.flac').textContent?.trim()).toBe('AC/DC feat. Bon Scott');
      expect(screen.getByRole('button', { name: 'Split AC/DC feat. Bon Scott' })).toBeTruthy();
    });

    it("splits every selected track's own credit with Split all, as one command", async () => {
      const { grid, library } = await credits();
      grid.selectAll();
      render(Inspector, { grid });
      const all = screen.getByRole('button', { name: 'Split all 2' });
      expect(within(problems()!).getAllByRole('button', { name: /^Split / })).toHaveLength(2);

      await fireEvent.click(all);
      await library.validated();
      await tick();
      expect(artistsCell('A/01.flac').textContent?.trim()).toBe('AC/DC · feat. Bon Scott');
      expect(artistsCell('A/02.flac').textContent?.trim()).toBe('AC/DC');
      expect(artistsCell('A/03.flac').textContent?.trim()).toBe('Beth Hart; Joe Bonamassa');
      expect(artistsCell('A/04.flac').textContent?.trim()).toBe('Earth, Wind & Fire');
      expect(screen.queryByRole('button', { name: /^Split/ })).toBeNull();
      expect(grid.notice).toBe('Split artists: 2 tracks');

      library.undo();
      await library.validated();
      await tick();
      expect(artistsCell('A/01.flac').textContent?.trim()).toBe('AC/DC feat. Bon Scott');
      expect(artistsCell('A/03.flac').textContent?.trim()).toBe('Beth Hart & Joe Bonamassa');
      expect(screen.getByRole('button', { name: 'Split all 2' })).toBeTruthy();
    });

    it('applies one listed split to every selected track that has it', async () => {
      const { grid, library } = await libraryWith({
        'A/01.flac': { title: 'One', artist: 'Jay-Z feat. Alicia Keys' },
        'A/02.flac': { title: 'Two', artist: 'Jay-Z feat. Alicia Keys' },
        'A/03.flac': { title: 'Three', artist: 'Jay-Z ft. Rihanna' },
      });
      await library.validated();
      grid.selectAll();
      render(Inspector, { grid });
      // The same suggestion on two tracks is listed once.
      expect(within(problems()!).getAllByRole('listitem')).toHaveLength(2);
      await fireEvent.click(screen.getByRole('button', { name: 'Split Jay-Z feat. Alicia Keys' }));
      for (const file of ['A/01.flac', 'A/02.flac']) {
        expect(draftOf(library, file).artists?.value).toEqual([
          { name: 'Jay-Z', role: 'Main' },
          { name: 'Alicia Keys', role: 'Featured' },
        ]);
      }
      expect(draftOf(library, 'A/03.flac')).toBe(library.row('id:A/03.flac')!.original);
    });
  });

  describe('customer tags', () => {
    it('picks a tag from the lexicology by name and category with the keyboard, for every selected track', async () => {
      const { grid, library } = await twoTracks();
      const { tags, door } = tagsFor();
      render(Inspector, { grid, tags, profile: 'Sandbox' });
      const picker = screen.getByRole('combobox', { name: 'Add customer tag' });
      await fireEvent.focus(picker);
      await tags.load('Sandbox');
      await fireEvent.change(screen.getByRole('combobox', { name: 'Tag category' }), {
        target: { value: 'Mood' },
      });
      await fireEvent.input(picker, { target: { value: 'mel' } });
      expect(screen.getByTestId('tag-picker-status').textContent).toContain('2 matching tags');
      const listbox = within(screen.getByRole('listbox', { name: 'Tags' }));
      const options = listbox
        .getAllByRole('option')
        .map((o) => o.textContent?.replace(/\s+/g, ' ').trim());
      expect(options).toEqual([
        'Mellow Mood',
        'Melancholic Mood',
        expect.stringContaining('Add “mel” as a free Mood tag (not in the lexicology)'),
      ]);

      await fireEvent.keyDown(picker, { key: 'ArrowDown' });
      expect(picker.getAttribute('aria-activedescendant')).toBe(
        listbox.getAllByRole('option')[0]!.id,
      );
      await fireEvent.keyDown(picker, { key: 'Enter' });
      for (const file of ['A/01.flac', 'A/02.flac']) {
        expect(draftOf(library, file).customerTags).toEqual({
          value: [{ tag: 'Mellow', category: 'Mood' }],
          source: { kind: 'manual' },
        });
      }
      expect(library.undoLabel).toBe('Add customer tag');
      expect(door.calls).toBe(1);

      await tick();
      await fireEvent.click(
        screen.getByRole('button', { name: 'Remove customer tag Mood: Mellow' }),
      );
      expect(draftOf(library, 'A/01.flac').customerTags).toBeUndefined();
      library.undo();
      expect(draftOf(library, 'A/01.flac').customerTags?.value).toHaveLength(1);
    });

    it('Enter picks the only lexicology match, never the typed text as a free tag', async () => {
      const { grid, library } = await twoTracks();
      const { tags } = tagsFor();
      render(Inspector, { grid, tags, profile: 'Sandbox' });
      const picker = screen.getByRole('combobox', { name: 'Add customer tag' });
      await fireEvent.focus(picker);
      await tags.load('Sandbox');
      // Several match: Enter adds nothing and says how to choose.
      await fireEvent.input(picker, { target: { value: 'mel' } });
      await fireEvent.keyDown(picker, { key: 'Enter' });
      expect(draftOf(library, 'A/01.flac').customerTags).toBeUndefined();
      expect(screen.getByTestId('tag-picker-status').textContent).toMatch(
        /2 tags match “mel”: pick one with the arrow keys/,
      );
      // One matches: Enter picks it (the reported "melan" + Enter case).
      await fireEvent.input(picker, { target: { value: 'melan' } });
      await fireEvent.keyDown(picker, { key: 'Enter' });
      expect(draftOf(library, 'A/01.flac').customerTags?.value).toEqual([
        { tag: 'Melancholic', category: 'Mood' },
      ]);
      // A free tag only when chosen as one, and it looks different from the service's tags.
      await fireEvent.input(picker, { target: { value: 'melan' } });
      await fireEvent.keyDown(picker, { key: 'ArrowDown' });
      await fireEvent.keyDown(picker, { key: 'ArrowDown' });
      await fireEvent.keyDown(picker, { key: 'Enter' });
      await tick();
      const items = screen.getByTestId('inspector-customerTags').querySelectorAll('li');
      const shown = [...items].map((li) => li.textContent?.replace(/\s+/g, ' ').trim());
      expect(shown[0]).toBe('Mood: Melancholic');
      expect(shown[1]).toBe('Genre: melan free');
    });

    it('says plainly that there is no lexicology without a profile, and adds a typed tag', async () => {
      const { grid, library } = await twoTracks();
      const { tags, door } = tagsFor();
      render(Inspector, { grid, tags, profile: null });
      const picker = screen.getByRole('combobox', { name: 'Add customer tag' });
      await fireEvent.focus(picker);
      expect(screen.getByTestId('tag-picker-status').textContent).toMatch(
        /No profile is active, so the lexicology can’t be loaded/,
      );
      await fireEvent.input(picker, { target: { value: 'Late Night' } });
      await fireEvent.keyDown(picker, { key: 'Enter' });
      expect(draftOf(library, 'A/01.flac').customerTags?.value).toEqual([
        { tag: 'Late Night', category: 'Genre' },
      ]);
      expect(door.calls).toBe(0);
    });

    it('shows why the lexicology could not be loaded', async () => {
      const { grid } = await twoTracks();
      const api = fakeDoor({
        listTags: async () => fail('network', 'The service is unreachable.'),
      });
      const tags = new TagsState(api);
      render(Inspector, { grid, tags, profile: 'Production' });
      await fireEvent.focus(screen.getByRole('combobox', { name: 'Add customer tag' }));
      await tags.load('Production');
      await tick();
      expect(screen.getByTestId('tag-picker-status').textContent).toContain(
        'The lexicology could not be loaded: The service is unreachable.',
      );
    });
  });

  describe('references and album details', () => {
    it('adds a reference to the selected tracks and an album release date to their album', async () => {
      const { grid, library } = await libraryWith({
        'A/01.flac': { title: 'One', album: 'Night Shift', upc: '5099902988023' },
        'A/02.flac': { title: 'Two', album: 'Night Shift', upc: '5099902988023' },
        'B/01.flac': { title: 'Other', album: 'Elsewhere' },
      });
      grid.selectRows(0, 0);
      render(Inspector, { grid });
      const references = screen.getAllByRole('textbox', { name: 'New reference source' })[0]!;
      await fireEvent.input(references, { target: { value: 'isni' } });
      const id = screen.getByRole('textbox', { name: 'New reference id' });
      await fireEvent.input(id, { target: { value: '0000000121032683' } });
      await fireEvent.keyDown(id, { key: 'Enter' });
      expect(draftOf(library, 'A/01.flac').references?.value).toEqual([
        { source: 'isni', id: '0000000121032683' },
      ]);
      expect(draftOf(library, 'A/02.flac').references).toBeUndefined();

      const date = screen.getByLabelText('Album release date');
      await fireEvent.change(date, { target: { value: '2021-05-14' } });
      // Album-level: the whole album, not the other one.
      for (const file of ['A/01.flac', 'A/02.flac']) {
        expect(draftOf(library, file).album?.releaseDate).toEqual({
          value: '2021-05-14',
          source: { kind: 'manual' },
        });
      }
      expect(draftOf(library, 'B/01.flac').album?.releaseDate).toBeUndefined();
      library.undo();
      expect(draftOf(library, 'A/02.flac').album?.releaseDate).toBeUndefined();
    });

    it('edits a reference in place on the selected tracks that have it, and an album reference on its album', async () => {
      const { grid, library, api } = await libraryWith({
        'A/01.flac': { title: 'One', album: 'Night Shift', upc: '5099902988023' },
        'A/02.flac': { title: 'Two', album: 'Night Shift', upc: '5099902988023' },
        'B/01.flac': { title: 'Other', album: 'Elsewhere' },
      });
      const isni = { source: 'isni', id: '0000000121032683' };
      grid.selectRows(0, 1);
      grid.editSelection('Add reference', (d) => ({
        ...d,
        references: { value: [isni], source: { kind: 'manual' } },
      }));
      const other = draftOf(library, 'B/01.flac');
      grid.selectRows(0, 2);
      render(Inspector, { grid });
      const references = within(screen.getByTestId('inspector-references'));
      expect(references.getByText('2/3')).toBeTruthy();

      const id = references.getByRole('textbox', {
        name: 'Id of reference isni: 0000000121032683',
      });
      await fireEvent.change(id, { target: { value: ' 0000000121032684 ' } });
      for (const file of ['A/01.flac', 'A/02.flac']) {
        expect(draftOf(library, file).references).toEqual({
          value: [{ source: 'isni', id: '0000000121032684' }],
          source: { kind: 'manual' },
        });
      }
      expect(draftOf(library, 'B/01.flac')).toBe(other);
      expect(library.undoLabel).toBe('Edit reference');
      await tick();

      // Emptied, a part goes back to what it was.
      const source = references.getByRole('textbox', {
        name: 'Source of reference isni: 0000000121032684',
      });
      await fireEvent.change(source, { target: { value: ' ' } });
      expect((source as HTMLInputElement).value).toBe('isni');
      expect(library.undoLabel).toBe('Edit reference');

      // One undo step for both tracks.
      library.undo();
      expect(draftOf(library, 'A/02.flac').references?.value).toEqual([isni]);
      expect(draftOf(library, 'A/01.flac').references?.value).toEqual([isni]);

      // An album reference edited on one track changes on its whole album.
      grid.selectRows(0, 0);
      await tick();
      await fireEvent.input(screen.getByRole('textbox', { name: 'New album reference source' }), {
        target: { value: 'grid' },
      });
      const newId = screen.getByRole('textbox', { name: 'New album reference id' });
      await fireEvent.input(newId, { target: { value: 'A1-123' } });
      await fireEvent.keyDown(newId, { key: 'Enter' });
      await tick();
      const albumSource = within(screen.getByTestId('inspector-albumReferences')).getByRole(
        'textbox',
        { name: 'Source of album reference grid: A1-123' },
      );
      await fireEvent.change(albumSource, { target: { value: 'grid-code' } });
      for (const file of ['A/01.flac', 'A/02.flac']) {
        expect(draftOf(library, file).album?.references?.value).toEqual([
          { source: 'grid-code', id: 'A1-123' },
        ]);
      }
      expect(draftOf(library, 'B/01.flac')).toBe(other);
      await library.saveNow();
      const saved = api.saved.session!.rows.find((r) => r.id === 'id:A/02.flac')!;
      expect(saved.draft.album?.references?.value[0]?.source).toBe('grid-code');
    });

    it('shows a field that differs across the selection as mixed and leaves it alone', async () => {
      const { grid, library } = await libraryWith({
        'A/01.flac': { title: 'One', album: 'Night Shift' },
        'A/02.flac': { title: 'Two', album: 'Night Shift' },
      });
      library.applyEdits('Label', [
        {
          id: 'id:A/01.flac',
          draft: {
            ...draftOf(library, 'A/01.flac'),
            album: {
              ...draftOf(library, 'A/01.flac').album,
              label: { value: 'Dusk', source: { kind: 'manual' } },
            },
          },
        },
      ]);
      grid.selectRows(0, 1);
      render(Inspector, { grid });
      expect(screen.getByLabelText('Label').getAttribute('placeholder')).toBe('(mixed)');
      const catalog = screen.getByLabelText('Catalog number');
      await fireEvent.change(catalog, { target: { value: 'DSK-001' } });
      expect(draftOf(library, 'A/01.flac').album?.label?.value).toBe('Dusk');
      expect(draftOf(library, 'A/02.flac').album?.label).toBeUndefined();
      expect(draftOf(library, 'A/02.flac').album?.catalogNumber?.value).toBe('DSK-001');
    });
  });

  describe('lyrics', () => {
    it('shows differing lyrics as mixed, sets typed lyrics on every selected track and leaves them alone otherwise', async () => {
      const { grid, library, api } = await libraryWith({
        'A/01.flac': { title: 'One' },
        'A/02.flac': { title: 'Two' },
        'B/01.flac': { title: 'Other' },
      });
      const manual = { kind: 'manual' as const };
      library.applyEdits('Lyrics', [
        {
          id: 'id:A/01.flac',
          draft: {
            ...draftOf(library, 'A/01.flac'),
            lyrics: { value: 'First verse', source: manual },
          },
        },
      ]);
      grid.selectRows(0, 1);
      render(Inspector, { grid });
      const lyrics = screen.getByRole('textbox', { name: 'Lyrics' }) as HTMLTextAreaElement;
      expect(lyrics.value).toBe('');
      expect(lyrics.placeholder).toBe('(mixed)');

      // Focused and left without typing: nothing changes.
      await fireEvent.focus(lyrics);
      await fireEvent.blur(lyrics);
      expect(library.undoLabel).toBe('Lyrics');
      expect(draftOf(library, 'A/02.flac').lyrics).toBeUndefined();

      const other = draftOf(library, 'B/01.flac');
      await fireEvent.change(lyrics, { target: { value: 'Night falls\nover the harbour' } });
      for (const file of ['A/01.flac', 'A/02.flac']) {
        expect(draftOf(library, file).lyrics).toEqual({
          value: 'Night falls\nover the harbour',
          source: manual,
        });
      }
      expect(draftOf(library, 'B/01.flac')).toBe(other);
      expect(library.undoLabel).toBe('Edit lyrics');
      await tick();
      expect(lyrics.placeholder).toBe('');
      expect(lyrics.value).toBe('Night falls\nover the harbour');

      // One undo step: each track gets its own lyrics back.
      library.undo();
      expect(draftOf(library, 'A/01.flac').lyrics?.value).toBe('First verse');
      expect(draftOf(library, 'A/02.flac').lyrics).toBeUndefined();
      library.redo();
      await library.saveNow();
      const saved = api.saved.session!.rows.find((r) => r.id === 'id:A/02.flac')!;
      expect(saved.draft.lyrics?.value).toBe('Night falls\nover the harbour');
    });
  });
});
