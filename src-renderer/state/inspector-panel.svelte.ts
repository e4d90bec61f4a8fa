/**
 * Whether the Library shows its inspector beside the grid. Collapsing it gives the grid the
 * window's width (at 1280×720 the main columns fit only then). A layout preference, kept in
 * local storage as the grid keeps its columns.
 */
const storageKey = 'courier.layout.inspector';

/** The inspector panel's open or collapsed state, remembered across launches. */
export class InspectorPanel {
  open = $state(true);

  constructor(private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | null = null) {
    try {
      const saved = JSON.parse(storage?.getItem(storageKey) ?? 'null') as { open?: unknown } | null;
      if (typeof saved?.open === 'boolean') this.open = saved.open;
    } catch {
      // A broken preference is forgotten.
    }
  }

  /** Opens a collapsed inspector, or collapses an open one, and remembers it. */
  toggle(): void {
    this.open = !this.open;
    this.storage?.setItem(storageKey, JSON.stringify({ open: this.open }));
  }
}
