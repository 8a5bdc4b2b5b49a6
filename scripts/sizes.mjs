#!/usr/bin/env node
// What a visitor downloads for keyword search: the keyword wasm module (raw, gzip, brotli;
// the full engine beside it, fetched only for vectors and lookups),
// the package's JavaScript, and each index file of three real documentation sites, plus which
// files a keyword search actually fetched (loaded over HTTP from a local server, requests
// recorded). Target: keyword wasm ≤ 150 KB gzip.
//
//   node scripts/sizes.mjs [--json]
//
// Needs web/dist (npm run build:wasm — the release build is what ships — and npm run build:web).

import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { buildIndex, DIST, importMidashi, SHARED, tempDir } from "../tests/support/indexes.mjs";
import { startServer } from "../tests/support/server.mjs";

const json = process.argv.includes("--json");
const WASM_GZIP_TARGET = 150 * 1024;
const CORPORA = ["rust-book", "vue-docs-en", "vue-docs-ja"];
/** A query per corpus, to show what a first keyword search fetches. */
const QUERIES = { "rust-book": "ownership borrowing", "vue-docs-en": "computed property", "vue-docs-ja": "算出プロパティ" };

function sizes(bytes) {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const row = (name, s) => `  ${name.padEnd(36)} ${kb(s.raw).padStart(10)} ${kb(s.gzip).padStart(10)} ${kb(s.brotli).padStart(10)}`;
const header = `  ${"".padEnd(36)} ${"raw".padStart(10)} ${"gzip -9".padStart(10)} ${"brotli 11".padStart(10)}`;

const { Midashi } = await importMidashi();
const report = { wasm: null, js: {}, jsTotal: null, corpora: {} };

// The keyword module (what keyword search loads), and the full engine for comparison.
const wasmBytes = readFileSync(path.join(DIST, "wasm/midashi_keyword_bg.wasm"));
const wasmSizes = sizes(wasmBytes);
report.wasm = { ...wasmSizes, gzipTarget: WASM_GZIP_TARGET, withinTarget: wasmSizes.gzip <= WASM_GZIP_TARGET };
report.fullWasm = sizes(readFileSync(path.join(DIST, "wasm/midashi_wasm_bg.wasm")));
// What a site whose pages are not all English loads instead (every Snowball stemmer).
report.languagesWasm = sizes(readFileSync(path.join(DIST, "wasm/languages/midashi_keyword_bg.wasm")));

// The package's own JavaScript (not the widget's bundles, which are another package's figures).
const jsFiles = [
  ...readdirSync(DIST).filter((f) => f.endsWith(".js")).map((f) => path.join(DIST, f)),
  path.join(DIST, "wasm/midashi_keyword.js"),
];
const allJs = [];
for (const f of jsFiles) {
  const bytes = readFileSync(f);
  allJs.push(bytes);
  report.js[path.relative(DIST, f)] = sizes(bytes);
}
report.jsTotal = sizes(Buffer.concat(allJs));

for (const corpus of CORPORA) {
  const docs = path.join(SHARED, "corpora", corpus);
  const out = tempDir(`midashi-sizes-${corpus}-`);
  const started = Date.now();
  buildIndex(docs, out);
  const buildMs = Date.now() - started;
  const files = {};
  for (const name of readdirSync(out).sort()) {
    if (statSync(path.join(out, name)).isFile()) files[name] = sizes(readFileSync(path.join(out, name)));
  }
  // Load over HTTP as a browser would, and record what was requested.
  const server = await startServer({ mounts: [{ prefix: "/", dir: out }] });
  const idx = await Midashi.load(`${server.url}/`);
  const res = await idx.search(QUERIES[corpus]);
  const fetched = server.requests.map((r) => r.slice(1));
  const fetchedBytes = fetched.reduce((n, f) => ({ raw: n.raw + (files[f]?.raw ?? 0), gzip: n.gzip + (files[f]?.gzip ?? 0), brotli: n.brotli + (files[f]?.brotli ?? 0) }), { raw: 0, gzip: 0, brotli: 0 });
  idx.close();
  await server.close();
  report.corpora[corpus] = { buildMs, stats: idx.manifest.stats, files, fetched, fetchedBytes, query: QUERIES[corpus], results: res.total };
  rmSync(out, { recursive: true, force: true });
}

if (json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log("Keyword wasm module (web/dist/wasm/midashi_keyword_bg.wasm), and the full engine fetched for vectors and lookups");
  console.log(header);
  console.log(row("midashi_keyword_bg.wasm", report.wasm));
  console.log(row("midashi_wasm_bg.wasm (full)", report.fullWasm));
  console.log(row("languages/midashi_keyword_bg.wasm", report.languagesWasm));
  console.log(`  target ≤ ${kb(WASM_GZIP_TARGET)} gzip: ${report.wasm.withinTarget ? "met" : "NOT met"} (${kb(report.wasm.gzip)})`);
  console.log("\nJavaScript (web/dist, the package's modules + wasm-bindgen glue)");
  console.log(header);
  for (const [name, s] of Object.entries(report.js)) console.log(row(name, s));
  console.log(row("total (one stream)", report.jsTotal));
  for (const [corpus, c] of Object.entries(report.corpora)) {
    console.log(`\n${corpus}: ${c.stats.documents} documents, ${c.stats.sections} sections, ${c.stats.terms} terms (built in ${(c.buildMs / 1000).toFixed(1)} s)`);
    console.log(header);
    for (const [name, s] of Object.entries(c.files)) console.log(row(name, s));
    console.log(`  keyword search ("${c.query}", ${c.results} results) fetched: ${c.fetched.join(", ")}`);
    console.log(row("  = fetched for keyword search", c.fetchedBytes));
  }
}
