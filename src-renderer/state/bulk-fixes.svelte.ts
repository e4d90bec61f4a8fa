/**
 * The bulk menu's one-click fixes (split artists, ISRC as outer_id, normalised dates): which
 * tracks each would change, and applying one as a single undoable command. The rules are core's
 * (track-fixes); this only picks the tracks: the selection when it holds several, else every
 * track the view shows.
 */
import {
  applyTrackFix,
  trackFixContext,
  type TrackFixKind,
  trackFixKinds,
  trackFixLabels,
} from '../../src-main/core/model/track-fixes.js';
import type { GridState } from './grid-state.svelte.js';
import type { DraftEdit } from './library-state.svelte.js';

const tracks = (n: number) => `${n} track${n === 1 ? '' : 's'}`;

/** The bulk fixes over one grid. */
export class BulkFixes {
  constructor(private readonly grid: GridState) {}

  /** The tracks a fix applies to, and whether they are the selection. */
  readonly scope = $derived.by(() => {
    const selected = this.grid.selectedTracks;
    return selected.length > 1
      ? { ids: selected, selection: true }
      : { ids: this.grid.viewIds, selection: false };
  });

  /** "the 12 selected tracks" or "all 40 tracks shown". */
  readonly scopeText = $derived(
    this.scope.selection
      ? `the ${tracks(this.scope.ids.length)} selected`
      : `all ${tracks(this.scope.ids.length)} shown`,
  );

  /** For each fix, the edits it would make on the scope's tracks. */
  readonly edits = $derived.by(() => {
    const { library } = this.grid;
    const context = trackFixContext(
      library.rows.filter((row) => row.status === 'ready').map((row) => row.draft),
    );
    const edits = {} as Record<TrackFixKind, DraftEdit[]>;
    for (const kind of trackFixKinds) edits[kind] = [];
    for (const id of this.scope.ids) {
      const row = library.row(id);
      if (row?.status !== 'ready') continue;
      const findings = library.findings.get(id) ?? [];
      for (const kind of trackFixKinds) {
        const draft = applyTrackFix(kind, row.draft, findings, context);
        if (draft !== row.draft) edits[kind].push({ id, draft });
      }
    }
    return edits;
  });

  /** How many tracks a fix would change. */
  count(kind: TrackFixKind): number {
    return this.edits[kind].length;
  }

  /** Applies one fix to the scope's tracks as one undoable command; how many changed. */
  apply(kind: TrackFixKind): number {
    const { label } = trackFixLabels[kind];
    const n = this.grid.library.applyEdits(label, this.edits[kind]);
    this.grid.notice =
      n > 0
        ? `${label}: ${tracks(n)} changed (Undo takes it back)`
        : `${label}: nothing to change in ${this.scopeText}`;
    return n;
  }
}
