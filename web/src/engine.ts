// The wasm module behind a small typed wrapper. One Engine = one instance of the module.
//
// After a trap (a Rust panic, an out-of-memory) an instance is not safe to reuse: its memory
// may hold half-updated state. The wrapper therefore marks itself dead on any throw that is
// not an engine error, and the host (host.ts) builds a fresh instance. wasm-bindgen's `web`
// glue keeps its instance in module scope and initialises once; its `__wbg_reset_state`
// (built with --experimental-reset-state-function) replaces that instance with a fresh one
// of the same module, so the dead one's memory is released. (Importing a fresh copy of the
// glue per instance, as before, kept every dead instance alive: ES modules are never
// collected, +3.85 MB per recovery.)

import { MidashiError, toMidashiError } from "./errors.js";
import type { EngineKind, Manifest } from "./types.js";
import { VERSION } from "./version.js";

/** Index format major this package's engine reads (midashi-core FORMAT_MAJOR). */
export const FORMAT_MAJOR = 1;

/**
 * A `WasmIndex` of the glue (crates/midashi-wasm). The keyword module has no vectors and no
 * lookups: those methods exist only on an index of the full engine.
 */
/**
 * What a request that reads an index's files answers (midashi-core's `search::needs::Step`):
 * its answer, or what it still needs — files of the index folder to fetch and attach, or the
 * full engine — before it is asked again.
 */
export interface Step<T> {
  answer: T | null;
  needs: { files: string[]; full_engine: boolean } | null;
}

export interface WasmIndex {
  manifest(): Manifest;
  search(query: string, options: unknown, queryVector?: Float32Array): Step<unknown>;
  attachVectors?(bytes: Uint8Array): void;
  attachAnn?(bytes: Uint8Array): void;
  hasVectors?(): boolean;
  semanticCovers(query: string): boolean;
  semanticReason(query: string, keywordTotal: number): string | undefined;
  getSection?(target: string): Step<unknown>;
  getDocument?(path: string): Step<unknown>;
  suggest(prefix: string, limit: number): Step<string[]>;
  sectionCount(): number;
  versions(): string[];
  attachFile(name: string, bytes: Uint8Array): void;
  loadedFiles(): string[];
  isSharded(): boolean;
  free(): void;
}

/** The glue module's exports that we use. */
interface Glue {
  default(init: { module_or_path: WebAssembly.Module }): Promise<unknown>;
  version(): VersionInfo;
  readManifest(entry: Uint8Array): Manifest;
  __panicForTests(): void;
  /** Quoting (midashi-core's `answer::quote`): the full engine only. */
  quoteSearch?(query: string, response: unknown, previewLines?: number, tokenBudget?: number): RawQuote;
  quoteSection?(section: unknown): string;
  sectionMarkdown?(section: unknown, link: string): string;
  /** A fresh instance of the module in place of the current one (its memory released). */
  __wbg_reset_state(): void;
  WasmIndex: {
    /** Absent from the keyword modules (web/wasm-modules.json): the full engine's. */
    open?(entry: Uint8Array, terms: Uint8Array, sections: Uint8Array): WasmIndex;
    openSharded(entry: Uint8Array, directory: Uint8Array): WasmIndex;
  };
}

/** What the module's `quoteSearch` answers: the results quoted, by their place in the response. */
export interface RawQuote {
  text: string;
  results: number[];
  tokens: number;
  left_out: number;
}

/** What the module says about itself. */
interface VersionInfo {
  version: string;
  formatMajor: number;
  formatMinor: number;
  /** Which of the build's two modules this is. */
  engine: EngineKind;
}

/**
 * Glue copies no engine uses, by URL, kept for the next engine of that module. A glue copy
 * holds one instance at a time, so each live engine needs its own copy; an ES module is
 * never collected, so copies are reused rather than imported anew.
 */
const spare = new Map<string, Glue[]>();
/** Copies imported so far, by URL (each import of a new copy needs a new module URL). */
const copies = new Map<string, number>();

/** One instance of the wasm module. */
export class Engine {
  /** False once the instance trapped: build a new Engine. */
  alive = true;
  private released = false;

  private constructor(
    private readonly glue: Glue,
    private readonly glueUrl: string,
  ) {}

  /**
   * Instantiates the module. `module` is compiled once and reused by every instance;
   * `glueUrl` is the wasm-bindgen glue next to it. `replacing`, an engine of the same glue
   * that trapped, gives its glue copy a fresh instance (its dead one's memory is released).
   */
  static async create(glueUrl: string, module: WebAssembly.Module, replacing?: Engine): Promise<Engine> {
    const reused = replacing && replacing.glueUrl === glueUrl ? replacing.glue : spare.get(glueUrl)?.pop();
    if (reused) {
      try {
        reused.__wbg_reset_state();
      } catch (e) {
        throw toMidashiError(e);
      }
      const engine = new Engine(reused, glueUrl);
      engine.checkVersion();
      return engine;
    }
    const n = (copies.get(glueUrl) ?? 0) + 1;
    copies.set(glueUrl, n);
    const url = n === 1 ? glueUrl : `${glueUrl}${glueUrl.includes("?") ? "&" : "?"}copy=${n}`;
    const engine = new Engine(await Engine.importGlue(url, module), glueUrl);
    engine.checkVersion();
    return engine;
  }

  /** This engine is no longer used: its glue copy serves the next engine of the module. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.alive = false;
    const list = spare.get(this.glueUrl) ?? [];
    list.push(this.glue);
    spare.set(this.glueUrl, list);
  }

  private static async importGlue(glueUrl: string, module: WebAssembly.Module): Promise<Glue> {
    let glue: Glue;
    try {
      glue = (await import(/* @vite-ignore */ /* webpackIgnore: true */ glueUrl)) as Glue;
    } catch (e) {
      throw new MidashiError(
        "NOT_FOUND",
        `cannot load midashi's wasm glue ${glueUrl} (${e instanceof Error ? e.message : String(e)}); serve the package's dist/wasm/ folder next to index.js or pass glueUrl`,
        { cause: e },
      );
    }
    try {
      await glue.default({ module_or_path: module });
    } catch (e) {
      // A LinkError means the module's imports do not match this glue: they come from
      // different builds (a stale cached .wasm, or files of two versions mixed).
      if (e instanceof WebAssembly.LinkError || e instanceof TypeError) {
        throw new MidashiError(
          "VERSION_MISMATCH",
          `the wasm module does not match its glue ${glueUrl} (${e.message}); they come from different builds (or a module is paired with the other module's glue): deploy the files of one build together and clear caches`,
          { cause: e },
        );
      }
      throw toMidashiError(e);
    }
    return glue;
  }

  /** Refuses a module of another version than this JavaScript. */
  private checkVersion(): void {
    const v = this.call(() => this.glue.version());
    if (v.version !== VERSION || v.formatMajor !== FORMAT_MAJOR) {
      throw new MidashiError(
        "VERSION_MISMATCH",
        `the midashi wasm module is version ${v.version} (index format ${v.formatMajor}) but midashi.js is ${VERSION} (format ${FORMAT_MAJOR}); deploy the wasm module of the same release (a cache may hold an old one)`,
      );
    }
  }

  /** The module's version information. */
  version(): VersionInfo {
    return this.call(() => this.glue.version());
  }

  /** Runs `f` against the instance; marks the instance dead when it trapped. */
  call<T>(f: () => T): T {
    if (!this.alive) throw new MidashiError("INTERNAL", "the wasm instance trapped earlier and was discarded; this is a bug, please report it");
    try {
      return f();
    } catch (e) {
      const err = toMidashiError(e);
      // Engine errors are ordinary answers ("empty query"); anything else came from a trap
      // or from the glue, and the instance is not trusted any more.
      if (err.code === "INTERNAL") {
        this.alive = false;
        // The size-built modules trap without a panic message (scripts/build-wasm.sh): the
        // console gets the trap here, whatever the build.
        console.error("midashi: the search engine trapped; a fresh instance takes over", e);
      }
      throw err;
    }
  }

  readManifest(entry: Uint8Array): Manifest {
    return this.call(() => this.glue.readManifest(entry));
  }

  /** Whether this module opens single-file indexes (the keyword modules do not). */
  get opensSingleFile(): boolean {
    return typeof this.glue.WasmIndex.open === "function";
  }

  open(entry: Uint8Array, terms: Uint8Array, sections: Uint8Array): WasmIndex {
    const cls = this.glue.WasmIndex;
    const open = cls.open?.bind(cls);
    if (!open) throw new MidashiError("INTERNAL", "a single-file index reached a keyword module; this is a bug, please report it");
    return this.call(() => open(entry, terms, sections));
  }

  /** Opens a sharded index: its files are attached as queries ask for them. */
  openSharded(entry: Uint8Array, directory: Uint8Array): WasmIndex {
    return this.call(() => this.glue.WasmIndex.openSharded(entry, directory));
  }

  /** A search answer quoted as the MCP server quotes it (the full engine only). */
  quoteSearch(query: string, response: unknown, previewLines?: number, tokenBudget?: number): RawQuote {
    const f = this.glue.quoteSearch;
    if (!f) throw new MidashiError("INTERNAL", "quoting reached the keyword module; this is a bug, please report it");
    return this.call(() => f(query, response, previewLines, tokenBudget));
  }

  /** A section quoted as the MCP server gives it, or with `link` as Markdown to paste. */
  quoteSection(section: unknown, link?: string): string {
    const { quoteSection, sectionMarkdown } = this.glue;
    if (!quoteSection || !sectionMarkdown) throw new MidashiError("INTERNAL", "quoting reached the keyword module; this is a bug, please report it");
    return this.call(() => (link === undefined ? quoteSection(section) : sectionMarkdown(section, link)));
  }

  /** Makes the instance trap (tests prove recovery with it). */
  panicForTests(): void {
    this.call(() => this.glue.__panicForTests());
  }
}

/** Compiles the module's bytes; invalid bytes (an HTML error page, a cut download) say so. */
export async function compileModule(bytes: Uint8Array, where: string): Promise<WebAssembly.Module> {
  try {
    return await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>);
  } catch (e) {
    throw new MidashiError(
      "CORRUPTED",
      `${where} is not a valid WebAssembly module (${e instanceof Error ? e.message : String(e)}); the file is damaged or the server sent something else: serve the files of dist/wasm/ unchanged`,
      { cause: e },
    );
  }
}
