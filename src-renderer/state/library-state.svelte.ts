import type { CourierApi, GrantedFile, PickedFile } from '../../src-main/ipc/contract.js';

/** The files the user brought in, as main granted them; a file added twice appears once. */
export class LibraryState {
  files = $state.raw<GrantedFile[]>([]);
  refused = $state.raw<Array<{ relativePath: string; reason: string }>>([]);
  busy = $state(false);
  error = $state('');

  constructor(private readonly api: CourierApi) {}

  /** Hands picked or dropped files to main and adds the ones it granted. */
  async add(picked: PickedFile[]): Promise<void> {
    if (picked.length === 0) return;
    this.busy = true;
    this.error = '';
    try {
      const result = await this.api.grantFiles(picked);
      if (!result.ok) {
        this.error = result.error.message;
        return;
      }
      // A local lookup while merging, not state: a plain Set is right here.
      // eslint-disable-next-line svelte/prefer-svelte-reactivity
      const known = new Set(this.files.map((file) => file.id));
      const fresh: GrantedFile[] = [];
      for (const file of result.value.granted) {
        if (known.has(file.id)) continue;
        known.add(file.id);
        fresh.push(file);
      }
      this.files = [...this.files, ...fresh];
      this.refused = [...this.refused, ...result.value.refused];
    } finally {
      this.busy = false;
    }
  }

  /** Empties the library. */
  clear(): void {
    this.files = [];
    this.refused = [];
  }
}
