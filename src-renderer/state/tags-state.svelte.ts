import type { CourierApi, TagList } from '../../src-main/ipc/contract.js';

type Tag = TagList['tags'][number];

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

  readonly matches = $derived.by(() => {
    const q = this.query.trim().toLowerCase();
    return this.tags.filter(
      (t) =>
        (!this.category || t.category.name === this.category) &&
        (!q || t.name.toLowerCase().includes(q)),
    );
  });

  constructor(private readonly api: CourierApi) {}

  /** Loads every tag of a profile (once per profile unless forced). */
  async load(profile: string, force = false): Promise<void> {
    if (!force && profile === this.profile && this.tags.length > 0) return;
    this.loading = true;
    this.profile = profile;
    const result = await this.api.listTags({ profile });
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
