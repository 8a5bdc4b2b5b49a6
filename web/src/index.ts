// The `midashi` package: Midashi's search engine (compiled to WebAssembly) for browsers and
// Node.
//
//   import { Midashi } from "midashi";
//   const idx = await Midashi.load("/search/");
//   const { results } = await idx.search("computed property", { limit: 10 });
//
// Results are the engine's own SearchHit objects, exactly what `build-index search --json`
// prints for the same index and options: nothing is re-ranked or re-implemented here.

import { DirectBackend, WorkerBackend, type Backend } from "./backend.js";
import * as args from "./args.js";
import { assets } from "./assets.js";
import { LruCache } from "./cache.js";
import type { EmbedRequests, EmbedSources } from "./embed-host.js";
import { MidashiError, toMidashiError } from "./errors.js";
import type { RawResponse } from "./multi.js";
import { absolute, isNode, join } from "./loader.js";
import type { Requests } from "./host.js";
import { LatestOnly } from "./scheduler.js";
import type {
  DocumentView,
  EngineKind,
  EngineSearchOptions,
  IndexInfo,
  IndexSource,
  LoadOptions,
  Manifest,
  QuoteOptions,
  QuotedSearch,
  SearchHit,
  SearchOptions,
  SearchResponse,
  SectionView,
  SemanticDetail,
  SemanticState,
} from "./types.js";
import { VERSION } from "./version.js";

export { MidashiError, type ErrorCode } from "./errors.js";
export { LruCache } from "./cache.js";
export { ENTRY_FILE_NAME } from "./loader.js";
export type * from "./types.js";

const DEFAULT_CACHE_SIZE = 64;

/** Which indexes a lookup may look in. */
export interface LookupOptions {
  /** With several indexes loaded: only these (by name). Default: all, in load order. */
  indexes?: string[];
}

/** Options of {@link Midashi.suggest}. */
export interface SuggestOptions extends LookupOptions {
  /** Completions at most (default 8). */
  limit?: number;
}

function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}

/** The options object without `undefined` values (the engine would refuse `limit: undefined`). */
function defined(opts: EngineSearchOptions): EngineSearchOptions {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) if (v !== undefined) out[k] = v;
  return out as EngineSearchOptions;
}

/** JSON with sorted keys: equal options give equal cache keys whatever their order. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * Whether the visitor asked to save data (`Save-Data`) or is on a 2G connection: then an
 * `auto` query never starts the semantic leg's download by itself.
 */
function constrainedConnection(): boolean {
  const c = (globalThis as { navigator?: { connection?: { saveData?: boolean; effectiveType?: string } } }).navigator?.connection;
  return c?.saveData === true || /(^|-)2g$/.test(c?.effectiveType ?? "");
}

/** The semantic module once loaded: where queries are embedded, and with which model. */
interface Semantic {
  /** The semantic module, which embeds queries; none for an index with a static table, whose engine looks them up. */
  backend?: Backend<EmbedRequests>;
  /** sha256 of the model (the host gives the vector only to indexes made with it). */
  model: string;
}

/**
 * One or several loaded indexes, searched as one. An EventTarget: `semantic` events (a
 * CustomEvent whose `detail` is a {@link SemanticDetail}) tell how far the semantic module
 * has loaded.
 */
export class Midashi extends EventTarget {
  /** The version of this package (and of the wasm module it accepts). */
  static readonly version = VERSION;

  private readonly cache: LruCache<string, RawResponse>;
  private readonly latest = new LatestOnly<RawResponse>();
  private closed = false;
  private state: SemanticState;
  private failure?: MidashiError;
  private semanticLoad?: Promise<Semantic>;
  /** The semantic module's host while it loads, so that a download can be cancelled. */
  private loadingBackend?: Backend<EmbedRequests>;
  private semantic?: Semantic;

  private constructor(
    private readonly backend: Backend<Requests>,
    private readonly ids: number[],
    /** The loaded indexes, in load order. */
    readonly indexes: readonly IndexInfo[],
    cacheSize: number,
    /** Whether the engine runs in a Web Worker. */
    readonly inWorker: boolean,
    private readonly options: LoadOptions,
  ) {
    super();
    this.cache = new LruCache(cacheSize);
    this.state = options.semantic !== "off" && indexes.some((i) => i.manifest.model) ? "idle" : "unavailable";
    if (this.state === "idle" && options.semantic === "idle") whenIdle(() => void this.warmup().catch(() => undefined));
  }

  /**
   * Loads an index folder: its entry file first, then only the files keyword search needs.
   * `source` is a URL (relative to the page), or in Node a path or `file:` URL. Rejects with
   * a {@link MidashiError} (`NOT_FOUND`, `NETWORK`, `CORRUPTED`, `TRUNCATED`,
   * `FORMAT_VERSION`, `VERSION_MISMATCH`, …) whose message says what to do.
   */
  static async load(source: string | URL | LoadOptions, options: LoadOptions = {}): Promise<Midashi> {
    const opts: LoadOptions = typeof source === "string" || source instanceof URL ? { ...options, url: source } : { ...source, ...options };
    if (opts.url === undefined) throw new MidashiError("NOT_FOUND", "Midashi.load needs the index folder's URL (or path in Node)");
    return Midashi.open([{ name: "default", url: opts.url }], opts);
  }

  /**
   * Loads several indexes (e.g. one per language or docs version) to search as one: hits are
   * merged by score and carry `index`, the name of the index they came from; the `indexes`
   * search option picks some of them.
   */
  static async loadMany(sources: IndexSource[], options: LoadOptions = {}): Promise<Midashi> {
    if (sources.length === 0) throw new MidashiError("NOT_FOUND", "Midashi.loadMany needs at least one { name, url }");
    const names = new Set<string>();
    for (const s of sources) {
      if (names.has(s.name)) throw new MidashiError("INVALID_OPTION", `two indexes are named ${JSON.stringify(s.name)}: give each a distinct name`);
      names.add(s.name);
    }
    return Midashi.open(sources, options);
  }

  private static async open(sources: IndexSource[], options: LoadOptions): Promise<Midashi> {
    try {
      args.whole(options.timeout, "timeout");
      return await Midashi.openWith(sources, options);
    } catch (e) {
      // The engine's files were not next to this module (a bundler that leaves
      // `new URL(…, import.meta.url)` alone): `npx midashi` wrote the same files beside the
      // index, so they are tried there once. The first error is the one reported.
      const first = sources[0];
      const named = [options.assetsUrl, options.workerUrl, options.wasmUrl, options.glueUrl, options.keywordWasmUrl, options.keywordGlueUrl];
      if (first === undefined || isNode() || named.some((n) => n !== undefined)) throw e;
      const folder = absolute(first.url).replace(/\/?$/, "/");
      if (!/^https?:/.test(folder)) throw e;
      try {
        return await Midashi.openWith(sources, { ...options, assetsUrl: folder });
      } catch {
        throw e;
      }
    }
  }

  private static async openWith(sources: IndexSource[], options: LoadOptions): Promise<Midashi> {
    const { glueUrl, wasmUrl, keyword, workerUrl } = assets(options);
    // Node has no web Worker; its worker_threads would only copy the index once more for a
    // server that answers one query at a time anyway.
    const useWorker = (options.worker ?? true) && !isNode() && typeof Worker === "function";
    let backend: Backend<Requests> | undefined;
    try {
      // The host on this thread is imported only when it is used: the widget's bundle
      // (always in a worker) leaves it out.
      backend = useWorker ? new WorkerBackend<Requests>(workerUrl, "search") : new DirectBackend<Requests>(new (await import("./host.js")).Host());
      await backend.call("init", { glueUrl, wasmUrl, keyword, timeoutMs: options.timeout });
      const b = backend;
      // Several indexes load in parallel; each fetches its entry file first.
      const opened = await Promise.all(sources.map((s) => b.call("open", { name: s.name, source: absolute(s.url) })));
      const infos = opened.map(({ id: _id, ...info }) => info);
      return new Midashi(backend, opened.map((o) => o.id), infos, options.cacheSize ?? DEFAULT_CACHE_SIZE, useWorker, options);
    } catch (e) {
      backend?.close();
      throw toMidashiError(e);
    }
  }

  /** The manifest (entry file) of the first index. */
  get manifest(): Manifest {
    const first = this.indexes[0];
    if (!first) throw new MidashiError("CLOSED", "no index is loaded");
    return first.manifest;
  }

  /** Whether answers say which index they came from: whenever several are loaded. */
  private get tagged(): boolean {
    return this.ids.length > 1;
  }

  /** Which loaded indexes `names` means (all when not given). */
  private select(names?: string[]): number[] {
    if (this.closed) throw new MidashiError("CLOSED", "this Midashi instance was closed; load the index again");
    if (!names) return this.ids;
    return names.map((n) => {
      const i = this.indexes.findIndex((x) => x.name === n);
      const id = this.ids[i];
      if (i < 0 || id === undefined) {
        throw new MidashiError("UNKNOWN_INDEX", `no index named ${JSON.stringify(n)} is loaded (loaded: ${this.indexes.map((x) => x.name).join(", ")})`);
      }
      return id;
    });
  }

  /**
   * Searches. Resolves with `{ total, tookMs, results, suggestions, mode }`; results are the
   * engine's SearchHits (with `index` when several indexes are loaded).
   *
   * Search as you type: a newer `search()` call supersedes an older one still waiting for
   * its answer. The older call then RESOLVES (it does not reject) with `superseded: true`
   * and no results; ignore such answers. Pass `supersede: false` to opt a call out (batch
   * use). A repeated query is answered from a small LRU cache (`cached: true`).
   *
   * A blank query resolves to an empty answer (a cleared search box is not an error).
   * Rejects with a {@link MidashiError}: `QUERY_TOO_LONG`, `INVALID_OPTION`,
   * `UNKNOWN_INDEX`, `CLOSED`, `INTERNAL` (a trap in the engine; it is restarted for the next
   * call).
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const started = now();
    try {
      args.text(query, "the query");
      const given = args.options<SearchOptions>(options);
      const { queryVector: vectorGiven, supersede: supersedeGiven, cache: cacheGiven, indexes: indexesGiven, waitForSemantic: waitGiven, settled: settledGiven, ...engineOptions } = given;
      const queryVector = args.vector(vectorGiven);
      const supersede = args.flag(supersedeGiven, "supersede") ?? true;
      const cache = args.flag(cacheGiven, "cache") ?? true;
      const waitForSemantic = args.flag(waitGiven, "waitForSemantic") ?? false;
      const settled = args.flag(settledGiven, "settled") ?? true;
      const ids = this.select(args.names(indexesGiven));
      args.engineValues(engineOptions);
      const opts = defined(engineOptions);
      const mode = opts.mode ?? "auto";
      // The semantic leg, when the query wants one and none was given: from the semantic
      // module if it is ready; otherwise it starts loading and this answer is keyword-only
      // (mode `semantic` and `waitForSemantic` wait for it instead).
      let semantic: Semantic | undefined;
      let semanticPending = false;
      // An `auto` query in a language the model does not cover would discard its vector
      // (midashi-core's `semantic_covers`): it neither loads the semantic module nor embeds.
      const wanted = query.trim() !== "" && !queryVector && mode !== "keyword" && this.semanticFor(ids) && (mode !== "auto" || (await this.backend.call("covers", { ids, query })));
      // Under the `auto` and `on-demand` policies an `auto` query does not start the download
      // before its keyword answer: that answer says whether the leg would help.
      const policy = this.options.semantic ?? "auto";
      const deferred = wanted && mode === "auto" && (policy === "auto" || policy === "on-demand") && this.state !== "ready" && this.state !== "loading";
      if (wanted && !deferred) {
        const usable = this.state === "idle" || this.state === "loading" || this.state === "ready";
        if (usable || mode === "semantic") {
          const load = this.warmup().then(() => this.semantic);
          if (mode === "semantic" || waitForSemantic) semantic = await load;
          else {
            load.catch(() => undefined);
            semantic = this.state === "ready" ? this.semantic : undefined;
          }
        }
        if (!semantic) {
          semanticPending = this.state === "loading";
          // An explicit hybrid query degrades to its keyword leg rather than failing.
          if (mode === "hybrid") opts.mode = "keyword";
        }
      }
      const key = cache && !queryVector ? stableJson([query, opts, ids, semantic ? semantic.model : ""]) : undefined;
      const hit = key === undefined ? undefined : this.cache.get(key);
      const run = async () => {
        const vector = queryVector ?? (semantic?.backend ? await semantic.backend.call("embed", { text: query }) : undefined);
        return this.backend.call("search", { ids, query, options: opts, queryVector: vector, vectorModel: semantic?.model, tag: this.tagged });
      };
      let raw: RawResponse;
      if (hit) {
        if (supersede) this.latest.bump();
        raw = structuredClone(hit);
      } else if (supersede) {
        const outcome = await this.latest.submit(run);
        if (outcome.superseded) {
          const ran = opts.mode && opts.mode !== "auto" ? opts.mode : "keyword";
          return { total: 0, total_exact: true, tookMs: now() - started, results: [], suggestions: [], mode: ran, superseded: true };
        }
        raw = outcome.value;
      } else {
        raw = await run();
      }
      // Whether the leg would help is asked of the keyword answer (cached or not); only a
      // settled query starts the download: a prefix typed on the way is not what is meant.
      let semanticReason: "question" | "weak" | undefined;
      if (deferred && policy === "auto" && this.state === "idle" && !constrainedConnection()) {
        semanticReason = (await this.backend.call("reason", { ids, query, total: raw.total })) ?? undefined;
        if (semanticReason && settled) {
          this.warmup().catch(() => undefined);
          semanticPending = true;
        }
      }
      if (hit) return { ...raw, tookMs: now() - started, cached: true, ...(semanticPending ? { semanticPending } : {}), ...(semanticReason ? { semanticReason } : {}) };
      if (key !== undefined && !semanticPending) this.cache.set(key, structuredClone(raw));
      return { ...raw, tookMs: now() - started, ...(semanticPending ? { semanticPending } : {}), ...(semanticReason ? { semanticReason } : {}) };
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /** Readiness of semantic search (see {@link SemanticState}); `semantic` events tell changes. */
  get semanticState(): SemanticState {
    return this.state;
  }

  /** Why semantic search failed, when `semanticState` is `failed`. */
  get semanticError(): MidashiError | undefined {
    return this.failure;
  }

  /**
   * Loads semantic search now: the semantic module, the model and the vectors, each fetched
   * once, with `semantic` progress events (`loading`: download N of M bytes, then compile;
   * `ready`, or `failed`). Resolves when hybrid and semantic queries can run; rejects with
   * `SEMANTIC_UNAVAILABLE` (no vectors, semantic off, or the model failed to load; keyword
   * search keeps working either way).
   */
  warmup(): Promise<void> {
    if (this.closed) return Promise.reject(new MidashiError("CLOSED", "this Midashi instance was closed; load the index again"));
    if (this.state === "unavailable") {
      const why = this.options.semantic === "off" ? "semantic search is off (LoadOptions.semantic)" : "no loaded index has vectors: rebuild it with a model (scripts/fetch-model.sh, then build-index without --keyword-only)";
      return Promise.reject(new MidashiError("SEMANTIC_UNAVAILABLE", why));
    }
    this.semanticLoad ??= this.loadSemantic();
    return this.semanticLoad.then(() => undefined);
  }

  /**
   * Stops a semantic download under way: its worker is ended, what it fetched is dropped, and
   * `semanticState` goes back to `idle` (a later `warmup()` or qualifying query starts
   * again). Keyword search is not affected. Does nothing unless the state is `loading`.
   */
  cancelSemantic(): void {
    if (this.state !== "loading") return;
    this.loadingBackend?.close();
    this.loadingBackend = undefined;
    this.semanticLoad = undefined;
    this.setState({ state: "idle" });
  }

  /** The model of the loaded indexes with vectors among `ids` (the first one's), if any. */
  private semanticFor(ids: number[]): IndexInfo | undefined {
    return ids.map((id) => this.indexes[this.ids.indexOf(id)]).find((i) => i?.manifest.model);
  }

  private setState(detail: SemanticDetail): void {
    this.state = detail.state;
    this.dispatchEvent(new CustomEvent<SemanticDetail>("semantic", { detail }));
  }

  private async loadSemantic(): Promise<Semantic> {
    const info = this.semanticFor(this.ids);
    if (!info?.manifest.model) throw new MidashiError("SEMANTIC_UNAVAILABLE", "no loaded index has vectors");
    const expect = info.manifest.model;
    const bytesOf = (i: IndexInfo) => i.manifest.files.filter((f) => f.kind === "Vectors" || f.kind === "Table").reduce((n, f) => n + f.bytes, 0);
    const vectorsBytes = this.indexes.reduce((n, i) => n + bytesOf(i), 0);
    let vectorsDone = false;
    let progress: SemanticDetail = { state: "loading", phase: "download", loaded: 0, total: vectorsBytes };
    this.setState(progress);
    const onEvent = (event: unknown) => {
      const d = event as SemanticDetail;
      if (this.state !== "loading") return;
      progress = { ...d, loaded: (d.loaded ?? 0) + (vectorsDone ? vectorsBytes : 0), total: (d.total ?? 0) + vectorsBytes };
      this.setState(progress);
    };
    const a = assets(this.options);
    const useWorker = this.inWorker;
    let backend: Backend<EmbedRequests> | undefined;
    try {
      // A static table: the engine embeds queries by look-up, with no semantic module.
      if (info.manifest.files.some((f) => f.kind === "Table")) {
        await this.loadVectors();
        if (this.closed) throw new MidashiError("CLOSED", "this Midashi instance was closed while semantic search loaded");
        this.semantic = { model: expect.sha256 };
        this.setState({ state: "ready", loaded: vectorsBytes, total: vectorsBytes });
        return this.semantic;
      }
      backend = useWorker
        ? new WorkerBackend<EmbedRequests>(a.embedWorkerUrl, "semantic", onEvent)
        : new DirectBackend<EmbedRequests>(new (await import("./embed-host.js")).EmbedHost(onEvent));
      const b = backend;
      this.loadingBackend = b;
      const sources: EmbedSources = { ...modelFiles(info, this.options), glueUrl: a.embedGlueUrl, wasmUrl: a.embedWasmUrl, expect, timeoutMs: this.options.timeout };
      await Promise.all([
        b.call("init", sources),
        this.loadVectors().then(() => {
          vectorsDone = true;
        }),
      ]);
      if (this.closed) throw new MidashiError("CLOSED", "this Midashi instance was closed while semantic search loaded");
      if (this.loadingBackend !== b) throw new MidashiError("SEMANTIC_UNAVAILABLE", "the semantic download was cancelled");
      this.loadingBackend = undefined;
      this.semantic = { backend: b, model: expect.sha256 };
      this.setState({ state: "ready", loaded: progress.total, total: progress.total });
      return this.semantic;
    } catch (e) {
      backend?.close();
      // Cancelled (cancelSemantic): the state is already back to idle.
      if (this.loadingBackend !== backend) throw new MidashiError("SEMANTIC_UNAVAILABLE", "the semantic download was cancelled");
      this.loadingBackend = undefined;
      const err = toMidashiError(e);
      const failure = err.code === "SEMANTIC_UNAVAILABLE" || err.code === "CLOSED" ? err : new MidashiError("SEMANTIC_UNAVAILABLE", `semantic search could not load: ${err.message}`, { cause: err });
      this.failure = failure;
      this.setState({ state: "failed", error: failure.message });
      throw failure;
    }
  }

  /**
   * A section with its whole source text, by id or `path#anchor`; `null` when no loaded
   * index has it.
   */
  async getSection(target: string, options: LookupOptions = {}): Promise<SectionView | null> {
    try {
      const opts = args.options<LookupOptions>(options);
      args.text(target, "the section (an id or path#anchor)");
      return await this.backend.call("getSection", { ids: this.select(args.names(opts.indexes)), target, tag: this.tagged });
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /**
   * A search answer quoted for an AI agent exactly as `build-index mcp` quotes it
   * (midashi-core's `answer::quote`): a summary line, then each result's `path > heading
   * path`, place, fenced preview and id, within `tokenBudget` when given. What the widget's
   * `search_docs` tool for browser agents returns. Searches as {@link search} does (never
   * superseded); quoting loads the full engine.
   */
  async quote(query: string, options: QuoteOptions = {}): Promise<QuotedSearch> {
    try {
      const { tokenBudget: budgetGiven, ...searchOptions } = args.options<QuoteOptions>(options);
      const tokenBudget = args.whole(budgetGiven, "tokenBudget");
      const response = await this.search(query, { ...searchOptions, supersede: false });
      const { previewLines } = searchOptions;
      const q = await this.backend.call("quoteSearch", { query, response, previewLines, tokenBudget });
      return { text: q.text, results: q.results.map((i) => response.results[i] as SearchHit), tokens: q.tokens, leftOut: q.left_out };
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /**
   * A whole section quoted as `build-index mcp` gives it (breadcrumb, place, URL, fenced
   * source, id); with `link` (the section's absolute URL) instead the Markdown to paste
   * elsewhere — its heading path linked to `link`, file and lines, then the section — which
   * is the widget's "Copy as Markdown". `null` when no loaded index has the section.
   */
  async quoteSection(target: string, options: LookupOptions & { link?: string } = {}): Promise<string | null> {
    try {
      const opts = args.options<LookupOptions & { link?: string }>(options);
      const link = opts.link === undefined ? undefined : args.text(opts.link, "link");
      const section = await this.getSection(target, { indexes: opts.indexes });
      return section && (await this.backend.call("quoteSection", { section, link }));
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /** A document with its source and outline, by path; `null` when no loaded index has it. */
  async getDocument(path: string, options: LookupOptions = {}): Promise<DocumentView | null> {
    try {
      const opts = args.options<LookupOptions>(options);
      args.text(path, "the document's path");
      return await this.backend.call("getDocument", { ids: this.select(args.names(opts.indexes)), path, tag: this.tagged });
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /** Completions for the word being typed, most frequent first. */
  async suggest(prefix: string, options: SuggestOptions | number = {}): Promise<string[]> {
    try {
      const opts = typeof options === "number" ? { limit: options } : args.options<SuggestOptions>(options);
      args.text(prefix, "the prefix");
      const limit = args.whole(opts.limit, "limit") ?? 8;
      return await this.backend.call("suggest", { ids: this.select(args.names(opts.indexes)), prefix, limit });
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /**
   * Fetches the vectors files (skipped at load: keyword search does not need them) for
   * semantic search. Resolves with the names of the files fetched.
   */
  async loadVectors(options: LookupOptions = {}): Promise<string[]> {
    try {
      const opts = args.options<LookupOptions>(options);
      const fetched = await this.backend.call("loadVectors", { ids: this.select(args.names(opts.indexes)) });
      for (const info of this.indexes) {
        for (const f of info.manifest.files) if (fetched.includes(f.name) && !info.fetched.includes(f.name)) info.fetched.push(f.name);
      }
      this.cache.clear();
      return fetched;
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /**
   * Which search engine module is loaded: `"keyword"` (the keyword module, all that keyword
   * queries and completions need) or `"full"` (once vectors or a section/document were asked
   * for, or when only `wasmUrl` was given). For diagnostics: it says which module a page has
   * fetched.
   */
  async engine(): Promise<EngineKind> {
    try {
      return await this.backend.call("engine", {});
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /** Frees the indexes and stops the worker; later calls reject with `CLOSED`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    this.semantic?.backend?.close();
    this.backend.call("close", { ids: this.ids }).catch(() => undefined);
    this.backend.close();
  }

  /**
   * Makes the engine trap, to prove recovery (tests only).
   * @internal
   */
  async panicForTests(): Promise<void> {
    try {
      await this.backend.call("panicForTests", {});
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /** How many answers the LRU cache holds (tests, diagnostics). */
  get cacheSize(): number {
    return this.cache.size;
  }
}

/** The model files of an index (the ones it ships, or the `modelUrl` folder's). */
function modelFiles(info: IndexInfo, options: LoadOptions): Pick<EmbedSources, "model" | "tokenizer" | "config" | "sizes" | "shipped"> {
  if (options.modelUrl !== undefined) {
    const dir = absolute(options.modelUrl);
    // A folder `build-index prepare-model` wrote: the semantic module reads the prepared
    // graph only, not ONNX.
    return { model: join(dir, "model.bin"), tokenizer: join(dir, "tokenizer.json"), config: join(dir, "midashi-model.json"), sizes: {}, shipped: false };
  }
  const file = (kind: "Model" | "Tokenizer" | "ModelConfig") => info.manifest.files.find((f) => f.kind === kind);
  const model = file("Model");
  const tokenizer = file("Tokenizer");
  const config = file("ModelConfig");
  if (!model || !tokenizer || !config) {
    throw new MidashiError(
      "SEMANTIC_UNAVAILABLE",
      `index ${JSON.stringify(info.name)} has vectors but ships no model (built with --no-ship-model): pass modelUrl, a folder \`build-index prepare-model <model folder> --out <folder>\` wrote (model.bin, tokenizer.json, midashi-model.json)`,
    );
  }
  return {
    model: join(info.source, model.name),
    tokenizer: join(info.source, tokenizer.name),
    config: join(info.source, config.name),
    sizes: { model: model.bytes, tokenizer: tokenizer.bytes, config: config.bytes },
    shipped: true,
  };
}

/** Runs `f` once the page is idle (or soon, where there is no idle callback). */
function whenIdle(f: () => void): void {
  const g = globalThis as { requestIdleCallback?: (cb: () => void, opts?: { timeout: number }) => void };
  if (g.requestIdleCallback) g.requestIdleCallback(f, { timeout: 5000 });
  else setTimeout(f, 1000);
}
