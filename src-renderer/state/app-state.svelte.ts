import type { AppInfo, CourierApi } from '../../src-main/ipc/contract.js';
import { WorkerTagReader } from '../lib/tags/tag-reader.js';
import { BucketState } from './bucket-state.svelte.js';
import { DeliverState } from './deliver-state.svelte.js';
import { DuplicatesState } from './duplicates-state.svelte.js';
import { GridState } from './grid-state.svelte.js';
import { HistoryState } from './history-state.svelte.js';
import { InspectorPanel } from './inspector-panel.svelte.js';
import { LibraryState } from './library-state.svelte.js';
import { ProfilesState } from './profiles-state.svelte.js';
import { SettingsState } from './settings-state.svelte.js';
import { TagsState } from './tags-state.svelte.js';
import { TransfersState } from './transfers-state.svelte.js';
import { UpdatesState } from './updates-state.svelte.js';

/** The views of the app shell, in navigation order. */
export const views = [
  { id: 'library', label: 'Library', hint: 'Masters and their metadata' },
  { id: 'deliver', label: 'Deliver', hint: 'Catalog, mode and pre-flight' },
  { id: 'transfers', label: 'Transfers', hint: 'Uploads and ingestion in progress' },
  { id: 'history', label: 'History', hint: 'Every delivery and its responses' },
  { id: 'tags', label: 'Tags', hint: 'The service’s tag lexicology' },
  { id: 'bucket', label: 'Bucket', hint: 'Delivery area and exports' },
  { id: 'connect', label: 'Connect', hint: 'Profiles, secrets, catalogs and connection tests' },
  { id: 'settings', label: 'Settings', hint: 'Transfers, defaults, updates, data folder' },
] as const;

export type ViewId = (typeof views)[number]['id'];

/** The app-wide state, created once in main.ts and passed down to the views. */
export class AppState {
  view = $state<ViewId>('library');
  info = $state<AppInfo | null>(null);
  connection = $state<'connecting' | 'ready' | 'failed'>('connecting');
  connectionError = $state('');
  readonly library: LibraryState;
  readonly grid: GridState;
  readonly inspector: InspectorPanel;
  readonly profiles: ProfilesState;
  readonly settings: SettingsState;
  readonly tags: TagsState;
  readonly deliver: DeliverState;
  readonly transfers: TransfersState;
  readonly history: HistoryState;
  readonly bucket: BucketState;
  readonly duplicates: DuplicatesState;
  readonly updates: UpdatesState;

  constructor(readonly api: CourierApi) {
    this.library = new LibraryState(api, () => new WorkerTagReader());
    this.grid = new GridState(this.library, globalThis.localStorage ?? null);
    this.inspector = new InspectorPanel(globalThis.localStorage ?? null);
    this.profiles = new ProfilesState(api);
    this.settings = new SettingsState(api);
    this.tags = new TagsState(api);
    this.deliver = new DeliverState(api, this.library, () => this.grid.selectedTracks);
    this.transfers = new TransfersState(api);
    this.history = new HistoryState(api);
    this.bucket = new BucketState(api);
    this.duplicates = new DuplicatesState(api, this.library);
    this.updates = new UpdatesState(api);
  }

  /** Asks main who it is; the shell shows the result or why it could not connect. */
  async start(): Promise<void> {
    const result = await this.api.appInfo({});
    if (result.ok) {
      this.info = result.value;
      this.connection = 'ready';
      await Promise.all([
        this.library.load(),
        this.profiles.load(),
        this.settings.load(),
        // Deliveries a quit or crash interrupted are offered for resume in Transfers.
        this.transfers.load(),
        // What the app's start-up check found (the browser host says updates are the app's).
        this.updates.load(),
      ]);
    } else {
      this.connection = 'failed';
      this.connectionError = result.error.message;
    }
  }

  /** Switches the main area to another view. */
  show(view: ViewId): void {
    this.view = view;
  }
}
