// The shapes the package hands out. Results are midashi-core's own types as the wasm module
// writes them (snake_case, exactly what `build-index search --json` prints): the Rust structs
// (crates/midashi-core/src/answer/, format/entry.rs) are their one source, and
// crates/midashi-wasm/tests/types.rs fails when a declaration here drifts from them (field
// names, `| null`, the unions of Mode, FileKind and Fusion, the option names).

/** Which legs a query runs. `auto`: hybrid when a query vector is given, keyword otherwise. */
export type Mode = "auto" | "keyword" | "semantic" | "hybrid";

/**
 * How hybrid search fuses the keyword and semantic legs (midashi-core `Fusion`). `auto`, the
 * default: the linear blend with equal weights for a query that reads as a question, and the
 * semantic leg at half weight for one that names what it looks for (a heading, an identifier,
 * a few keywords). `linear` and `rrf` use their weights for every query.
 */
export type Fusion =
  | { method: "auto" }
  | { method: "rrf"; k: number; keyword_weight: number; semantic_weight: number }
  | { method: "linear"; keyword_weight: number; semantic_weight: number };

/**
 * Options of the engine's search (midashi-core `SearchOptions`, camelCase). Every field is
 * optional; missing ones take the engine's defaults. An unknown field is refused with
 * `INVALID_OPTION`, as the engine refuses it.
 */
export interface EngineSearchOptions {
  /** Results per page, 1–1000 (default 10). */
  limit?: number;
  /** Results to skip (default 0). */
  offset?: number;
  /** Which legs (default `auto`). */
  mode?: Mode;
  /** How hybrid fuses (default: linear, min-max normalised scores, equal weights). */
  fusion?: Fusion;
  /** Only documents whose path starts with this. */
  path?: string | null;
  /** Only documents of this category. */
  category?: string | null;
  /** Only documents carrying all these tags. */
  tags?: string[];
  /** Only sections of these depths (0 = document, 1–6 = heading level). */
  depth?: number[];
  /** Only documents in this language. */
  lang?: string | null;
  /**
   * Documents in this language first, then those without one, then the rest, each in rank
   * order (nothing is left out, unlike `lang`). `ja` also matches `ja-JP`; `zh-TW` matches
   * `zh`, not `zh-CN`. The widget sends its page's language. With `loadMany`, each index
   * orders its own hits; the merged page interleaves them by score.
   */
  preferLang?: string | null;
  /** Only documents of this version. */
  version?: string | null;
  /** Drop results scoring below this. */
  minScore?: number | null;
  /** Lines of source in each preview (default 5). */
  previewLines?: number;
  /**
   * Give each result its excerpt, the words of its section that show why it matched (default
   * true). Making it is most of what a result costs: `false` when only the results' places
   * and lines are needed (an agent quoting sections, ranking measured against engines that
   * return ids); `excerpt` is then empty.
   */
  excerpts?: boolean;
  /** Treat the last word as a prefix, for search as you type (default true; the CLI uses false). */
  prefix?: boolean;
  /** Try typo corrections for unknown words (default true). */
  fuzzy?: boolean;
  /**
   * Show a passage once (default true): a section with no text of its own (a page title over
   * its first heading) gives its place to its first relative with text; sections with text
   * are results of their own. `false`: every matching section, one by one.
   */
  group?: boolean;
  /**
   * On a versioned site, show a section once (its newest matching version, the others in
   * `other_versions`) instead of once per version (default true; off when `version` is set).
   */
  collapseVersions?: boolean;
  /** Count all the results per facet value (`facets` of the response): filters to offer. */
  facets?: boolean;
  /**
   * Count them only when the query ranks every candidate anyway (little extra cost); a query
   * whose page was found without ranking them all (`total_exact: false`, a common word on a
   * large site) answers `facets: null` — ask again with `facets: true` when the counts are
   * wanted. What the widget asks as its reader types: the page at once, the counts once
   * typing pauses.
   */
  facetsIfRanked?: boolean;
}

/** Options of {@link Midashi.search}: the engine's options plus what the JS side handles. */
export interface SearchOptions extends EngineSearchOptions {
  /** The query's embedding (from the semantic module) for the semantic leg. */
  queryVector?: Float32Array;
  /**
   * Whether a newer `search()` call may supersede this one (default true). Set false for
   * batch use, e.g. several queries awaited together with `Promise.all`.
   */
  supersede?: boolean;
  /** Whether the LRU cache may answer this query (default true). */
  cache?: boolean;
  /**
   * Wait for the semantic module (loading it if needed) instead of answering with keyword
   * results while it loads (default false; mode `semantic` always waits). For batch use,
   * servers and agents, where the fused answer matters more than the first 100 ms.
   */
  waitForSemantic?: boolean;
  /**
   * Whether the query is settled (default true). Search as you type passes `false` for a
   * query still being typed: the `auto` policy then never starts the semantic download for
   * it (a prefix is not what the visitor means), and `semanticReason` says whether it would;
   * the caller starts it with `warmup()` once typing pauses, as `<midashi-search>` does.
   */
  settled?: boolean;
  /** With several indexes loaded: search only these (by name). Default: all. */
  indexes?: string[];
}

/** Options of {@link Midashi.quote}: a search's options and a token budget. */
export interface QuoteOptions extends SearchOptions {
  /**
   * Stop adding results before their tokens (the index's estimate) would pass this many;
   * results are never cut in the middle. Default: no budget.
   */
  tokenBudget?: number;
}

/**
 * A search answer quoted for an AI agent, exactly as `build-index mcp` quotes it
 * (midashi-core's `answer::quote`): what the widget's `search_docs` tool for browser agents
 * (WebMCP) returns.
 */
export interface QuotedSearch {
  /** What the agent reads: a summary line, then each result as `path > heading`, its place, a fenced preview and its id. */
  text: string;
  /** The results quoted, in order. */
  results: SearchHit[];
  /** Tokens of the quoted results (the index's estimate: one per CJK character, one per four others). */
  tokens: number;
  /** Results the token budget left out. */
  leftOut: number;
}

/** One result: a section with its place and a preview (midashi-core `SearchHit`). */
export interface SearchHit {
  /** Section id (16 hex digits), stable across rebuilds while the heading path stays. */
  id: string;
  /** Document path, relative to the docs folder. */
  path: string;
  /** Deep link: page URL + `#anchor`. */
  url: string;
  /** Anchor, `null` for a whole document. */
  anchor: string | null;
  heading: string;
  /** Breadcrumbs: document title > … > heading. */
  heading_path: string[];
  /** 0 = document, 1–6 = heading level. */
  depth: number;
  /** Ordinal among same-depth siblings. */
  section_number: number;
  /** First line in the source file (1-based). */
  start_line: number;
  /** Last line (inclusive). */
  end_line: number;
  /** BM25F, cosine or fused score, by mode. */
  score: number;
  /** The first lines of the section's Markdown source. */
  preview: string;
  /** Lines of the section not in the preview. */
  more_lines: number;
  /** `[start, end)` ranges of `preview` to wrap in `<mark>`, in UTF-16 code units. */
  highlights: [number, number][];
  /**
   * Why it matched, for people: the plain-text window of the section (Markdown and
   * frontmatter stripped) that best covers the matched words, `…` where cut. A hit that
   * matched no query word (a semantic one) shows its sentence with the most words beginning
   * with a query term, else the start of its text.
   */
  excerpt: string;
  /** `[start, end)` ranges of `excerpt` to wrap in `<mark>`, in UTF-16 code units. */
  excerpt_highlights: [number, number][];
  /** The document line of the excerpt's first marked word, else of its start (1-based). */
  excerpt_line: number;
  /** Document title. */
  title: string;
  /** Frontmatter description of the document, if any. */
  description: string | null;
  /** Estimated tokens of the section's own text. */
  token_estimate: number;
  /** The document's version (frontmatter `version` or a version-like folder), if any. */
  version: string | null;
  /** The same section in the other versions that matched, newest first. */
  other_versions: { version: string; id: string; url: string }[];
  /** With several indexes loaded: the name of the index this hit came from. */
  index?: string;
}

/** A page of results. */
/** How many results have a facet's value. */
export interface FacetCount {
  /** The value, as the filter option of the same name takes it. */
  value: string;
  /** Results with it. */
  count: number;
}

/** Results counted per value of each facet: the filters a search box offers. */
export interface Facets {
  /** The part of the site (frontmatter `category`, else the first folder): the `category` option. */
  category: FacetCount[];
  /** Frontmatter tags: the `tags` option. */
  tags: FacetCount[];
  /** Versions: the `version` option. */
  version: FacetCount[];
  /** Languages: the `lang` option. */
  lang: FacetCount[];
}

export interface SearchResponse {
  /** Results in all (after grouping), not just this page; when `total_exact` is false, at least this many. */
  total: number;
  /**
   * Whether `total` counts every result. A keyword query with many matches on a large site
   * finds its page without ranking every candidate (the page is the same) and counts only
   * the results that are certain, as Lucene does past its threshold: show it as "N+".
   */
  total_exact: boolean;
  /** Milliseconds from the call to the answer, as the caller waited for it. */
  tookMs: number;
  /** This page, best first. */
  results: SearchHit[];
  /** "Did you mean" queries, when there are few or no results. */
  suggestions: string[];
  /** The mode that ran. */
  mode: Exclude<Mode, "auto">;
  /** All the results counted per facet value, most first, when the `facets` option asked. */
  facets?: Facets | null;
  /**
   * True when a newer `search()` call was made before this one's answer was ready: the
   * query was dropped (or its stale answer discarded) and `results` is empty. A search box
   * simply ignores such a response.
   */
  superseded?: boolean;
  /** True when the LRU cache answered. */
  cached?: boolean;
  /**
   * True when the index can answer semantically but the semantic module was still loading:
   * these are keyword results, and the same query once `semanticState` is `ready` (the
   * `semantic` event) gives the fused ones.
   */
  semanticPending?: boolean;
  /**
   * Why the semantic leg would help this `auto` query (semantic `auto` policy): it reads as a
   * `question`, or its keyword results are `weak` (see docs/ranking.md). A settled query
   * has started loading the leg (`semanticPending`); one sent with `settled: false` has not.
   */
  semanticReason?: "question" | "weak";
}

/**
 * Readiness of semantic search. `unavailable`: the index has no vectors, or semantic search
 * is off (keyword only, nothing to wait for); `idle`: available, not loaded yet (the first
 * semantic or hybrid query, or `warmup()`, loads it); `loading`: the module, model and
 * vectors are being fetched (keyword results are given meanwhile); `ready`; `failed`
 * (keyword only from now on; `semanticError` says why).
 */
export type SemanticState = "unavailable" | "idle" | "loading" | "ready" | "failed";

/** The `detail` of a `semantic` event. */
export interface SemanticDetail {
  state: SemanticState;
  /** While loading: `download` (bytes arriving), then `compile` (module and model). */
  phase?: "download" | "compile";
  /** Bytes loaded so far, when known. */
  loaded?: number;
  /** Bytes in all, when known. */
  total?: number;
  /** With `failed`: why. */
  error?: string;
}

/** A section with its whole source text (midashi-core `SectionView`). */
export interface SectionView extends SearchHit {
  /** The whole section's source, subsections included. */
  text: string;
}

/** A document with its outline (midashi-core `DocumentView`). */
export interface DocumentView {
  path: string;
  url: string;
  title: string;
  /** The whole Markdown source. */
  source: string;
  /** Every section, in document order (no text, empty previews). */
  sections: SearchHit[];
  /** With several indexes loaded: the index the document came from. */
  index?: string;
}

/** What a file of the index holds. */
export type FileKind =
  | "Entry"
  | "Terms"
  | "Sections"
  | "Vectors"
  | "Model"
  | "Tokenizer"
  | "ModelConfig"
  | "Ann"
  // The sharded layout of large sites: the directory is loaded with the entry; shards,
  // bundles, the lexicon and the tree are fetched as queries need them.
  | "Directory"
  | "Shard"
  | "Bundle"
  | "Lexicon"
  | "Tree"
  | "Paths"
  | "Card"
  // A static embedding table: a question's vector by look-up, with no encoder.
  | "Table";

/** One file of an index, as the entry file names it. */
export interface FileRef {
  kind: FileKind;
  /** File name inside the index folder (content-hashed). */
  name: string;
  /** Size in bytes. */
  bytes: number;
  /** Whether keyword search needs it (fetched at load); the rest load lazily. */
  needed_for_keyword: boolean;
}

/** The entry file's contents (midashi-core `Manifest`). */
export interface Manifest {
  /** The midashi version that wrote the index. */
  generator: string;
  files: FileRef[];
  stats: { documents: number; sections: number; terms: number; vectors: number };
  /** Slug style of the anchors. */
  slug: string;
  /** Base URL prefixed to page URLs. */
  base_url: string;
  /**
   * The embedding model of the vectors, when the index has any; `languages`: the languages it
   * covers (empty: unknown, trusted for every query).
   */
  model: { name: string; dims: number; sha256: string; languages: string[] } | null;
  /**
   * The languages whose analyzer rules made the index's terms (`fr`, `de` …), the site's
   * first; empty: English. Queries are read in the reader's (`preferLang`) when it is one of
   * them, else in the site's.
   */
  languages: string[];
}

/** A loaded index. */
export interface IndexInfo {
  /** The name given to `loadMany` (for `load`: `"default"`). */
  name: string;
  /** Where it was loaded from (absolute URL or path). */
  source: string;
  manifest: Manifest;
  /** A versioned site's versions, newest first (empty when it has fewer than two). */
  versions: string[];
  /** The files fetched so far, in order (the entry file first). */
  fetched: string[];
}

/** Which of the two search engine modules is loaded (see {@link AssetOptions}). */
export type EngineKind = "keyword" | "full";

/**
 * Where the package's own files are, when they are not next to `index.js`.
 *
 * The search engine is two wasm modules of one build (web/wasm-modules.json): the keyword
 * module (`midashi_keyword_bg.wasm`), loaded first, which answers keyword queries and
 * completions on a sharded index, and the full engine (`midashi_wasm_bg.wasm`), fetched when
 * the index is a single file, a word is to be corrected, a preview is longer than a card's
 * (5 lines), or vectors or a section/document are first asked for. Give `wasmUrl` alone to
 * load only the full engine. A page whose index is not all English may give the languages
 * keyword module (`wasm/languages/midashi_keyword_bg.wasm`) as the keyword module;
 * `build-index --site` serves it so.
 */
export interface AssetOptions {
  /** URL (or, in Node, path) of the full engine `midashi_wasm_bg.wasm`. */
  wasmUrl?: string | URL;
  /** URL of its wasm-bindgen glue `midashi_wasm.js`. */
  glueUrl?: string | URL;
  /** URL (or, in Node, path) of the keyword module `midashi_keyword_bg.wasm`. */
  keywordWasmUrl?: string | URL;
  /** URL of its wasm-bindgen glue `midashi_keyword.js`. */
  keywordGlueUrl?: string | URL;
  /** URL of `worker.js`. */
  workerUrl?: string | URL;
  /**
   * URL of a folder laid out as the package's `dist/` is (`worker.js`, `wasm/`, `embed/`,
   * `embed-worker.js`): where the files above are taken from when they are not given one by
   * one. Default: next to this module, which bundlers that understand
   * `new URL("./file", import.meta.url)` (Vite, webpack 5, Rollup) rewrite. When those files
   * are not found there (a bundler that does not, such as esbuild) and none was named, the
   * index's own folder is tried: `npx midashi` writes them beside the index.
   */
  assetsUrl?: string | URL;
  /** URL of the semantic module's glue `embed/midashi_wasm_embed.js`. */
  embedGlueUrl?: string | URL;
  /** URL of the semantic module `embed/midashi_wasm_embed_bg.wasm`. */
  embedWasmUrl?: string | URL;
  /** URL of `embed-worker.js` (the semantic module's Web Worker). */
  embedWorkerUrl?: string | URL;
}

/** Options of {@link Midashi.load}. */
export interface LoadOptions extends AssetOptions {
  /** The index folder: a URL (relative to the page), or in Node a path or `file:` URL. */
  url?: string | URL;
  /**
   * Run the engine in a Web Worker (default: true where `Worker` exists, i.e. browsers).
   * In Node the engine always runs on the calling thread.
   */
  worker?: boolean;
  /** Entries of the LRU cache of answers (default 64; 0 disables it). */
  cacheSize?: number;
  /**
   * Milliseconds a file's server may send nothing (no answer, or a download that stops)
   * before the request fails with `NETWORK` (default 30000; 0 waits for ever). A stall, not
   * a total: a large download that keeps arriving is never cut off.
   */
  timeout?: number;
  /**
   * When the semantic module (about 3 MB of wasm plus the model, ~23 MB) loads, for an index
   * with vectors. `auto` (default): for an explicit semantic or hybrid query, `warmup()`, or
   * an `auto` query that reads as a question or whose keyword results are weak (midashi-core's
   * `search::policy`), never under Save-Data or on a 2G connection, never for a query in a
   * language the model does not cover; `on-demand`: only for explicit semantic or hybrid
   * queries and `warmup()` (the widget's "Search by meaning"); `lazy`: also on the first `auto`
   * query; `idle`: as soon as the browser is idle after load; `off` never (keyword only).
   */
  semantic?: "auto" | "on-demand" | "lazy" | "idle" | "off";
  /**
   * A folder with the embedding model as `build-index prepare-model <model folder> --out
   * <folder>` writes it (`model.bin`, `tokenizer.json`, `midashi-model.json`), for an index
   * built with `--no-ship-model`. Default: the model files the index names. It must be the
   * model the vectors were made with.
   */
  modelUrl?: string | URL;
}

/** One index of {@link Midashi.loadMany}. */
export interface IndexSource {
  /** A name for it (e.g. `en`, `ja`, `v3`), given back as `index` on each hit. */
  name: string;
  /** Its folder (as for {@link LoadOptions.url}). */
  url: string | URL;
}
