// What the element needs from a search engine. The default is the `midashi` package's
// Midashi.load (index.ts); a page opened from file:// uses an in-memory engine instead
// (file.ts). Anything with `search()` can be plugged in, e.g. for tests or a server API.

import type { LookupOptions } from "../index.js";
import type { QuoteOptions, QuotedSearch, SearchOptions, SearchResponse, SemanticState } from "../types.js";

// Semantic readiness is the package's own notion (types.ts): a Midashi instance is a source.
export type { SemanticDetail, SemanticState } from "../types.js";

/** A loaded index the element can search. */
export interface SearchSource {
  search(query: string, options: SearchOptions): Promise<SearchResponse>;
  /** Current semantic readiness (absent: `unavailable`). */
  semanticState?: SemanticState;
  /**
   * Sources that can become semantic emit `semantic` events (a CustomEvent whose `detail`
   * is a {@link SemanticDetail}); the element shows "semantic results loading" while the
   * state is `loading` and re-runs the query once it is `ready`.
   */
  addEventListener?(type: "semantic", listener: (e: Event) => void): void;
  /** Starts loading semantic search (the widget's "Search by meaning"). */
  warmup?(): Promise<void>;
  /** Stops a semantic download under way (the widget's "Cancel"). */
  cancelSemantic?(): void;
  removeEventListener?(type: "semantic", listener: (e: Event) => void): void;
  /** A search answer quoted for an agent (the widget's `search_docs` tool for WebMCP). */
  quote?(query: string, options: QuoteOptions): Promise<QuotedSearch>;
  /**
   * A section quoted for an agent (`get_section`), or with `link` as Markdown to paste
   * ("Copy as Markdown"); `null` when there is no such section.
   */
  quoteSection?(target: string, options?: LookupOptions & { link?: string }): Promise<string | null>;
}

/** Loads the index at `indexUrl` (the element's `index` attribute, resolved against the page). */
export type SourceFactory = (indexUrl: string, options?: SourceOptions) => Promise<SearchSource>;

/** What the element's attributes ask of the source. */
export interface SourceOptions {
  /** The `semantic` attribute: when the semantic leg loads (`LoadOptions.semantic`). */
  semantic?: "auto" | "on-demand" | "lazy" | "idle" | "off";
  /**
   * The `indexes` attribute: several indexes searched as one (`Midashi.loadMany`), each
   * `{ name, url }` with its URL resolved against the page. Overrides `indexUrl`.
   */
  indexes?: { name: string; url: string }[];
}

/**
 * The `indexes` attribute: space-separated `name=url` pairs (`en=/en/search/ ja=/ja/search/`);
 * a bare URL is named by its position (`1`, `2`, …). Empty: none.
 */
export function parseIndexes(attr: string | null, base: string): { name: string; url: string }[] {
  return (attr ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .map((item, i) => {
      const at = item.indexOf("=");
      const name = at > 0 ? item.slice(0, at) : String(i + 1);
      return { name, url: new URL(at > 0 ? item.slice(at + 1) : item, base).href };
    });
}

/** The engine's options from the element's `semantic` and `indexes` attributes. */
export function sourceOptions(semantic: string | null, indexes: string | null, base: string): SourceOptions {
  const options: SourceOptions = {};
  if (semantic && ["auto", "on-demand", "lazy", "idle", "off"].includes(semantic)) options.semantic = semantic as "auto";
  // Several indexes searched as one (a site per language, docs and API reference apart).
  const list = parseIndexes(indexes, base);
  if (list.length) options.indexes = list;
  return options;
}
