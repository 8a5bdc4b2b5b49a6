// The side that owns the wasm instance and the index bytes: it runs inside the Web Worker
// (worker.ts), or on the calling thread when there is no worker (Node, `{ worker: false }`).
// Requests are plain data in and plain data out, so the same code serves both.

import { Engine, compileModule, type RawQuote, type Step, type WasmIndex } from "./engine.js";
import { MidashiError, toMidashiError } from "./errors.js";
import { ENTRY_FILE_NAME, inBatches, readBytes, readIndexFile } from "./loader.js";
import { mergeResponses, perIndexOptions, type RawResponse } from "./multi.js";
import type { DocumentView, EngineKind, EngineSearchOptions, FileKind, IndexInfo, Manifest, SectionView } from "./types.js";

/** Where one wasm module and its glue are. */
export interface ModuleUrls {
  glueUrl: string;
  wasmUrl: string;
}

/** Requests, by operation. */
export interface Requests {
  /** The full engine's files, and the keyword module's to start with (when given). */
  init: { args: ModuleUrls & { keyword?: ModuleUrls; timeoutMs?: number }; result: { version: string } };
  open: { args: { name: string; source: string }; result: IndexInfo & { id: number } };
  search: {
    args: {
      ids: number[];
      query: string;
      options: EngineSearchOptions;
      queryVector?: Float32Array;
      /** sha256 of the model that made `queryVector` (empty: unknown, trust it). */
      vectorModel?: string;
      tag: boolean;
    };
    result: RawResponse;
  };
  getSection: { args: { ids: number[]; target: string; tag: boolean }; result: SectionView | null };
  getDocument: { args: { ids: number[]; path: string; tag: boolean }; result: DocumentView | null };
  suggest: { args: { ids: number[]; prefix: string; limit: number }; result: string[] };
  loadVectors: { args: { ids: number[] }; result: string[] };
  /** Whether an `auto` query would use a semantic leg: some index's model covers its language. */
  covers: { args: { ids: number[]; query: string }; result: boolean };
  /** Why an `auto` query with `total` keyword results would gain from the semantic leg. */
  reason: { args: { ids: number[]; query: string; total: number }; result: "question" | "weak" | null };
  /** A search answer quoted as the MCP server quotes it (midashi-core's `answer::quote`). */
  quoteSearch: { args: { query: string; response: RawResponse; previewLines?: number; tokenBudget?: number }; result: RawQuote };
  /** A section as the MCP server gives it, or with `link` as Markdown to paste. */
  quoteSection: { args: { section: SectionView; link?: string }; result: string };
  close: { args: { ids: number[] }; result: null };
  engine: { args: Record<string, never>; result: EngineKind };
  panicForTests: { args: Record<string, never>; result: null };
}
export type Op = keyof Requests;

/** A loaded index: what it was loaded from and the bytes to reopen it with. */
interface Loaded {
  info: IndexInfo;
  entry: Uint8Array;
  /** Single layout: the keyword files. */
  terms?: Uint8Array;
  sections?: Uint8Array;
  /** Sharded layout: the directory (shards and bundles are fetched again after a trap). */
  directory?: Uint8Array;
  /**
   * The semantic leg's files once attached, in the order they were (vectors, the HNSW graph
   * of a large index, a static table): attached again to a fresh instance.
   */
  meaning?: { name: string; bytes: Uint8Array }[];
  index: WasmIndex;
}

const HOW_TO_BUILD = "check the location points at a folder written by `build-index <docs> --out <folder>`";

/** Fetch rounds one request may take: on a sharded index the query's words, the cards (or
 * bundles) of the results shown, and for a typo the lexicon and its corrections' shards, the
 * tree and the vectors for the semantic leg; the move to the full engine. More means the
 * index keeps asking for files it was given: a bug. */
const MAX_ROUNDS = 8;

/**
 * Owns the engine and the loaded indexes.
 *
 * It starts on the keyword module when it is given one (keyword queries and completions,
 * ~10 KB gzip less for a page's first query) and moves to the full engine the first time
 * the model's vectors or a section/document are asked for, or a page longer than a card's
 * lines is previewed: the full module is fetched, every index is
 * reopened in it from the bytes kept for a rebuild, and a sharded index is given again the
 * files it had loaded (read from the HTTP cache in a browser).
 */
export class Host {
  private engine?: Engine;
  private module?: WebAssembly.Module;
  private glueUrl = "";
  private kind: EngineKind = "full";
  /** The full engine's files, for the move to it. */
  private full?: ModuleUrls;
  /** A rebuild after a trap, while it runs. */
  private rebuilding?: Promise<Engine>;
  /** The move to the full engine, while it runs. */
  private upgrading?: Promise<Engine>;
  private readonly indexes = new Map<number, Loaded>();
  private nextId = 1;
  /** How long a fetch may stall (the `timeout` load option). */
  private timeoutMs?: number;

  /** The host is done (its Midashi instance closed): the engine's glue serves the next one. */
  dispose(): void {
    for (const l of this.indexes.values()) {
      try {
        l.index.free();
      } catch {
        // A trapped instance: its memory goes with it.
      }
    }
    this.indexes.clear();
    this.engine?.release();
    this.engine = undefined;
  }

  /** Runs one request. Always settles with a value or a MidashiError. */
  async handle<K extends Op>(op: K, args: Requests[K]["args"]): Promise<Requests[K]["result"]> {
    try {
      return (await this.dispatch(op, args)) as Requests[K]["result"];
    } catch (e) {
      const err = toMidashiError(e);
      if (this.engine && !this.engine.alive && !this.rebuilding) {
        // Rebuild right away so the next query does not wait for it; a failure of the
        // rebuild is reported to that next query, not left as an unhandled rejection.
        const rebuilding = this.rebuild();
        rebuilding.catch(() => undefined);
        this.rebuilding = rebuilding;
      }
      throw err;
    }
  }

  private async dispatch(op: Op, a: unknown): Promise<unknown> {
    switch (op) {
      case "init":
        return this.init(a as Requests["init"]["args"]);
      case "open":
        return this.open(a as Requests["open"]["args"]);
      case "search":
        return this.search(a as Requests["search"]["args"]);
      case "getSection": {
        const { ids, target, tag } = a as Requests["getSection"]["args"];
        await this.fullEngine();
        return this.first(ids, tag, (l) => lookup(l.index.getSection, l.index, target) as Step<SectionView>);
      }
      case "getDocument": {
        const { ids, path, tag } = a as Requests["getDocument"]["args"];
        await this.fullEngine();
        return this.first(ids, tag, (l) => lookup(l.index.getDocument, l.index, path) as Step<DocumentView>);
      }
      case "suggest":
        return this.suggest(a as Requests["suggest"]["args"]);
      case "loadVectors":
        return this.loadVectors(a as Requests["loadVectors"]["args"]);
      case "reason": {
        const { ids, query, total } = a as Requests["reason"]["args"];
        const first = ids.map((id) => this.indexes.get(id)).find((l) => l !== undefined);
        return (first?.index.semanticReason(query, total) as "question" | "weak" | undefined) ?? null;
      }
      case "covers": {
        const { ids, query } = a as Requests["covers"]["args"];
        return ids.some((id) => this.indexes.get(id)?.index.semanticCovers(query) ?? false);
      }
      case "quoteSearch": {
        const { query, response, previewLines, tokenBudget } = a as Requests["quoteSearch"]["args"];
        return (await this.fullEngine()).quoteSearch(query, response, previewLines, tokenBudget);
      }
      case "quoteSection": {
        const { section, link } = a as Requests["quoteSection"]["args"];
        return (await this.fullEngine()).quoteSection(section, link);
      }
      case "close": {
        for (const id of (a as Requests["close"]["args"]).ids) {
          const l = this.indexes.get(id);
          this.indexes.delete(id);
          try {
            l?.index.free();
          } catch {
            // Freeing into a discarded instance: nothing left to free.
          }
        }
        return null;
      }
      case "engine":
        await this.ready();
        return this.kind;
      case "panicForTests":
        (await this.ready()).panicForTests();
        return null;
    }
    throw new MidashiError("INTERNAL", `unknown request ${String(op)}`);
  }

  private async init({ glueUrl, wasmUrl, keyword, timeoutMs }: Requests["init"]["args"]): Promise<{ version: string }> {
    this.timeoutMs = timeoutMs;
    this.full = { glueUrl, wasmUrl };
    const first = keyword ?? this.full;
    this.kind = keyword ? "keyword" : "full";
    this.module = await loadModule(first, keyword ? "keywordWasmUrl" : "wasmUrl", timeoutMs);
    this.glueUrl = first.glueUrl;
    this.engine = await Engine.create(first.glueUrl, this.module);
    expectKind(this.engine, this.kind, first);
    return { version: this.engine.version().version };
  }

  /** The full engine, moved to first when the keyword module is loaded. */
  private async fullEngine(): Promise<Engine> {
    if (this.kind === "full") return this.ready();
    const upgrading = (this.upgrading ??= this.upgrade());
    try {
      return await upgrading;
    } finally {
      // Settled either way: a failed move is tried again by the next request that needs it.
      if (this.upgrading === upgrading) this.upgrading = undefined;
    }
  }

  private async upgrade(): Promise<Engine> {
    const full = this.full;
    if (!full) throw new MidashiError("INTERNAL", "midashi's engine is not initialised");
    const module = await loadModule(full, "wasmUrl", this.timeoutMs);
    const engine = await Engine.create(full.glueUrl, module);
    expectKind(engine, "full", full);
    // A rebuild after a trap finishes first: it would otherwise build on the old module.
    const old = await this.ready();
    // What each sharded index has loaded goes with it (read again, from the HTTP cache in a
    // browser): the sections of the results shown are found by id only through those files.
    const carried = [...this.indexes.values()].map((l) => ({ l, names: l.directory ? old.call(() => l.index.loadedFiles()) : [] }));
    this.module = module;
    this.glueUrl = full.glueUrl;
    this.kind = "full";
    const live = await this.rebuild(engine);
    // The keyword module's glue serves the next host that starts with it.
    old.release();
    await Promise.all(
      carried.map(async ({ l, names }) => {
        const files = await readFilesOf(l, names, this.timeoutMs);
        // An index closed meanwhile is not in the new instance: nothing to give it.
        if (![...this.indexes.values()].includes(l)) return;
        names.forEach((name, i) => live.call(() => l.index.attachFile(name, files[i] as Uint8Array)));
      }),
    );
    return live;
  }

  /** The live engine, rebuilt first if the last one trapped. */
  private async ready(): Promise<Engine> {
    if (this.rebuilding) {
      try {
        return await this.rebuilding;
      } finally {
        this.rebuilding = undefined;
      }
    }
    if (!this.engine) throw new MidashiError("INTERNAL", "midashi's engine is not initialised");
    if (!this.engine.alive) return this.rebuild();
    return this.engine;
  }

  /**
   * A fresh instance (of `this.module`) with every index reopened from the bytes kept for
   * this purpose: after a trap, and on the move to the full engine.
   */
  private async rebuild(fresh?: Engine): Promise<Engine> {
    if (!this.module) throw new MidashiError("INTERNAL", "midashi's engine is not initialised");
    // The old handles are freed first, into the instance they belong to: a fresh instance
    // of the same glue replaces that one (Engine.create), and a handle freed after it would
    // free its pointer into the new instance's memory (a trapped instance may refuse:
    // nothing more to do then, its memory goes with it).
    for (const l of this.indexes.values()) {
      try {
        l.index.free();
      } catch {
        // See above.
      }
    }
    const engine = fresh ?? (await Engine.create(this.glueUrl, this.module, this.engine));
    for (const l of this.indexes.values()) {
      l.index = l.directory ? engine.openSharded(l.entry, l.directory) : engine.open(l.entry, l.terms!, l.sections!);
      for (const f of l.meaning ?? []) {
        const index = l.index;
        engine.call(() => index.attachFile(f.name, f.bytes));
      }
    }
    this.engine = engine;
    return engine;
  }

  private async open({ name, source }: Requests["open"]["args"]): Promise<IndexInfo & { id: number }> {
    const engine = await this.ready();
    const ctx = { what: `index ${JSON.stringify(name)} (${source})`, missing: HOW_TO_BUILD, timeoutMs: this.timeoutMs };
    const entry = await readIndexFile(source, ENTRY_FILE_NAME, ctx);
    // The entry is decoded (magic, version, checksum) before anything else is fetched: a
    // wrong folder or an index of another format fails after one small request.
    const manifest: Manifest = engine.readManifest(entry);
    const needed = manifest.files.filter((f) => f.needed_for_keyword);
    const read = await inBatches(needed, (f) => readIndexFile(source, f.name, ctx, f.bytes));
    const bytesOf = (kind: string): Uint8Array => {
      const i = needed.findIndex((f) => f.kind === kind);
      const bytes = i >= 0 ? read[i] : undefined;
      if (!bytes) {
        throw new MidashiError("MALFORMED", `${ENTRY_FILE_NAME} of ${source} names no ${kind.toLowerCase()} file for keyword search; rebuild the index`);
      }
      return bytes;
    };
    const sharded = needed.some((f) => f.kind === "Directory");
    // The keyword module opens no single-file index: the full engine does.
    let live = await this.ready();
    if (!sharded && !live.opensSingleFile) live = await this.fullEngine();
    let loaded: Omit<Loaded, "info" | "index">;
    let index: WasmIndex;
    if (sharded) {
      const directory = bytesOf("Directory");
      index = live.openSharded(entry, directory);
      loaded = { entry, directory };
    } else {
      const terms = bytesOf("Terms");
      const sections = bytesOf("Sections");
      index = live.open(entry, terms, sections);
      loaded = { entry, terms, sections };
    }
    const id = this.nextId++;
    const info: IndexInfo = { name, source, manifest, versions: index.versions(), fetched: [ENTRY_FILE_NAME, ...needed.map((f) => f.name)] };
    this.indexes.set(id, { ...loaded, info, index });
    return { ...info, id };
  }

  /**
   * Asks `f` of an index until it answers: each time the engine says what the request
   * still needs (files of the index folder: shards, cards, bundles, the tree, the vectors;
   * or the full engine), fetches those in parallel, attaches them, or moves to the full
   * engine, and asks again. One loop for both layouts and the semantic leg.
   */
  private async withNeeds<T>(l: Loaded, f: (index: WasmIndex) => Step<T>): Promise<T | null> {
    for (let round = 0; ; round++) {
      const engine = await this.ready();
      const step = engine.call(() => f(l.index));
      const needs = step.needs;
      if (!needs) return step.answer;
      if (round >= MAX_ROUNDS) {
        throw new MidashiError("INTERNAL", `index ${JSON.stringify(l.info.name)} still needs ${needs.files.join(", ") || "the full engine"} after ${MAX_ROUNDS} rounds; this is a bug, please report it`);
      }
      if (needs.full_engine) {
        if (this.kind === "full") throw new MidashiError("INTERNAL", "the full engine asked for the full engine; this is a bug, please report it");
        await this.fullEngine();
      }
      if (needs.files.length > 0) await this.attachFiles(l, needs.files);
    }
  }

  /** Fetches files an index asked for and attaches them (vectors are kept for a rebuild). */
  private async attachFiles(l: Loaded, names: string[], fetching?: Promise<unknown>): Promise<void> {
    const files = await readFilesOf(l, names, this.timeoutMs);
    // A move to the full engine started beside the download (vectors) finishes first.
    await fetching;
    const live = await this.ready();
    const kindOf = (name: string) => l.info.manifest.files.find((f) => f.name === name)?.kind;
    names.forEach((name, i) => {
      const bytes = files[i] as Uint8Array;
      live.call(() => l.index.attachFile(name, bytes));
      const kind = kindOf(name);
      if (kind === "Vectors" || kind === "Ann" || kind === "Table") (l.meaning ??= []).push({ name, bytes });
      if (!l.info.fetched.includes(name)) l.info.fetched.push(name);
    });
  }

  private loaded(ids: number[]): Loaded[] {
    return ids.map((id) => {
      const l = this.indexes.get(id);
      if (!l) throw new MidashiError("CLOSED", "this index was closed; load it again");
      return l;
    });
  }

  /**
   * Runs a query on each index; with `tag` (several indexes loaded) hits say which index
   * they came from, even when the query picked only one of them.
   */
  private async search({ ids, query, options, queryVector, vectorModel = "", tag }: Requests["search"]["args"]): Promise<RawResponse> {
    const loaded = this.loaded(ids);
    // The query vector goes only to indexes whose vectors it can be compared with: attached,
    // and made by the same model. Others answer their keyword leg.
    const vectorFor = (l: Loaded): Float32Array | undefined => {
      if (!queryVector || !l.meaning) return undefined;
      const sha = l.info.manifest.model?.sha256 ?? "";
      return vectorModel && sha && sha !== vectorModel ? undefined : queryVector;
    };
    const optionsFor = (l: Loaded, opts: EngineSearchOptions): EngineSearchOptions =>
      queryVector && !vectorFor(l) && (opts.mode === "hybrid" || opts.mode === undefined) ? { ...opts, mode: "keyword" } : opts;
    const only = loaded.length === 1 ? loaded[0] : undefined;
    const searchOf = (l: Loaded, opts: EngineSearchOptions) => this.withNeeds(l, (index) => index.search(query, optionsFor(l, opts), vectorFor(l)) as Step<RawResponse>) as Promise<RawResponse>;
    if (only && !tag) return searchOf(only, options);
    const each = perIndexOptions(options);
    const parts = [];
    for (const l of loaded) {
      parts.push({ name: l.info.name, response: await searchOf(l, each) });
    }
    return mergeResponses(parts, options);
  }

  /** The first index (in order) that has the thing, with `tag` tagged with that index's name. */
  private async first<T extends object>(ids: number[], tag: boolean, get: (l: Loaded) => Step<T>): Promise<(T & { index?: string }) | null> {
    for (const l of this.loaded(ids)) {
      const found = await this.withNeeds(l, () => get(l));
      if (found) return tag ? { ...found, index: l.info.name } : found;
    }
    return null;
  }

  private async suggest({ ids, prefix, limit }: Requests["suggest"]["args"]): Promise<string[]> {
    const out: string[] = [];
    for (const l of this.loaded(ids)) {
      for (const w of (await this.withNeeds(l, (index) => index.suggest(prefix, limit))) ?? []) {
        if (!out.includes(w)) out.push(w);
      }
    }
    return out.slice(0, limit);
  }

  /**
   * Fetches and attaches the vectors files (for semantic search), and the HNSW graph of a
   * large index; returns what was fetched.
   */
  private async loadVectors({ ids }: Requests["loadVectors"]["args"]): Promise<string[]> {
    const fetched: string[] = [];
    for (const l of this.loaded(ids)) {
      if (l.meaning) continue;
      const files = l.info.manifest.files;
      const file = files.find((f) => f.kind === "Vectors");
      if (!file) {
        throw new MidashiError("SEMANTIC_UNAVAILABLE", `index ${JSON.stringify(l.info.name)} has no vectors: rebuild it with a model`);
      }
      const of = (kind: FileKind) => files.filter((f) => f.kind === kind).map((f) => f.name);
      const names = [file.name, ...of("Ann"), ...of("Table")];
      // A static table's leg runs in the keyword module. Vectors searched with an encoder's
      // query vectors, and a large index's graph, need the full engine: it loads while the
      // files download. Then they are attached as a request's needs are (attachFiles).
      const full = of("Table").length === 0 || of("Ann").length > 0;
      const moving = full ? this.fullEngine() : undefined;
      // Awaited in attachFiles; a failure is reported there, not as an unhandled rejection.
      moving?.catch(() => undefined);
      try {
        await this.attachFiles(l, names, moving);
      } catch (e) {
        // The keyword module for many languages has no semantic leg: the full engine has.
        if (full || toMidashiError(e).code !== "NEEDS_FULL_ENGINE") throw e;
        await this.fullEngine();
        await this.attachFiles(l, names);
      }
      fetched.push(...names);
    }
    return fetched;
  }
}

/** Fetches and compiles one module; `option` names the load option that says where it is. */
async function loadModule(urls: ModuleUrls, option: string, timeoutMs: number | undefined): Promise<WebAssembly.Module> {
  const bytes = await readBytes(urls.wasmUrl, {
    timeoutMs,
    what: "midashi's wasm module",
    missing: `serve the package's dist/wasm/ folder next to index.js, or pass ${option}`,
  });
  return compileModule(bytes, urls.wasmUrl);
}

/** Refuses a module that is the other one of the pair (swapped or renamed files). */
function expectKind(engine: Engine, kind: EngineKind, urls: ModuleUrls): void {
  const got = engine.version().engine;
  if (got !== kind) {
    throw new MidashiError(
      "VERSION_MISMATCH",
      `${urls.wasmUrl} is midashi's ${got} module where the ${kind} one was expected; serve midashi_keyword_bg.wasm as the keyword module and midashi_wasm_bg.wasm as the full engine`,
    );
  }
}

/** Calls a lookup that only the full engine has. */
function lookup(method: ((this: WasmIndex, arg: string) => unknown) | undefined, index: WasmIndex, arg: string): unknown {
  if (!method) throw new MidashiError("INTERNAL", "a lookup reached the keyword module; this is a bug, please report it");
  return method.call(index, arg);
}

/** How a failed read of a sharded index's file is explained. */
/** Files `names` of an index, a few at a time, each checked against its size in the entry. */
function readFilesOf(l: Loaded, names: string[], timeoutMs: number | undefined): Promise<Uint8Array[]> {
  const ctx = { ...filesContext(l), timeoutMs };
  const sizes = new Map(l.info.manifest.files.map((f) => [f.name, f.bytes]));
  return inBatches(names, (n) => readIndexFile(l.info.source, n, ctx, sizes.get(n)));
}

function filesContext(l: Loaded) {
  return { what: `index ${JSON.stringify(l.info.name)} (${l.info.source})`, missing: "the index folder is incomplete or from another build: deploy every file build-index wrote" };
}
