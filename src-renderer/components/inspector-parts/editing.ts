/** What the inspector's editors share: their props and the source of the values they set. */
import type { ValueSource } from '../../../src-main/core/model/track.js';
import type { GridState } from '../../state/grid-state.svelte.js';
import type { LibraryRow } from '../../state/library-state.svelte.js';

/** Where a value typed or picked in the inspector came from. */
export const manual: ValueSource = { kind: 'manual' };

/** The props of every editor: the grid that applies the edits, and the tracks it edits. */
export interface EditorProps {
  grid: GridState;
  rows: LibraryRow[];
  /** Some of the rows are not read yet. */
  disabled?: boolean;
}
