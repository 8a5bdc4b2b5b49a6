// <midashi-search> for pages opened from file://, where the browser refuses fetch, module
// scripts and workers. `build-index --site` writes search/midashi-inline.js, a classic script
// that sets `globalThis.MIDASHI_INLINE` to the index files and the wasm module as base64;
// this module (bundled into the classic script search/midashi-file.js together with the
// wasm-bindgen glue) opens the index from those bytes on the page's own thread.

import type { Manifest, SearchOptions, SearchResponse } from "../types.js";
import type { Step } from "../engine.js";
import type { RawResponse } from "../multi.js";
import { defineMidashiSearch } from "./element.js";
import type { SearchSource } from "./source.js";

/** What midashi-inline.js provides. */
export interface InlineData {
  /** Index files by name (`midashi-entry.bin` and the ones it names), base64. */
  files: Record<string, string>;
  /** The full engine's wasm module, base64 (it opens single-file indexes). */
  wasm: string;
}

/** The parts of the wasm-bindgen glue (crates/midashi-wasm, `--target web`) used here. */
export interface InlineGlue {
  default(init: { module_or_path: WebAssembly.Module }): Promise<unknown>;
  readManifest(entry: Uint8Array): Manifest;
  WasmIndex: {
    open(entry: Uint8Array, terms: Uint8Array, sections: Uint8Array): {
      search(query: string, options: unknown): Step<unknown>;
    };
  };
}

const ENTRY = "midashi-entry.bin";

function fromBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Opens the inlined index with `glue`. */
export async function inlineSource(glue: InlineGlue, data: InlineData | undefined): Promise<SearchSource> {
  if (!data) {
    throw new Error("search/midashi-inline.js did not load: rebuild the site with `build-index <docs> --out <dir> --site`");
  }
  const file = (name: string): Uint8Array => {
    const b64 = data.files[name];
    if (b64 === undefined) throw new Error(`search/midashi-inline.js has no ${name}: rebuild the site`);
    return fromBase64(b64);
  };
  // Compiled asynchronously: browsers refuse large synchronous compiles on the main thread.
  const module = await WebAssembly.compile(fromBase64(data.wasm) as Uint8Array<ArrayBuffer>);
  await glue.default({ module_or_path: module });
  const entry = file(ENTRY);
  const manifest = glue.readManifest(entry);
  const named = (kind: string): Uint8Array => {
    const f = manifest.files.find((x) => x.kind === kind && x.needed_for_keyword);
    if (!f) throw new Error(`the inlined index names no ${kind.toLowerCase()} file: rebuild the site`);
    return file(f.name);
  };
  const index = glue.WasmIndex.open(entry, named("Terms"), named("Sections"));
  return {
    async search(query: string, options: SearchOptions): Promise<SearchResponse> {
      const started = performance.now();
      // Only what the engine knows, and no `undefined` values (it refuses those).
      const engineOptions: Record<string, unknown> = {};
      if (options.limit !== undefined) engineOptions["limit"] = options.limit;
      if (options.offset !== undefined) engineOptions["offset"] = options.offset;
      if (options.previewLines !== undefined) engineOptions["previewLines"] = options.previewLines;
      // A single-file index with no query vector needs no further file: its answer or nothing.
      const step = index.search(query, engineOptions) as Step<RawResponse>;
      if (!step.answer) throw new Error(`the inlined index asked for ${step.needs?.files.join(", ") || "another engine"}: rebuild the site`);
      return { ...step.answer, tookMs: performance.now() - started };
    },
  };
}

/** Defines <midashi-search> over the inlined index (called by the bundle's entry). */
export function defineInline(glue: InlineGlue): void {
  defineMidashiSearch(() => inlineSource(glue, (globalThis as { MIDASHI_INLINE?: InlineData }).MIDASHI_INLINE));
}
