// The side that owns the semantic module (crates/midashi-wasm-embed: tokenizer + BERT encoder)
// and the model: it runs in its own Web Worker (embed-worker.ts), or on the calling thread in
// Node. It loads once — module, model (the encoder file), tokenizer, config, fetched in parallel with
// progress — and then turns query text into the vector the index's semantic leg scores with.

import { MidashiError, toMidashiError } from "./errors.js";
import { compileModule, readBytes } from "./loader.js";
import type { SemanticDetail } from "./types.js";

/** Where the semantic module and the model are. */
export interface EmbedSources {
  /** The module's wasm-bindgen glue (`--target web`). */
  glueUrl: string;
  /** The module. */
  wasmUrl: string;
  /** The model (its encoder file), `tokenizer.json` and `midashi-model.json`. */
  model: string;
  tokenizer: string;
  config: string;
  /** Sizes known beforehand (from the index's entry file), for progress before headers arrive. */
  sizes: { model?: number; tokenizer?: number; config?: number };
  /** Whether the model is the one the index folder ships (not `modelUrl`'s). */
  shipped?: boolean;
  /** How long a download may stall (the `timeout` load option). */
  timeoutMs?: number;
  /** The model the index's vectors were made with: a different model is refused. */
  expect: { name: string; dims: number; sha256: string };
}

/** Requests, by operation. */
export interface EmbedRequests {
  init: { args: EmbedSources; result: { name: string; dims: number; maxTokens: number } };
  embed: { args: { text: string }; result: Float32Array };
}

/** The glue's `WasmEmbedder`. */
interface WasmEmbedder {
  embed(text: string): Float32Array;
  readonly dims: number;
  readonly maxTokens: number;
  free(): void;
}

interface EmbedGlue {
  default(init: { module_or_path: WebAssembly.Module }): Promise<unknown>;
  WasmEmbedder: new (graph: Uint8Array, tokenizer: Uint8Array, config: string) => WasmEmbedder;
}

const HOW_TO_GET =
  "rebuild the index with a model (scripts/fetch-model.sh, then build-index without --keyword-only/--no-ship-model), or pass modelUrl (a folder `build-index prepare-model` wrote)";

/** Owns the semantic module and the model. */
export class EmbedHost {
  private embedder?: WasmEmbedder;
  private loading?: Promise<EmbedRequests["init"]["result"]>;

  /** `emit` hears loading progress (a {@link SemanticDetail} with state `loading`). */
  constructor(private readonly emit: (event: SemanticDetail) => void = () => undefined) {}

  async handle<K extends keyof EmbedRequests & string>(op: K, args: EmbedRequests[K]["args"]): Promise<EmbedRequests[K]["result"]> {
    try {
      if (op === "init") return (await this.init(args as EmbedSources)) as EmbedRequests[K]["result"];
      if (op === "embed") return this.embed((args as { text: string }).text) as EmbedRequests[K]["result"];
      throw new MidashiError("INTERNAL", `unknown request ${String(op)}`);
    } catch (e) {
      throw toMidashiError(e);
    }
  }

  /** Loads everything once; later calls share the first one's outcome. */
  private init(src: EmbedSources): Promise<EmbedRequests["init"]["result"]> {
    this.loading ??= this.load(src);
    return this.loading;
  }

  private async load(src: EmbedSources): Promise<EmbedRequests["init"]["result"]> {
    // Progress over all files at once: each reports its own bytes; the total uses the sizes
    // the entry file gave until a response says better.
    const loaded = new Map<string, number>();
    const totals = new Map<string, number>([
      ["model", src.sizes.model ?? 0],
      ["tokenizer", src.sizes.tokenizer ?? 0],
      ["config", src.sizes.config ?? 0],
    ]);
    let lastEmit = 0;
    const report = (key: string) => (n: number, total: number | undefined) => {
      loaded.set(key, n);
      if (total !== undefined) totals.set(key, Math.max(total, totals.get(key) ?? 0));
      const now = Date.now();
      // A 25 MB download gives thousands of chunks: tell the page a few times a second.
      if (now - lastEmit < 100 && n !== total) return;
      lastEmit = now;
      this.emit({ state: "loading", phase: "download", loaded: sum(loaded), total: sum(totals) });
    };
    const read = (key: string, url: string, what: string) =>
      readBytes(url, { what, missing: HOW_TO_GET, timeoutMs: src.timeoutMs }, report(key));
    // The module compiles as it downloads (and from the browser's code cache on a second
    // visit); its download is not in the progress, the model's and tokenizer's are.
    const compiled = compileModule(src.wasmUrl, { what: "midashi's semantic module", missing: "serve the package's dist/embed/ folder next to index.js, or pass embedWasmUrl", timeoutMs: src.timeoutMs });
    compiled.catch(() => undefined);
    const [glue, graph, tokenizer, config] = await Promise.all([
      importGlue(src.glueUrl),
      read("model", src.model, "the embedding model"),
      read("tokenizer", src.tokenizer, "the model's tokenizer"),
      read("config", src.config, "the model's configuration"),
    ]);
    this.emit({ state: "loading", phase: "compile", loaded: sum(loaded), total: sum(totals) });

    const configText = new TextDecoder().decode(config);
    const graphSha = checkModel(configText, src.expect);
    await checkModelBytes(graph, src, graphSha);
    let module: WebAssembly.Module;
    try {
      module = await compiled;
    } catch (e) {
      if (e instanceof MidashiError) throw e;
      throw new MidashiError(
        "CORRUPTED",
        `${src.wasmUrl} is not a valid WebAssembly module (${e instanceof Error ? e.message : String(e)}); serve dist/embed/midashi_wasm_embed_bg.wasm unchanged (it needs a browser with WebAssembly SIMD)`,
        { cause: e },
      );
    }
    try {
      await glue.default({ module_or_path: module });
    } catch (e) {
      throw new MidashiError("VERSION_MISMATCH", `midashi_wasm_embed_bg.wasm does not match its glue (${e instanceof Error ? e.message : String(e)}); deploy both files of one build`, { cause: e });
    }
    let embedder: WasmEmbedder;
    try {
      embedder = new glue.WasmEmbedder(graph, tokenizer, configText);
    } catch (e) {
      throw new MidashiError("SEMANTIC_UNAVAILABLE", `the embedding model could not be loaded: ${e instanceof Error ? e.message : String(e)}; ${HOW_TO_GET}`, { cause: e });
    }
    if (embedder.dims !== src.expect.dims) {
      embedder.free();
      throw new MidashiError("SEMANTIC_UNAVAILABLE", `the model gives ${embedder.dims}-dimensional vectors but the index's have ${src.expect.dims}: it is not the model the index was built with; ${HOW_TO_GET}`);
    }
    this.embedder = embedder;
    return { name: src.expect.name, dims: embedder.dims, maxTokens: embedder.maxTokens };
  }

  private embed(text: string): Float32Array {
    if (!this.embedder) throw new MidashiError("SEMANTIC_UNAVAILABLE", "the semantic module is not loaded yet: call warmup() first");
    try {
      return this.embedder.embed(text);
    } catch (e) {
      throw new MidashiError("INTERNAL", `embedding the query failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
}

function sum(m: Map<string, number>): number {
  let n = 0;
  for (const v of m.values()) n += v;
  return n;
}

async function importGlue(url: string): Promise<EmbedGlue> {
  try {
    return (await import(/* @vite-ignore */ /* webpackIgnore: true */ url)) as EmbedGlue;
  } catch (e) {
    throw new MidashiError(
      "NOT_FOUND",
      `cannot load the semantic module's glue ${url} (${e instanceof Error ? e.message : String(e)}); serve the package's dist/embed/ folder next to index.js or pass embedGlueUrl`,
      { cause: e },
    );
  }
}

/**
 * The model's bytes against the sha256 recorded for them: the encoder file's own CRC-32
 * catches damage, this also a file swapped for another model's (a stale cache, a wrong
 * modelUrl), which would embed queries unlike the vectors with nothing said. The encoder file's sha256 is in its
 * configuration (`graphSha`: an index's copy, a `build-index prepare-model` folder); without
 * one, the bytes are checked against the sha256 of the model the vectors were made with.
 * Skipped where there is no Web Crypto (a page not in a secure context).
 */
async function checkModelBytes(graph: Uint8Array, src: EmbedSources, graphSha: string): Promise<void> {
  const subtle = globalThis.crypto?.subtle;
  // The encoder file's own sha256 when the configuration names one (an index's copy, a
  // prepare-model folder, whose model identity checkModel compared already).
  const want = graphSha || src.expect.sha256;
  if (!subtle || !/^[0-9a-f]{64}$/.test(want) || /^0+$/.test(want)) return;
  const digest = new Uint8Array(await subtle.digest("SHA-256", graph as Uint8Array<ArrayBuffer>));
  const got = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  if (got === want) return;
  if (src.shipped || graphSha) {
    throw new MidashiError(
      "CORRUPTED",
      `${src.model} does not match the sha256 the index records for its model (${got.slice(0, 12)}… against ${want.slice(0, 12)}…): the file is damaged or was replaced; deploy its folder again, or rebuild it`,
    );
  }
  throw new MidashiError(
    "SEMANTIC_UNAVAILABLE",
    `the model at ${src.model} (sha256 ${got.slice(0, 12)}…) is not the one the index's vectors were made with (${src.expect.name}, ${want.slice(0, 12)}…); ${HOW_TO_GET}`,
  );
}

/** Checks the configuration against the index; returns the encoder file's sha256, if named. */
function checkModel(configText: string, expect: EmbedSources["expect"]): string {
  let config: { dims?: unknown; sha256?: unknown; graph_sha256?: unknown };
  try {
    config = JSON.parse(configText) as typeof config;
  } catch (e) {
    throw new MidashiError("SEMANTIC_UNAVAILABLE", `the model's configuration is not JSON (${e instanceof Error ? e.message : String(e)}); ${HOW_TO_GET}`, { cause: e });
  }
  const sha = typeof config.sha256 === "string" ? config.sha256 : "";
  if (sha && expect.sha256 && sha !== expect.sha256) {
    throw new MidashiError(
      "SEMANTIC_UNAVAILABLE",
      `the model offered (sha256 ${sha.slice(0, 12)}…) is not the one the index's vectors were made with (${expect.name}, ${expect.sha256.slice(0, 12)}…); ${HOW_TO_GET}`,
    );
  }
  if (typeof config.dims === "number" && config.dims !== expect.dims) {
    throw new MidashiError("SEMANTIC_UNAVAILABLE", `the model gives ${config.dims}-dimensional vectors but the index's have ${expect.dims}; ${HOW_TO_GET}`);
  }
  return typeof config.graph_sha256 === "string" && /^[0-9a-f]{64}$/.test(config.graph_sha256) ? config.graph_sha256 : "";
}
