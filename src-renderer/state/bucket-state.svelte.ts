import { SvelteMap } from 'svelte/reactivity';

import { parseCsvText } from '../../src-main/core/model/csv-text.js';
import type { BucketListingView, CourierApi } from '../../src-main/ipc/contract.js';
import { downloadFrom } from '../lib/download.js';

/** A download to a file the user chose, as far as it has come. */
export interface SaveProgress {
  receivedBytes: number;
  totalBytes: number;
}

/** A CSV object's first rows as a table; a preview cut inside a quoted cell shows plain lines. */
function parsePreview(text: string): string[][] {
  try {
    return parseCsvText(text).slice(0, 201);
  } catch {
    return text
      .split(/\r?\n/)
      .slice(0, 201)
      .map((line) => [line]);
  }
}

/** The delivery bucket browser: one prefix at a time, previews, downloads and deletes. */
export class BucketState {
  listing = $state.raw<BucketListingView | null>(null);
  prefix = $state('');
  loading = $state(false);
  error = $state('');
  /** What the last finished download did, for the user (where the file went). */
  notice = $state('');
  preview = $state.raw<{
    key: string;
    kind: 'csv' | 'text';
    rows: string[][];
    text: string;
    truncated: boolean;
  } | null>(null);
  confirmDelete = $state<string | null>(null);
  /** Downloads in progress, by key (the app saves them in main, with progress events). */
  readonly saving = new SvelteMap<string, SaveProgress>();

  constructor(private readonly api: CourierApi) {
    api.on('bucket:save-progress', ({ key, receivedBytes, totalBytes }) => {
      if (this.saving.has(key)) this.saving.set(key, { receivedBytes, totalBytes });
    });
  }

  /** Lists a prefix (`''` is the bucket's root). */
  async open(profile: string, prefix: string): Promise<void> {
    this.loading = true;
    this.prefix = prefix;
    this.preview = null;
    this.confirmDelete = null;
    const result = await this.api.listBucket({ profile, prefix });
    this.loading = false;
    if (result.ok) {
      this.listing = result.value;
      this.error = '';
    } else {
      this.listing = null;
      this.error = result.error.message;
    }
  }

  /** Shows a text object: a CSV as a table, anything else (INFO.json) as text. */
  async show(profile: string, key: string): Promise<void> {
    const result = await this.api.readBucketObject({ profile, key });
    if (!result.ok) {
      this.error = result.error.message;
      return;
    }
    const { text, truncated } = result.value;
    const csv = key.toLowerCase().endsWith('.csv');
    let shown = text;
    if (key.toLowerCase().endsWith('.json')) {
      try {
        shown = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        shown = text;
      }
    }
    this.preview = {
      key,
      kind: csv ? 'csv' : 'text',
      rows: csv ? parsePreview(text) : [],
      text: shown,
      truncated,
    };
  }

  /**
   * Downloads an object, whatever its size: the app asks where to save it and streams it there;
   * the browser host gives an address the browser's own download fetches.
   */
  async download(profile: string, key: string): Promise<void> {
    this.notice = '';
    this.saving.set(key, { receivedBytes: 0, totalBytes: 0 });
    const result = await this.api.saveBucketObject({ profile, key });
    this.saving.delete(key);
    if (!result.ok) {
      if (result.error.code === 'canceled') this.notice = result.error.message;
      else this.error = result.error.message;
      return;
    }
    this.error = '';
    const saved = result.value;
    if (saved.outcome === 'browser') downloadFrom(saved.url);
    else if (saved.outcome === 'saved') this.notice = `Saved ${key} to ${saved.path}.`;
  }

  /** Stops a download; the partial file is removed by main. */
  async cancelDownload(profile: string, key: string): Promise<void> {
    await this.api.cancelBucketSave({ profile, key });
  }

  async remove(profile: string, key: string): Promise<void> {
    const result = await this.api.deleteBucketObject({ profile, key });
    this.confirmDelete = null;
    if (!result.ok) this.error = result.error.message;
    await this.open(profile, this.prefix);
  }
}
