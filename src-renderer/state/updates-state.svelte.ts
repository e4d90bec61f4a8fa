import type { CourierApi, UpdateState } from '../../src-main/ipc/contract.js';

const PRODUCT = 'Catalog Courier';

/**
 * The update prompt as the window shows it: main's state (core's UpdateService), kept current
 * by `updates:state` events, and the user's answers. Nothing here decides what is offered.
 */
export class UpdatesState {
  state = $state.raw<UpdateState | null>(null);
  error = $state('');
  /** The banner shows what needs the user: an offer not put off, a download, an install. */
  readonly banner = $derived.by(() => {
    const state = this.state;
    if (!state) return false;
    if (state.phase === 'available') return !state.later;
    if (state.phase === 'failed') return state.during !== 'check';
    return state.phase === 'downloading' || state.phase === 'ready';
  });
  /** One line saying where updates stand. */
  readonly headline = $derived.by(() => headlineOf(this.state));
  /** The notes of the release on offer (plain text), if any. */
  readonly notes = $derived.by(() => {
    const state = this.state;
    return state && 'offer' in state && state.offer ? state.offer.notes : '';
  });

  constructor(private readonly api: CourierApi) {
    api.on('updates:state', (state) => (this.state = state));
  }

  /** Asks main where updates stand (the app checked at start-up). */
  async load(): Promise<void> {
    await this.#run(() => this.api.updateState({}));
  }

  /** "Check for updates". */
  async check(): Promise<void> {
    await this.#run(() => this.api.checkForUpdates({}));
  }

  /** "Download and install": the download's progress arrives as events. */
  async download(): Promise<void> {
    await this.#run(() => this.api.downloadUpdate({}));
  }

  /** "Later": quiet about this version until a newer one. */
  async later(): Promise<void> {
    await this.#run(() => this.api.postponeUpdate({}));
  }

  /** "Restart to install". */
  async install(): Promise<void> {
    await this.#run(() => this.api.installUpdate({}));
  }

  async #run(
    call: () => Promise<
      { ok: true; value: UpdateState } | { ok: false; error: { message: string } }
    >,
  ): Promise<void> {
    const result = await call();
    if (result.ok) {
      this.state = result.value;
      this.error = '';
    } else this.error = result.error.message;
  }
}

function headlineOf(state: UpdateState | null): string {
  if (!state) return '';
  switch (state.phase) {
    case 'unsupported':
    case 'not-configured':
      return state.message;
    case 'idle':
      return 'Updates: not checked yet.';
    case 'checking':
      return 'Checking for updates…';
    case 'up-to-date':
      return `${PRODUCT} is up to date.`;
    case 'available':
      return `${PRODUCT} ${state.offer.version} is available.`;
    case 'downloading':
      return `Downloading ${PRODUCT} ${state.offer.version}… ${state.percent}%`;
    case 'ready':
      return `${PRODUCT} ${state.offer.version} is downloaded: restart to install it.`;
    case 'failed':
      return state.reason;
  }
}
