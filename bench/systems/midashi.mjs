// Midashi, keyword leg: indexes built by the native build-index (--keyword-only: what the
// wasm engine loads), queried through the npm package's JS API in Node (web/dist, the same
// wasm engine as the browser) with the options build-index eval uses: limit 10, whole-word
// query (prefix: false), ungrouped results (one record = one document).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../lib/data.mjs";
import { readTree } from "../lib/sizes.mjs";
import { buildIndexBin } from "../lib/tools.mjs";

const DIST = path.join(ROOT, "web/dist");

let api;
async function midashi() {
  api ??= (await import(pathToFileURL(path.join(DIST, "index.js")).href)).Midashi;
  return api;
}

/** Writes `docs` as BEIR records and builds a keyword index of them; returns the folder. */
export function buildRecordsIndex(docs, out = mkdtempSync(path.join(os.tmpdir(), "bench-midashi-"))) {
  mkdirSync(out, { recursive: true });
  const input = path.join(out, "..", `${path.basename(out)}.jsonl`);
  writeFileSync(input, docs.map((d) => JSON.stringify({ _id: d.id, title: d.title, text: d.text })).join("\n") + "\n");
  execFileSync(buildIndexBin(), [input, "--out", out, "--quiet", "--keyword-only"], { stdio: ["ignore", "ignore", "inherit"] });
  return out;
}

const OPTIONS = { limit: 10, prefix: false, group: false, supersede: false, cache: false };

/** Midashi with `options` on top of the benchmark's: one system row. */
function system(name, options, settings) {
  return {
    name,
    packages: [],
    settings,
    async build(docs) {
      const dir = buildRecordsIndex(docs);
      const M = await midashi();
      const idx = await M.load(dir);
      idx.__dir = dir;
      return idx;
    },
    // The default (sharded) index reads a query's files as it needs them: this first run
    // reads them, so that the timed run compares search with search (see metrics.timedRuns).
    async prepare(idx, q, k) {
      await idx.search(q, { ...OPTIONS, ...options, limit: k });
    },
    async search(idx, q, k) {
      const r = await idx.search(q, { ...OPTIONS, ...options, limit: k });
      return r.results.map((h) => h.path);
    },
    serialize(idx) {
      return readTree(idx.__dir);
    },
    async load(files) {
      const dir = mkdtempSync(path.join(os.tmpdir(), "bench-midashi-load-"));
      for (const f of files) writeFileSync(path.join(dir, f.name), f.bytes);
      const M = await midashi();
      return M.load(dir);
    },
    close(idx) {
      idx.close?.();
    },
  };
}

/**
 * Results as the widget shows them: ranked, each with its preview, excerpt and marked words.
 * The ids-only row ranks the same and returns what FlexSearch, MiniSearch and Lunr return:
 * the top ten, without excerpts or previews.
 */
export const midashiIds = system(
  "Midashi, top 10 only",
  { excerpts: false, previewLines: 0 },
  { en: "as Midashi, with excerpts: false, previewLines: 0 (the same ranking; no excerpt, preview or marks made)", ja: "same" },
);

export default {
  ...system("Midashi", {}, {
    en: "build-index --keyword-only (BM25F over title/heading/body/code, Snowball stemmer, stop words); JS API search with limit 10, prefix: false, group: false (as build-index eval); fuzzy left at its default",
    ja: "same analyzer (NFKC, CJK character bigrams); same options",
    zh: "same analyzer (CJK character bigrams); same options",
    ko: "same analyzer (Hangul character bigrams); same options",
  }),
  /** The JS + wasm a page loads for keyword search: the package's ES modules bundled, and the wasm. */
  bundleEntry: () => `export { Midashi } from "./web/dist/index.js";`,
  // The keyword module: the full engine is fetched only for vectors and lookups.
  wasmFiles: () => [path.join(DIST, "wasm/midashi_keyword_bg.wasm")],
};
