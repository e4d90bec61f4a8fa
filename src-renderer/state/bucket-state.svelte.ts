import type { BucketListingView, CourierApi } from '../../src-main/ipc/contract.js';
import { parseDelimited } from '../lib/csv.js';
import { downloadBytes } from '../lib/download.js';

/** The delivery bucket browser: one prefix at a time, previews, downloads and deletes. */
export class BucketState {
  listing = $state.raw<BucketListingView | null>(null);
  prefix = $state('');
  loading = $state(false);
  error = $state('');
  preview = $state.raw<{
    key: string;
    kind: 'csv' | 'text';
    rows: string[][];
    text: string;
    truncated: boolean;
  } | null>(null);
  confirmDelete = $state<string | null>(null);

  constructor(private readonly api: CourierApi) {}

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
      rows: csv ? parseDelimited(text).slice(0, 201) : [],
      text: shown,
      truncated,
    };
  }

  async download(profile: string, key: string): Promise<void> {
    const result = await this.api.downloadBucketObject({ profile, key });
    if (result.ok) downloadBytes(result.value.fileName, result.value.base64);
    else this.error = result.error.message;
  }

  async remove(profile: string, key: string): Promise<void> {
    const result = await this.api.deleteBucketObject({ profile, key });
    this.confirmDelete = null;
    if (!result.ok) this.error = result.error.message;
    await this.open(profile, this.prefix);
  }
}
