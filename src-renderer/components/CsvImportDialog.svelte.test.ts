import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';

import { libraryWith } from '../../test/fakes/fake-library.js';
import { CsvImport } from '../state/csv-import.svelte.js';
import CsvImportDialog from './CsvImportDialog.svelte';

afterEach(cleanup);

/** The summary line as read (white space collapsed). */
const summary = () => (screen.getByTestId('csv-summary').textContent ?? '').replace(/\s+/g, ' ');

async function foghornAndEbb() {
  const { library } = await libraryWith({
    'Tides/CD1/06 Foghorn Blues.mp3': { title: 'Foghorn Blues', isrc: 'GBAYE2100006', track: '6' },
    'Tides/CD2/04 Ebb.m4a': { title: 'Ebb', isrc: 'GBAYE2100006', track: '4', upc: '' },
  });
  const csv = new CsvImport(
    library,
    new TextEncoder().encode(
      'file,isrc,title,upc\r\n' +
        'CD1/06 Foghorn Blues.mp3,GBAYE2100006,Foghorn Blues (Live),\r\n' +
        ',GBAYE2100006,Which one?,36000291452\r\n' +
        ',GBAYE2100099,Nobody,\r\n',
    ),
    'label.csv',
  );
  const closed: number[] = [];
  render(CsvImportDialog, { csv, onclose: (n: number) => closed.push(n) });
  return { library, csv, closed };
}

describe('CsvImportDialog', () => {
  it('counts matched, ambiguous and unmatched rows, and lists the candidates of an ambiguous one', async () => {
    await foghornAndEbb();
    expect(summary()).toMatch(/3 rows: 1 matched · 1 ambiguous · 1 unmatched — 1 change\b/);
    const ambiguous = screen.getByTestId('csv-ambiguous');
    expect(ambiguous.textContent).toContain(
      'Line 3 (ISRC GBAYE2100006) matches Tides/CD1/06 Foghorn Blues.mp3, Tides/CD2/04 Ebb.m4a',
    );
    const pick = within(ambiguous).getByRole('combobox', { name: 'Track for line 3' });
    expect([...pick.querySelectorAll('option')].map((o) => o.textContent)).toEqual([
      'Ambiguous: pick a track…',
      'Tides/CD1/06 Foghorn Blues.mp3',
      'Tides/CD2/04 Ebb.m4a',
      'Skip this row',
    ]);
    expect(screen.getByRole('button', { name: 'Apply 1 change' })).toBeTruthy();
  });

  it('applies the ambiguous row to the picked track only, with its UPC flagged as invalid', async () => {
    const { library, closed } = await foghornAndEbb();
    const pick = screen.getByRole('combobox', { name: 'Track for line 3' });
    await fireEvent.change(pick, { target: { value: 'Tides/CD2/04 Ebb.m4a' } });
    await tick();
    expect(summary()).toMatch(
      /3 rows: 2 matched · 0 ambiguous · 1 unmatched — 3 changes, 1 invalid/,
    );
    const changes = within(screen.getByRole('table', { name: 'Changes' }));
    expect(changes.getByText(/dropped its leading zero; the UPC is 036000291452/)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Apply 3 changes' }));
    expect(closed).toEqual([2]);
    expect(library.rows.map((row) => row.draft.title?.value)).toEqual([
      'Foghorn Blues (Live)',
      'Which one?',
    ]);
  });

  it('skips an ambiguous row on request: it is counted as skipped and changes nothing', async () => {
    await foghornAndEbb();
    const pick = screen.getByRole('combobox', { name: 'Track for line 3' });
    await fireEvent.change(pick, { target: { value: '\u0000skip' } });
    await tick();
    expect(summary()).toMatch(
      /3 rows: 1 matched · 0 ambiguous · 1 unmatched · 1 skipped — 1 change\b/,
    );
  });
});
