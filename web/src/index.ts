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
import { LruCache } from "./cache.js";
import { MidashiError, toMidashiError } from "./errors.js";
import type { RawResponse } from "./multi.js";
import { absolute, isNode } from "./loader.js";
import { LatestOnly } from "./scheduler.js";
import type {
  DocumentView,
  EngineSearchOptions,
  IndexInfo,
  IndexSource,
  LoadOptions,
  Manifest,
  SearchOptions,
  SearchResponse,
  SectionView,
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

/** Where the package's own files are: next to this module unless told otherwise. */
function assets(options: LoadOptions): { glueUrl: string; wasmUrl: string; workerUrl: string } {
  return {
    glueUrl: options.glueUrl ? absolute(options.glueUrl) : new URL("./wasm/midashi_wasm.js", import.meta.url).href,
    wasmUrl: options.wasmUrl ? absolute(options.wasmUrl) : new URL("./wasm/midashi_wasm_bg.wasm", import.meta.url).href,
    workerUrl: options.workerUrl ? absolute(options.workerUrl) : new URL("./worker.js", import.meta.url).href,
  };
}

/** One or several loaded indexes, searched as one. */
export class Midashi {
  /** The version of this package (and of the wasm module it accepts). */
  static readonly version = VERSION;

  private readonly cache: LruCache<string, RawResponse>;
  private readonly latest = new LatestOnly<RawResponse>();
  private closed = false;

  private constructor(
    private readonly backend: Backend,
    private readonly ids: number[],
    /** The loaded indexes, in load order. */
    readonly indexes: readonly IndexInfo[],
    cacheSize: number,
    /** Whether the engine runs in a Web Worker. */
    readonly inWorker: boolean,
  ) {
    this.cache = new LruCache(cacheSize);
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
    const { glueUrl, wasmUrl, workerUrl } = assets(options);
    // Node has no web Worker; its worker_threads would only copy the index once more for a
    // server that answers one query at a time anyway.
    const useWorker = (options.worker ?? true) && !isNode() && typeof Worker === "function";
    let backend: Backend | undefined;
    try {
      backend = useWorker ? new WorkerBackend(workerUrl) : new DirectBackend();
      await backend.call("init", { glueUrl, wasmUrl });
      const b = backend;
      // Several indexes load in parallel; each fetches its entry file first.
      const opened = await Promise.all(sources.map((s) => b.call("open", { name: s.name, source: absolute(s.url) })));
      const infos = opened.map(({ id: _id, ...info }) => info);
      return new Midashi(backend, opened.map((o) => o.id), infos, options.cacheSize ?? DEFAULT_CACHE_SIZE, useWorker);
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
   * Rejects with a {@link MidashiError}: `EMPTY_QUERY`, `QUERY_TOO_LONG`, `INVALID_OPTION`,
   * `UNKNOWN_INDEX`, `CLOSED`, `INTERNAL` (a trap in the engine; it is restarted for the next
   * call).
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const started = now();
    const { queryVector, supersede = true, cache = true, indexes, ...engineOptions } = options;
    try {
      const ids = this.select(indexes);
      const opts = defined(engineOptions);
      const key = cache && !queryVector ? stableJson([query, opts, ids]) : undefined;
      const hit = key === undefined ? undefined : this.cache.get(key);
      if (hit) {
        if (supersede) this.latest.bump();
        return { ...structuredClone(hit), tookMs: now() - started, cached: true };
      }
      const run = () => this.backend.call("search", { ids, query, options: opts, queryVector, tag: this.tagged });
      let raw: RawResponse;
      if (supersede) {
        const outcome = await this.latest.submit(run);
        if (outcome.superseded) {
          const mode = opts.mode && opts.mode !== "auto" ? opts.mode : "keyword";
          return { total: 0, tookMs: now() - started, results: [], suggestions: [], mode, superseded: true };
        }
        raw = outcome.value;
      } else {
        raw = await run();
      }
      if (key !== undefined) this.cache.set(key, structuredClone(raw));
      return { ...raw, tookMs: now() - started };
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /**
   * A section with its whole source text, by id or `path#anchor`; `null` when no loaded
   * index has it.
   */
  async getSection(target: string, options: LookupOptions = {}): Promise<SectionView | null> {
    try {
      return await this.backend.call("getSection", { ids: this.select(options.indexes), target, tag: this.tagged });
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /** A document with its source and outline, by path; `null` when no loaded index has it. */
  async getDocument(path: string, options: LookupOptions = {}): Promise<DocumentView | null> {
    try {
      return await this.backend.call("getDocument", { ids: this.select(options.indexes), path, tag: this.tagged });
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /** Completions for the word being typed, most frequent first. */
  async suggest(prefix: string, options: SuggestOptions | number = {}): Promise<string[]> {
    const opts = typeof options === "number" ? { limit: options } : options;
    try {
      return await this.backend.call("suggest", { ids: this.select(opts.indexes), prefix, limit: opts.limit ?? 8 });
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
      const fetched = await this.backend.call("loadVectors", { ids: this.select(options.indexes) });
      for (const info of this.indexes) {
        for (const f of info.manifest.files) if (fetched.includes(f.name) && !info.fetched.includes(f.name)) info.fetched.push(f.name);
      }
      this.cache.clear();
      return fetched;
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /** Frees the indexes and stops the worker; later calls reject with `CLOSED`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
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
