import type { CourierApi, RequestOf, SettingsView } from '../../src-main/ipc/contract.js';

/** The app's settings as main keeps them in settings.json. */
export class SettingsState {
  value = $state.raw<SettingsView | null>(null);
  error = $state('');
  saved = $state(false);
  /** Where a folder is, when the host could not open it (the browser host). */
  folderNote = $state('');

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

  /**
   * Shows the data folder or the logs in the file manager. The browser host opens nothing on
   * the machine it runs on: it answers the path, which the view shows for the user to open.
   */
  async openFolder(which: 'data' | 'logs'): Promise<void> {
    this.folderNote = '';
    const result =
      which === 'logs' ? await this.api.openLogs({}) : await this.api.openDataFolder({});
    if (!result.ok) this.error = result.error.message;
    else if (!result.value.opened)
      this.folderNote = `Open ${result.value.path} in your file manager.`;
  }
}
