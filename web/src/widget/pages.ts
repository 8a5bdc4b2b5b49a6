// Pages of results: the options a page is asked with, and the next page appended to the
// one shown.

import type { SearchHit, SearchOptions, SearchResponse } from "../types.js";
import { filterOptions, type Chosen } from "./facets.js";

/** What a page's options depend on besides its offset (the element's attributes). */
export interface PageSettings {
  limit: number;
  previewLines: number;
  /** The `version` attribute (a versioned site's page for one version). */
  version: string | null;
  /** The page's language. */
  lang: string;
  /** The filter chips chosen. */
  filters: Chosen;
}

/** The options of one page of results, starting at `offset`. */
export function pageOptions(offset: number, s: PageSettings): SearchOptions {
  return {
    limit: s.limit,
    offset,
    previewLines: s.previewLines,
    // A versioned site's page for one version sets `version="7.4"`: results from that
    // version only. Without it each section shows once, with the other versions named.
    version: s.version || null,
    // On a multilingual site, results in the page's language first, the others after.
    preferLang: s.lang || null,
    // The counts the filter chips show, when they come at no cost (the element asks the
    // rest once typing pauses), and the filters chosen (a chosen version wins).
    facetsIfRanked: true,
    ...filterOptions(s.filters),
  };
}

/**
 * The page shown with the next one appended, and the first result the next page added.
 * Rankings are deterministic, so the next page continues this one; the id check only guards
 * against an index that changed in between.
 */
export function appendPage(shown: SearchResponse, next: SearchResponse): { response: SearchResponse; firstNew: SearchHit | undefined } {
  const key = (h: SearchHit) => `${h.index ?? ""}\u0000${h.id}`;
  const seen = new Set(shown.results.map(key));
  const added = next.results.filter((h) => !seen.has(key(h)));
  // The exact count of either answer, else the larger lower bound.
  const exact = [shown, next].find((r) => r.total_exact !== false);
  const total = exact ? { total: exact.total, total_exact: true } : { total: Math.max(shown.total, next.total), total_exact: false };
  const response: SearchResponse = { ...shown, ...total, results: [...shown.results, ...added] };
  return { response, firstNew: response.results[shown.results.length] };
}
