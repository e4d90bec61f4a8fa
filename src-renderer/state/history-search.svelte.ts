import type {
  CourierApi,
  DeliveredTrack,
  HistorySearchResult,
} from '../../src-main/ipc/contract.js';

/** A body being fetched, shown, or the reason it could not be. */
export type BodyState =
  | { status: 'loading' }
  | { status: 'shown'; track: DeliveredTrack }
  | { status: 'failed'; message: string };

/** History's search: by ISRC, outer_id or title words (main matches; this only asks and shows). */
export class HistorySearchState {
  query = $state('');
  result = $state.raw<HistorySearchResult | null>(null);
  searching = $state(false);
  error = $state('');
  /** Bodies as sent, by `deliveryId outer_id`, for the tracks the user opened. */
  bodies = $state.raw<Record<string, BodyState>>({});

  constructor(private readonly api: CourierApi) {}

  /** Runs the search; a single json track found has its body shown at once. */
  async run(): Promise<void> {
    const query = this.query.trim();
    if (query === '') return this.clear();
    this.searching = true;
    const result = await this.api.searchDeliveries({ query });
    this.searching = false;
    this.bodies = {};
    if (!result.ok) {
      this.error = result.error.message;
      this.result = null;
      return;
    }
    this.error = '';
    this.result = result.value;
    const tracks = result.value.deliveries.flatMap((d) =>
      d.mode === 'json' ? d.tracks.map((t) => [d.id, t.outer_id] as const) : [],
    );
    if (tracks.length === 1) await this.open(...tracks[0]!);
  }

  /** Forgets the search. */
  clear(): void {
    this.query = '';
    this.result = null;
    this.error = '';
    this.bodies = {};
  }

  /** Shows or hides a track's body as sent. */
  async toggle(id: string, outerId: string): Promise<void> {
    const key = bodyKey(id, outerId);
    if (this.bodies[key]) {
      const rest = { ...this.bodies };
      delete rest[key];
      this.bodies = rest;
      return;
    }
    await this.open(id, outerId);
  }

  private async open(id: string, outerId: string): Promise<void> {
    const key = bodyKey(id, outerId);
    this.bodies = { ...this.bodies, [key]: { status: 'loading' } };
    const result = await this.api.deliveredTrack({ id, outer_id: outerId });
    this.bodies = {
      ...this.bodies,
      [key]: result.ok
        ? { status: 'shown', track: result.value.track }
        : { status: 'failed', message: result.error.message },
    };
  }
}

/** The key of a track's body in `bodies`. */
export function bodyKey(id: string, outerId: string): string {
  return `${id} ${outerId}`;
}
