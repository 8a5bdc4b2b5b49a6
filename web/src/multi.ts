// Several indexes (one per language or docs version) searched as one. Each index is searched
// by the engine as usual; this only interleaves the pages by score and says which index each
// hit came from. Nothing is re-scored: a hit's score is the engine's.

import type { EngineSearchOptions, Mode, SearchHit } from "./types.js";

/** The engine's answer for one index (before the JS side adds tookMs). */
export interface RawResponse {
  total: number;
  /** Whether `total` counts every result (false: at least `total`). */
  total_exact: boolean;
  results: SearchHit[];
  suggestions: string[];
  mode: Exclude<Mode, "auto">;
}

/** The engine's page limit (midashi-core refuses more). */
export const MAX_LIMIT = 1000;

/**
 * Options for each index so that merged pages are right: every index returns its first
 * `offset + limit` hits, and the merged list is cut to the page afterwards.
 */
export function perIndexOptions(opts: EngineSearchOptions): EngineSearchOptions {
  const limit = opts.limit ?? 10;
  const offset = opts.offset ?? 0;
  return { ...opts, offset: 0, limit: Math.min(MAX_LIMIT, offset + limit) };
}

/**
 * Merges per-index answers: hits by score (best first; equal scores keep index order, then
 * each index's own order), each tagged with its index's name; totals added (exact if each
 * is); suggestions
 * united without duplicates.
 */
export function mergeResponses(
  parts: { name: string; response: RawResponse }[],
  opts: EngineSearchOptions,
): RawResponse {
  const limit = opts.limit ?? 10;
  const offset = opts.offset ?? 0;
  const hits: SearchHit[] = [];
  for (const { name, response } of parts) {
    for (const hit of response.results) hits.push({ ...hit, index: name });
  }
  // Array.prototype.sort is stable, so ties keep the concatenation order.
  hits.sort((a, b) => b.score - a.score);
  const suggestions: string[] = [];
  for (const { response } of parts) {
    for (const s of response.suggestions) if (!suggestions.includes(s)) suggestions.push(s);
  }
  return {
    total: parts.reduce((n, p) => n + p.response.total, 0),
    total_exact: parts.every((p) => p.response.total_exact !== false),
    results: hits.slice(offset, offset + limit),
    suggestions,
    mode: parts[0]?.response.mode ?? "keyword",
  };
}
