import type { CourierApi, RequestOf, SettingsView } from '../../src-main/ipc/contract.js';

/** The app's settings as main keeps them in settings.json. */
export class SettingsState {
  value = $state.raw<SettingsView | null>(null);
  error = $state('');
  saved = $state(false);

  constructor(private readonly api: CourierApi) {}

  /** Reads the settings. */
  async load(): Promise<void> {
    const result = await this.api.getSettings({});
    if (result.ok) this.value = result.value;
    else this.error = result.error.message;
  }

  /** Changes some settings; main checks the ranges and writes them atomically. */
  async update(change: RequestOf<'setSettings'>): Promise<void> {
    this.saved = false;
    const result = await this.api.setSettings(change);
    if (result.ok) {
      this.value = result.value;
      this.error = '';
      this.saved = true;
    } else this.error = result.error.message;
  }
}
