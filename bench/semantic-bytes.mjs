// What a visitor's browser downloads for the semantic leg (#21 item 3, #69 item 5), for each
// leg side by side: the index of a docs folder built with `--semantic static` (the default
// with all-MiniLM-L6-v2: a table distilled from the site, embedded by look-up in the keyword
// module) and with `--semantic deep` (the model's encoder), then the files a first question
// fetches with each — raw, gzip -9 and brotli -q 11.
//
//   node bench/semantic-bytes.mjs [--corpus rust-book|<name under ../shared/corpora>|<folder>] [--leg static|deep]
//
// - static: the table, the vectors, the tree (and an HNSW graph, which moves a page to the
//   full engine). The keyword module carries the leg's code for every visitor (+8.5 KB
//   brotli, web/wasm-modules.json), not counted here.
// - deep: the model, tokenizer and model configuration, the vectors, tree and graph, the
//   semantic module with its glue and worker, and the full engine the page moves to.
//
// Needs a release build-index (or $MIDASHI_BUILD_INDEX), the model, and for `deep` the built
// semantic module (scripts/build-wasm-embed.sh release). Nothing here asserts a size.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import zlib from "node:zlib";
import { corpusDir, ROOT } from "./lib/data.mjs";
import { buildIndexBin } from "./lib/tools.mjs";

const { values: args } = parseArgs({ options: { corpus: { type: "string", default: "rust-book" }, leg: { type: "string" } } });
const docs = args.corpus.includes(path.sep) ? path.resolve(args.corpus) : corpusDir(args.corpus);
const legs = args.leg ? [args.leg] : ["static", "deep"];
const INDEX_FILES = { static: /^(table|vectors|tree|ann)\.[0-9a-f]{16}\./, deep: /^(model|tokenizer|model-config|vectors|tree|ann)\.[0-9a-f]{16}\./ };
const CODE = { static: [], deep: ["embed/midashi_wasm_embed_bg.wasm", "embed/midashi_wasm_embed.js", "bundle/embed-worker.js", "wasm/midashi_wasm_bg.wasm", "wasm/midashi_wasm.js"] };

const mb = (n) => (n / 1e6).toFixed(3);
console.log(`# Semantic leg bytes: ${path.basename(docs)}\n`);
for (const leg of legs) {
  if (!INDEX_FILES[leg]) throw new Error(`--leg ${leg}: use static or deep`);
  const out = mkdtempSync(path.join(os.tmpdir(), `midashi-semantic-bytes-${leg}-`));
  try {
    const report = execFileSync(buildIndexBin(), [docs, "--out", out, "--semantic", leg], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const summary = report.split("\n").find((l) => /^ {2}(model|table) {5,6}/.test(l));
    const index = readdirSync(out)
      .filter((f) => INDEX_FILES[leg].test(f))
      .map((f) => path.join(out, f));
    if (!index.some((f) => path.basename(f).startsWith("vectors."))) throw new Error(`${docs}: the build made no vectors (no model at hand?)`);
    const rows = [];
    for (const f of [...index, ...CODE[leg].map((c) => path.join(ROOT, "web/dist", c))]) {
      const b = readFileSync(f);
      const gzip = zlib.gzipSync(b, { level: 9 }).length;
      const brotli = zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_LGWIN]: 24, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length;
      rows.push({ file: path.basename(f), raw: b.length, gzip, brotli });
    }
    const sum = (k) => rows.reduce((a, r) => a + r[k], 0);
    console.log(`## --semantic ${leg}\n`);
    if (summary) console.log(`${summary.trim()}\n`);
    console.log("| file | raw MB | gzip MB | brotli MB |\n|---|---:|---:|---:|");
    for (const r of rows) console.log(`| ${r.file} | ${mb(r.raw)} | ${mb(r.gzip)} | ${mb(r.brotli)} |`);
    console.log(`| **total** | ${mb(sum("raw"))} | ${mb(sum("gzip"))} | **${mb(sum("brotli"))}** |\n`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
