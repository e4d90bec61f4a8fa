import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';

import { libraryWith } from '../../../test/fakes/fake-library.js';
import { DeliverState } from '../../state/deliver-state.svelte.js';
import MappingBuilder from './MappingBuilder.svelte';

afterEach(cleanup);

describe('MappingBuilder', () => {
  it('opens with a column per part of 5-part names, each of which may be ignored', async () => {
    const { library, api } = await libraryWith({
      'A/MAP-001_First Light_GBAYE2300101_20230102_Mara Quinn.wav': {},
      'A/MAP-002_Second Wind_GBAYE2300102_20230102_Mara Quinn.wav': {},
    });
    const deliver = new DeliverState(api, library);
    render(MappingBuilder, { deliver });
    const selects = await screen.findAllByRole('combobox', { name: /^Column \d$/ });
    expect(selects.map((s) => (s as HTMLSelectElement).value)).toEqual([
      'outer_id',
      'title',
      'isrc',
      'release_date',
      'ignore',
    ]);
    expect(screen.getByTestId('mapping-fit').textContent).toMatch(/2 of 2 file name\(s\)\s+fit/);
    const options = [...(selects[3] as HTMLSelectElement).options].map((o) => o.textContent);
    expect(options).toContain('ignore this part');
    await fireEvent.change(selects[3]!, { target: { value: 'ignore' } });
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'File name',
      'outer_id',
      'title',
      'isrc',
      '(ignored)',
      '(ignored)',
      'Note',
    ]);
    expect(screen.getByTestId('mapping-fit').textContent).toMatch(/2 of 2/);
  });
});
