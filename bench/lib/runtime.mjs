// The JS and wasm bytes each system ships to a page for search (the index aside).

import { readFileSync } from "node:fs";
import path from "node:path";
import { NODE_SYSTEMS } from "../systems/index.mjs";
import { buildBundle, runtimeFiles, remove } from "../systems/pagefind.mjs";
import { bundleBytes } from "./bundle.mjs";
import { sizesOfFiles } from "./sizes.mjs";

const MIDASHI_WORKER = `import "./web/dist/worker.js";`;

/** `[{ system, lang, js, wasm }]` with raw/gzip/brotli sizes. */
export async function measureRuntime() {
  const rows = [];
  for (const lang of ["en", "ja"]) {
    for (const [key, sys] of Object.entries(NODE_SYSTEMS)) {
      // A row that is another system's options (Midashi's ids-only row) loads the same code.
      if (!sys.bundleEntry) continue;
      const js = [await bundleBytes(sys.bundleEntry(lang))];
      // Midashi runs its engine in a Web Worker in browsers: the worker is a second script.
      if (key === "midashi") js.push(await bundleBytes(MIDASHI_WORKER));
      const wasm = (sys.wasmFiles?.() ?? []).map((f) => ({ name: path.basename(f), bytes: readFileSync(f) }));
      rows.push({ system: sys.name, key, lang, js: sizesOfFiles(js.map((b, i) => ({ name: `${i}.js`, bytes: b }))), wasm: sizesOfFiles(wasm) });
    }
    // Pagefind: its loader and the language's wasm, from a bundle of one record.
    const dir = await buildBundle([{ id: "x", title: "x", text: lang === "ja" ? "日本語の文書" : "a document" }], lang);
    const files = runtimeFiles(dir, lang);
    rows.push({
      system: "Pagefind",
      key: "pagefind",
      lang,
      js: sizesOfFiles(files.filter((f) => f.name.endsWith(".js"))),
      // The wasm file is gzip'd by Pagefind already: its size is what is sent.
      wasm: sizesOfFiles(files.filter((f) => !f.name.endsWith(".js")).map((f) => ({ ...f, precompressed: true }))),
    });
    remove(dir);
  }
  return rows;
}

