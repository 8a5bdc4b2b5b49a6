// Recent searches, kept in localStorage per index so two sites on one origin do not mix.
// Storage can be missing or throw (private modes, sandboxed frames, quota): the widget then
// simply has no recent searches.

const MAX = 8;

/** The recent searches of one index. */
export class RecentSearches {
  private readonly key: string;

  constructor(indexUrl: string) {
    this.key = `midashi:recent:${indexUrl}`;
  }

  /** Newest first. */
  list(): string[] {
    try {
      const raw = globalThis.localStorage?.getItem(this.key);
      const parsed: unknown = raw ? JSON.parse(raw) : [];
      return Array.isArray(parsed) ? parsed.filter((q): q is string => typeof q === "string").slice(0, MAX) : [];
    } catch {
      return [];
    }
  }

  /** Puts `query` first (once). */
  add(query: string): void {
    const q = query.trim();
    if (!q) return;
    this.write([q, ...this.list().filter((x) => x !== q)].slice(0, MAX));
  }

  /** Forgets them all. */
  clear(): void {
    try {
      globalThis.localStorage?.removeItem(this.key);
    } catch {
      // Nothing stored, nothing to forget.
    }
  }

  private write(list: string[]): void {
    try {
      globalThis.localStorage?.setItem(this.key, JSON.stringify(list));
    } catch {
      // Full or forbidden storage: recent searches are a convenience, not worth an error.
    }
  }
}
