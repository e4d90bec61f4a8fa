import { parse as parseYaml } from 'yaml';

import {
  applyFileNameMapping,
  type FileNameMapping,
  type MappingField,
  mappingFields,
  mappingProblem,
  mappingToYaml,
} from '../../src-main/core/model/filename-mapping.js';
import type {
  CourierApi,
  DeliveryPlanView,
  ProfileSummary,
  RequestOf,
} from '../../src-main/ipc/contract.js';
import type { LibraryState } from './library-state.svelte.js';

export type DeliveryMode = 'json' | 'audio_only' | 'audio_mapping';

/** Reads a mapping file (4.4 YAML: `mapping:` of single-key entries). */
export function mappingFromYaml(text: string): FileNameMapping {
  const doc = parseYaml(text) as { mapping?: Array<Record<string, unknown>> } | null;
  if (!doc || !Array.isArray(doc.mapping)) throw new Error('no top-level `mapping:` list');
  let separator: string | undefined;
  const columns: MappingField[] = [];
  for (const entry of doc.mapping) {
    for (const [key, value] of Object.entries(entry ?? {})) {
      if (key === 'separator') separator = String(value);
      else if (/^column_\d+$/.test(key))
        columns[Number(key.slice(7))] = String(value) as MappingField;
      else throw new Error(`unknown entry '${key}'`);
    }
  }
  if (separator === undefined) throw new Error('the mapping has no separator');
  return { separator, columns: columns.filter(Boolean) };
}

/** The Deliver screen: catalog, mode, options, mapping builder, pre-flight and Deliver. */
export class DeliverState {
  catalogId = $state('');
  mode = $state<DeliveryMode>('json');
  folder = $state('');
  ingestionId = $state('');
  overwriteAudio = $state(true);
  deleteDelivered = $state(true);
  separator = $state('_');
  columns = $state<MappingField[]>(['outer_id', 'title']);
  /** The production confirmation is open (Deliver on a production profile asks first). */
  confirming = $state(false);
  plan = $state.raw<DeliveryPlanView | null>(null);
  busy = $state(false);
  error = $state('');

  readonly fields = mappingFields;

  /** The mapping preview over the library's file names: values, or why a name doesn't fit. */
  readonly preview = $derived.by(() => {
    const mapping = { separator: this.separator, columns: this.columns };
    const problem = mappingProblem(mapping);
    return {
      problem,
      rows: this.library.rows.map((row) => {
        const name = row.draft.file.split('/').pop() ?? row.draft.file;
        return { id: row.id, name, match: problem ? null : applyFileNameMapping(name, mapping) };
      }),
    };
  });

  readonly unfitCount = $derived(this.preview.rows.filter((r) => r.match && !r.match.ok).length);

  constructor(
    private readonly api: CourierApi,
    private readonly library: LibraryState,
  ) {}

  /** Starts from the saved default options. */
  applyDefaults(defaults: {
    mode: DeliveryMode;
    overwrite_audio_file: boolean;
    delete_delivered_file: boolean;
  }): void {
    this.mode = defaults.mode;
    this.overwriteAudio = defaults.overwrite_audio_file;
    this.deleteDelivered = defaults.delete_delivered_file;
  }

  /** The mapping as the 4.4 YAML document (what "Save mapping" writes). */
  mappingYaml(): string {
    return mappingToYaml({ separator: this.separator, columns: this.columns });
  }

  /** Loads a mapping file's separator and columns. */
  loadMapping(text: string): void {
    try {
      const mapping = mappingFromYaml(text);
      this.separator = mapping.separator;
      this.columns = [...mapping.columns];
      this.error = '';
    } catch (error) {
      this.error = `That mapping file can't be used: ${(error as Error).message}`;
    }
  }

  #request(profile: ProfileSummary): RequestOf<'planDelivery'> {
    const rows = this.library.rows.filter((r) => r.status !== 'unreadable' && !r.missing);
    return {
      profile: profile.name,
      catalogId: this.catalogId,
      mode: this.mode,
      ...(this.folder.trim() ? { folder: this.folder.trim() } : {}),
      options: {
        ...(this.ingestionId.trim() ? { ingestion_id: this.ingestionId.trim() } : {}),
        overwrite_audio_file: this.overwriteAudio,
        delete_delivered_file: this.deleteDelivered,
      },
      ...(this.mode === 'audio_mapping'
        ? { mapping: { separator: this.separator, columns: [...this.columns] } }
        : {}),
      files: rows.map((row) => ({
        id: row.id,
        relativePath: row.draft.file,
        ...(this.mode === 'json' ? { draft: $state.snapshot(row.draft) } : {}),
      })),
    };
  }

  /** Runs the pre-flight: files, size, requests and blocking findings, nothing sent. */
  async check(profile: ProfileSummary): Promise<void> {
    this.busy = true;
    const result = await this.api.planDelivery(this.#request(profile));
    this.busy = false;
    if (result.ok) {
      this.plan = result.value;
      this.error = '';
    } else {
      this.plan = null;
      this.error = result.error.message;
    }
  }

  /**
   * Starts the delivery; resolves to its id, or null (the error says why). `confirmProduction`
   * only once the user confirmed a production profile; main refuses one without it.
   */
  async deliver(profile: ProfileSummary, confirmProduction = false): Promise<string | null> {
    this.busy = true;
    this.confirming = false;
    const result = await this.api.startDelivery({
      ...this.#request(profile),
      ...(confirmProduction ? { confirmProduction } : {}),
    });
    this.busy = false;
    if (!result.ok) {
      this.error = result.error.message;
      return null;
    }
    this.error = '';
    this.plan = null;
    return result.value.id;
  }
}
