// Where the package's own files (wasm modules, glue, workers) are served from.

import { absolute } from "./loader.js";
import type { LoadOptions } from "./types.js";

/**
 * Where the package's own files are: next to this module unless told otherwise. Each default
 * is written as a literal `new URL("./file", import.meta.url)`: the one form every bundler
 * (Vite, webpack 5, esbuild with its file loader, Rollup) recognises, so that an app that
 * imports this package gets these files emitted and their URLs rewritten, with no copying
 * by hand. The workers are self-contained bundles, so a bundler may emit them as they are.
 */
export function assets(options: LoadOptions) {
  const base = options.assetsUrl === undefined ? undefined : absolute(options.assetsUrl).replace(/\/?$/, "/");
  // `file` is the place inside such a folder; `here` the default next to this module.
  const at = (given: string | URL | undefined, file: string, here: () => URL) =>
    given ? absolute(given) : base ? new URL(file, base).href : here().href;
  // A caller who names only the full engine's files gets only the full engine: the keyword
  // module's default place (next to this package) may not be where they serve files.
  const keywordGiven = options.keywordWasmUrl !== undefined || options.keywordGlueUrl !== undefined;
  const fullOnly = !keywordGiven && (options.wasmUrl !== undefined || options.glueUrl !== undefined);
  return {
    glueUrl: at(options.glueUrl, "wasm/midashi_wasm.js", () => new URL("./wasm/midashi_wasm.js", import.meta.url)),
    wasmUrl: at(options.wasmUrl, "wasm/midashi_wasm_bg.wasm", () => new URL("./wasm/midashi_wasm_bg.wasm", import.meta.url)),
    keyword: fullOnly
      ? undefined
      : {
          glueUrl: at(options.keywordGlueUrl, "wasm/midashi_keyword.js", () => new URL("./wasm/midashi_keyword.js", import.meta.url)),
          wasmUrl: at(options.keywordWasmUrl, "wasm/midashi_keyword_bg.wasm", () => new URL("./wasm/midashi_keyword_bg.wasm", import.meta.url)),
        },
    workerUrl: at(options.workerUrl, "worker.js", () => new URL("./worker.js", import.meta.url)),
    embedGlueUrl: at(options.embedGlueUrl, "embed/midashi_wasm_embed.js", () => new URL("./embed/midashi_wasm_embed.js", import.meta.url)),
    embedWasmUrl: at(options.embedWasmUrl, "embed/midashi_wasm_embed_bg.wasm", () => new URL("./embed/midashi_wasm_embed_bg.wasm", import.meta.url)),
    embedWorkerUrl: at(options.embedWorkerUrl, "embed-worker.js", () => new URL("./embed-worker.js", import.meta.url)),
  };
}
