/* eslint-disable svelte/prefer-svelte-reactivity -- the Set and Map here are local lookups,
   replaced as whole values, never mutated in place. */
import { untrack } from 'svelte';

import {
  builderChoices,
  type BuilderColumn,
  builderColumns,
  extraPartsNote,
  type FileNameMapping,
  mappingFromBuilder,
  mappingProblem,
  mappingToYaml,
  matchFileNames,
  parseMappingYaml,
  suggestBuilder,
} from '../../src-main/core/model/filename-mapping.js';
import { clearedFields } from '../../src-main/core/model/ingestion-body.js';
import {
  type DeliveryDefaults,
  deliveryDefaults,
  interfaceDefaults,
} from '../../src-main/core/settings/settings.js';
import type {
  CourierApi,
  DeliveryPlanView,
  ProfileSummary,
  RequestOf,
  SettingsView,
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
  /** The builder's columns, left to right: a field, or `ignore` for a part the mapping skips. */
  columns = $state<BuilderColumn[]>(['outer_id', 'title']);
  /** The production confirmation is open (Deliver on a production profile asks first). */
  confirming = $state(false);
  plan = $state.raw<DeliveryPlanView | null>(null);
  busy = $state(false);
  error = $state('');
  /** Why the last mapping file loaded could not be used (the checker's message), or ''. */
  mappingError = $state('');
  /** What goes: every included track of the library, or only the grid's selection. */
  scope = $state<'library' | 'selection'>('library');
  /** Leave the tracks with errors out (listed as skipped) instead of blocking. */
  skipInvalid = $state(false);
  /** Send the tracks the catalog already holds unchanged again too. */
  all = $state(false);
  /** The user read the pre-flight's removals and confirmed them. */
  confirmRemovals = $state(false);

  readonly fields = builderChoices;

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
        /** A name with more parts than columns: what is not sent. */
        note: matches?.[i]?.ok
          ? extraPartsNote(row.draft.file, this.separator, this.columns.length)
          : undefined,
      })),
    };
  });

  readonly unfitCount = $derived(this.preview.rows.filter((r) => r.match && !r.match.ok).length);

  constructor(
    private readonly api: CourierApi,
    private readonly library: LibraryState,
    /** The grid's selected tracks (album headers standing for their tracks). */
    private readonly selection: () => readonly string[] = () => [],
  ) {}

  /**
   * A new delivery: the options the profile's saved defaults (else the app's) give, and nothing
   * of the last delivery's choices — its ingestion id, folder, scope or confirmations.
   */
  reset(settings: SettingsView | null, profile: string | undefined): void {
    this.#resetFor = { profile, settings: settings !== null };
    const defaults: DeliveryDefaults = settings
      ? deliveryDefaults(settings, profile)
      : interfaceDefaults;
    this.mode = defaults.mode;
    this.overwriteAudio = defaults.overwrite_audio_file;
    this.deleteDelivered = defaults.delete_delivered_file;
    this.ingestionId = '';
    this.folder = '';
    this.scope = 'library';
    this.skipInvalid = false;
    this.all = false;
    this.confirmRemovals = false;
    this.confirming = false;
    this.plan = null;
  }

  #resetFor: { profile: string | undefined; settings: boolean } | null = null;

  /**
   * Starts a new delivery (`reset`) when the active profile changed, or once the settings it
   * starts from have loaded; a return to the Deliver view keeps what the user chose.
   */
  follow(settings: SettingsView | null, profile: string | undefined): void {
    const last = this.#resetFor;
    if (!last || last.profile !== profile || (!last.settings && settings)) {
      this.reset(settings, profile);
    }
  }

  /** The options as a profile's defaults (what "Save as defaults" keeps). */
  defaults(): DeliveryDefaults {
    return {
      mode: this.mode,
      overwrite_audio_file: this.overwriteAudio,
      delete_delivered_file: this.deleteDelivered,
    };
  }

  /** The mapping as the 4.4 YAML document (what "Save mapping" writes). */
  mappingYaml(): string {
    return mappingToYaml(this.#mapping());
  }

  #mapping(): FileNameMapping {
    return mappingFromBuilder(this.separator, this.columns);
  }

  /** The builder as last suggested (or first set): while unchanged, a new suggestion may replace it. */
  #suggested = '_\u0000outer_id\u0000title';

  /**
   * Opens the builder on the library's names (core's `suggestBuilder`): a separator that splits
   * them and one column per part. Once the user changed the builder, it stays as they set it.
   */
  openBuilder(): void {
    const names = this.library.rows.map((row) => row.draft.file);
    untrack(() => {
      const now = [this.separator, ...this.columns].join('\u0000');
      if (now !== this.#suggested || names.length === 0) return;
      const suggestion = suggestBuilder(names, this.separator);
      this.separator = suggestion.separator;
      this.columns = suggestion.columns;
      this.#suggested = [suggestion.separator, ...suggestion.columns].join('\u0000');
    });
  }

  /** Loads a mapping file's separator and columns. */
  loadMapping(text: string): void {
    try {
      const mapping = parseMappingYaml(text);
      this.columns = builderColumns(mapping);
      this.separator = mapping.separator;
      this.#suggested = '';
      this.mappingError = '';
    } catch (error) {
      this.mappingError = `That mapping file can't be used: ${(error as Error).message}`;
    }
  }

  #request(profile: ProfileSummary): RequestOf<'planDelivery'> {
    // Every row goes: main leaves out what it can't deliver (gone, empty, not audio), saying why.
    const rows = this.library.rows;
    const chosen = this.scope === 'selection' ? new Set(this.selection()) : null;
    const json = this.mode === 'json';
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
      ...(this.mode === 'audio_mapping' ? { mapping: this.#mapping() } : {}),
      ...(this.skipInvalid ? { skipInvalid: true } : {}),
      ...(this.all ? { all: true } : {}),
      files: rows.map((row) => {
        const cleared = json ? clearedFields(row.original, row.draft) : [];
        return {
          id: row.id,
          relativePath: row.draft.file,
          ...(json ? { draft: $state.snapshot(row.draft) } : {}),
          ...(row.excluded || (chosen && !chosen.has(row.id)) ? { excluded: true } : {}),
          ...(cleared.length > 0 ? { cleared } : {}),
          ...(row.acceptCutShort ? { acceptCutShort: true } : {}),
          ...(row.missing ? { missing: true } : {}),
        };
      }),
    };
  }

  /** Everything a plan depends on, by value or (the library's rows) by reference. */
  #signature(): unknown[] {
    return [
      this.catalogId,
      this.mode,
      this.folder,
      this.ingestionId,
      this.overwriteAudio,
      this.deleteDelivered,
      this.separator,
      this.columns.join('\u0000'),
      this.scope,
      this.skipInvalid,
      this.all,
      this.library.rows,
      this.scope === 'selection' ? this.selection().join('\u0000') : '',
    ];
  }

  #checkedWith = $state.raw<unknown[] | null>(null);

  /**
   * The pre-flight no longer says what Deliver would send: an option, the scope or the library
   * changed since it was checked. Deliver waits for a new Check.
   */
  get stale(): boolean {
    const checked = this.#checkedWith;
    if (!this.plan || !checked) return false;
    const now = this.#signature();
    return now.some((value, i) => value !== checked[i]);
  }

  /** Runs the pre-flight: files, size, requests and blocking findings, nothing sent. */
  async check(profile: ProfileSummary): Promise<void> {
    this.busy = true;
    this.plan = null;
    const signature = this.#signature();
    const result = await this.api.planDelivery(this.#request(profile));
    this.#checkedWith = signature;
    this.busy = false;
    if (result.ok) {
      this.plan = result.value;
      this.confirmRemovals = false;
      this.error = '';
      const standing = result.value.standing;
      this.library.standing = standing
        ? {
            catalog: result.value.catalog.name,
            byId: new Map(
              standing.tracks.filter((t) => t.fileId).map((t) => [t.fileId!, t] as const),
            ),
          }
        : null;
    } else {
      this.plan = null;
      this.error = result.error.message;
    }
  }

  /**
   * Starts the delivery; resolves to its id, or null (the error says why). `confirmProduction`
   * only once the user confirmed a production profile; main refuses one without it.
   */
  async deliver(
    profile: ProfileSummary,
    confirmProduction = false,
    settings: SettingsView | null = null,
  ): Promise<string | null> {
    this.busy = true;
    this.confirming = false;
    const result = await this.api.startDelivery({
      ...this.#request(profile),
      ...(confirmProduction ? { confirmProduction } : {}),
      ...(this.confirmRemovals ? { confirmRemovals: true } : {}),
    });
    this.busy = false;
    if (!result.ok) {
      this.error = result.error.message;
      return null;
    }
    this.error = '';
    // The next delivery starts from the defaults, not from this one's choices.
    this.reset(settings, profile.name);
    return result.value.id;
  }

  /** Whether Deliver may be pressed: a checked plan that sends something, removals confirmed. */
  get ready(): boolean {
    const plan = this.plan;
    if (!plan || plan.blocked || plan.nothingChanged || this.stale) return false;
    return (plan.standing?.removals.length ?? 0) === 0 || this.confirmRemovals;
  }
}
