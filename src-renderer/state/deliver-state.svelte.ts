import {
  builderColumns,
  type FileNameMapping,
  type MappingField,
  mappingFields,
  mappingFromBuilder,
  mappingProblem,
  mappingToYaml,
  matchFileNames,
  parseMappingYaml,
} from '../../src-main/core/model/filename-mapping.js';
import type {
  CourierApi,
  DeliveryPlanView,
  ProfileSummary,
  RequestOf,
} from '../../src-main/ipc/contract.js';
import type { LibraryState } from './library-state.svelte.js';

export type { DeliveryMode } from '../../src-main/ipc/contract.js';
import type { DeliveryMode } from '../../src-main/ipc/contract.js';

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
  /** Why the last mapping file loaded could not be used (the checker's message), or ''. */
  mappingError = $state('');

  readonly fields = mappingFields;

  /** The mapping preview over the library's file names: values, or why a name doesn't fit. */
  readonly preview = $derived.by(() => {
    const mapping = this.#mapping();
    const problem = mappingProblem(mapping);
    const rows = this.library.rows;
    const matches = problem
      ? null
      : matchFileNames(
          rows.map((row) => row.draft.file),
          mapping,
        );
    return {
      problem,
      rows: rows.map((row, i) => ({
        id: row.id,
        name: row.draft.file.split('/').pop() ?? row.draft.file,
        match: matches?.[i] ?? null,
      })),
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
    return mappingToYaml(this.#mapping());
  }

  #mapping(): FileNameMapping {
    return mappingFromBuilder(this.separator, this.columns);
  }

  /** Loads a mapping file's separator and columns. */
  loadMapping(text: string): void {
    try {
      const mapping = parseMappingYaml(text);
      this.columns = builderColumns(mapping);
      this.separator = mapping.separator;
      this.mappingError = '';
    } catch (error) {
      this.mappingError = `That mapping file can't be used: ${(error as Error).message}`;
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
