import type { CourierApi, TagList } from '../../src-main/ipc/contract.js';

/** One tag of the lexicology. */
export type Tag = TagList['tags'][number];

/** The service's tag lexicology for the active profile, searched and filtered locally. */
export class TagsState {
  tags = $state.raw<Tag[]>([]);
  profile = $state('');
  loading = $state(false);
  error = $state('');
  query = $state('');
  category = $state('');
  copied = $state('');

  readonly categories = $derived(
    this.tags
      .map((t) => t.category.name)
      .filter((name, i, all) => all.indexOf(name) === i)
      .sort(),
  );

  readonly matches = $derived(this.search(this.query, this.category));

  constructor(private readonly api: CourierApi) {}

  /** The tags whose name contains `query` (any case), in `category` when one is given. */
  search(query: string, category = ''): Tag[] {
    const q = query.trim().toLowerCase();
    return this.tags.filter(
      (t) =>
        (!category || t.category.name === category) && (!q || t.name.toLowerCase().includes(q)),
    );
  }

  #inFlight: { profile: string; done: Promise<void> } | undefined;

  /**
   * Loads every tag of a profile (once per profile unless forced). The Tags view and the
   * inspector's picker both ask: a load already on its way for the profile is shared.
   */
  load(profile: string, force = false): Promise<void> {
    if (!force && profile === this.profile && this.tags.length > 0) return Promise.resolve();
    if (!force && this.#inFlight?.profile === profile) return this.#inFlight.done;
    const done = this.#fetch(profile).finally(() => {
      if (this.#inFlight?.done === done) this.#inFlight = undefined;
    });
    this.#inFlight = { profile, done };
    return done;
  }

  async #fetch(profile: string): Promise<void> {
    this.loading = true;
    this.profile = profile;
    const result = await this.api.listTags({ profile });
    // Another profile was chosen meanwhile: its own load decides what is shown.
    if (this.profile !== profile) return;
    this.loading = false;
    if (result.ok) {
      this.tags = result.value.tags;
      this.error = '';
    } else {
      this.tags = [];
      this.error = result.error.message;
    }
  }

  /** Copies a tag name to the clipboard. */
  async copy(name: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(name);
      this.copied = name;
    } catch {
      this.copied = '';
      this.error = 'The clipboard is not available here; select the name and copy it.';
    }
  }
}
