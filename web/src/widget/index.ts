// The entry module of the widget: defines <midashi-search> over the `midashi` package's engine
// (the wasm module in a Web Worker, files fetched from the `index` URL).
//
//   <script type="module" src="/search/midashi.js"></script>
//   <midashi-search index="/search/"></midashi-search>
//
// The single-file bundle midashi.js is this module with the package inlined; it expects
// worker.js and wasm/ next to itself, as `build-index --site` lays them out.

import { Midashi } from "../index.js";
import { defineMidashiSearch } from "./element.js";
import type { SearchSource, SourceOptions } from "./source.js";

export { splitPreview } from "./preview.js";
export { MidashiSearchElement, defineMidashiSearch, type NavigateDetail, type SearchEventDetail, type ResultsEventDetail } from "./element.js";
export type { SearchSource, SourceFactory, SourceOptions, SemanticState, SemanticDetail } from "./source.js";
export { en, ja, hasStrings, languageFor, languages, loadStrings, stringsFor, translations, type Strings } from "./strings.js";
export { appendHighlighted, normalizeRanges } from "./highlight.js";

/** Loads an index with the package's engine. */
export async function loadSource(indexUrl: string, options: SourceOptions = {}): Promise<SearchSource> {
  const load = options.semantic ? { semantic: options.semantic } : {};
  if (options.indexes?.length) return Midashi.loadMany(options.indexes, load);
  return Midashi.load(indexUrl, load);
}

defineMidashiSearch(loadSource);
