// What a visitor's browser downloads for the semantic leg (#21 item 3): the index of a docs
// folder built as `build-index` does by default (with the model it picks, trimmed to the
// site), then the files its first semantic query fetches — the model, tokenizer and model
// configuration, vectors, tree and HNSW graph of the index, the semantic module with its glue
// and worker, and the full engine the page moves to — raw, gzip -9 and brotli -q 11.
//
//   node bench/semantic-bytes.mjs [--corpus rust-book|<name under ../shared/corpora>|<folder>]
//
// Needs a release build-index (or $MIDASHI_BUILD_INDEX), the model, and the built semantic
// module (scripts/build-wasm-embed.sh release). Nothing here asserts a size.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import zlib from "node:zlib";
import { corpusDir, ROOT } from "./lib/data.mjs";
import { buildIndexBin } from "./lib/tools.mjs";

const { values: args } = parseArgs({ options: { corpus: { type: "string", default: "rust-book" } } });
const docs = args.corpus.includes(path.sep) ? path.resolve(args.corpus) : corpusDir(args.corpus);
const out = mkdtempSync(path.join(os.tmpdir(), "midashi-semantic-bytes-"));
try {
  const report = execFileSync(buildIndexBin(), [docs, "--out", out], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const trimmed = report.split("\n").find((l) => /^  model {6}/.test(l));
  const index = readdirSync(out)
    .filter((f) => /^(model|tokenizer|model-config|vectors|tree|ann)\.[0-9a-f]{16}\./.test(f))
    .map((f) => path.join(out, f));
  if (!index.some((f) => path.basename(f).startsWith("vectors."))) throw new Error(`${docs}: the build made no vectors (no model at hand?)`);
  const dist = path.join(ROOT, "web/dist");
  const code = ["embed/midashi_wasm_embed_bg.wasm", "embed/midashi_wasm_embed.js", "bundle/embed-worker.js", "wasm/midashi_wasm_bg.wasm", "wasm/midashi_wasm.js"].map((f) => path.join(dist, f));
  const rows = [];
  for (const f of [...index, ...code]) {
    const b = readFileSync(f);
    const gzip = zlib.gzipSync(b, { level: 9 }).length;
    const brotli = zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_LGWIN]: 24, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length;
    rows.push({ file: path.basename(f), raw: b.length, gzip, brotli });
  }
  const mb = (n) => (n / 1e6).toFixed(2);
  const sum = (k) => rows.reduce((a, r) => a + r[k], 0);
  console.log(`# Semantic leg bytes: ${path.basename(docs)}\n`);
  if (trimmed) console.log(`${trimmed.trim()}\n`);
  console.log("| file | raw MB | gzip MB | brotli MB |\n|---|---:|---:|---:|");
  for (const r of rows) console.log(`| ${r.file} | ${mb(r.raw)} | ${mb(r.gzip)} | ${mb(r.brotli)} |`);
  console.log(`| **total** | ${mb(sum("raw"))} | ${mb(sum("gzip"))} | **${mb(sum("brotli"))}** |`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
