// The semantic wasm module (crates/midashi-wasm-embed) against the float64 reference: the same
// token ids as Python tokenizers, and embeddings within cosine 0.999 of the original model.
// Also prints load time and encode latency for 27- and 256-token texts.
//
// Needs: scripts/build-wasm-embed.sh (web/pkg/embed/node/), scripts/fetch-model.sh
// (models/all-MiniLM-L6-v2/), and the reference file ($MIDASHI_MINILM_REFERENCE or
// /work/shared/eval/minilm-reference.json). Skipped with a reason when one is missing, so
// `npm run test:node` works before the model has been fetched.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { buildIndexBin, tempDir } from "../support/indexes.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = path.join(root, "web/pkg/embed/node/midashi_wasm_embed.js");
const modelDir = process.env.MIDASHI_MODEL_DIR ?? path.join(root, "models/all-MiniLM-L6-v2");
const referencePath = process.env.MIDASHI_MINILM_REFERENCE ?? "/work/shared/eval/minilm-reference.json";

const missing = [
  [pkg, "run scripts/build-wasm-embed.sh"],
  [path.join(modelDir, "model.onnx"), "run scripts/fetch-model.sh"],
  [referencePath, "set MIDASHI_MINILM_REFERENCE"],
].find(([file]) => !existsSync(file));
const skip = missing ? `${missing[0]} is missing (${missing[1]})` : false;

function cosine(a, b) {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

describe("semantic wasm module (midashi-wasm-embed)", { skip }, () => {
  let embedder;
  let references;
  let loadMs;

  before(() => {
    // --target nodejs glue is CommonJS and instantiates the module synchronously on require.
    const require = createRequire(import.meta.url);
    let t = performance.now();
    const { WasmEmbedder } = require(pkg);
    const instantiateMs = performance.now() - t;
    // The module reads the encoder file, not ONNX: the whole model's, with the ONNX's own
    // 8-bit weights (what the ONNX computes, to float rounding; bert::prepare checks it).
    const prepared = tempDir("midashi-parity-model-");
    execFileSync(buildIndexBin(), ["prepare-model", modelDir, "--out", prepared, "--bits", "8"], { stdio: "inherit" });
    const graph = readFileSync(path.join(prepared, "model.bin"));
    const tokenizer = readFileSync(path.join(prepared, "tokenizer.json"));
    const config = readFileSync(path.join(prepared, "midashi-model.json"), "utf8");
    t = performance.now();
    embedder = new WasmEmbedder(graph, tokenizer, config);
    loadMs = performance.now() - t;
    console.log(`wasm instantiate ${instantiateMs.toFixed(0)} ms, model load ${loadMs.toFixed(0)} ms`);
    references = JSON.parse(readFileSync(referencePath, "utf8"));
  });

  test("token ids equal Python tokenizers' exactly", () => {
    for (const r of references) {
      assert.deepEqual(Array.from(embedder.tokenIds(r.text)), r.ids, `ids differ for ${JSON.stringify(r.text)}`);
    }
    assert.ok(references.some((r) => embedder.countTokens(r.text) > embedder.maxTokens), "long texts are counted untruncated");
  });

  test("embeddings reach cosine >= 0.999 against the float64 reference", () => {
    let min = 1;
    for (const r of references) {
      const v = embedder.embed(r.text);
      assert.ok(v instanceof Float32Array);
      assert.equal(v.length, embedder.dims);
      const c = cosine(v, r.ref_embedding);
      min = Math.min(min, c);
    }
    console.log(`wasm int8 min cosine vs float64 reference: ${min.toFixed(7)}`);
    assert.ok(min >= 0.999, `min cosine ${min}`);
  });

  test("long texts give one vector per window", () => {
    const long = references.map((r) => r.text).join("\n\n");
    const flat = embedder.embedWindows(long);
    assert.equal(flat.length % embedder.dims, 0);
    assert.ok(flat.length / embedder.dims >= 3, `${flat.length / embedder.dims} windows`);
  });

  test("bad input is an Error with a message, not a crash", async () => {
    const require = createRequire(import.meta.url);
    const { WasmEmbedder } = require(pkg);
    const config = readFileSync(path.join(modelDir, "midashi-model.json"), "utf8");
    const tokenizer = readFileSync(path.join(modelDir, "tokenizer.json"));
    assert.throws(() => new WasmEmbedder(new Uint8Array([1, 2, 3]), tokenizer, config), /embedding model unusable/);
    // An ONNX is refused with what to do: the module reads only the encoder file.
    assert.throws(() => new WasmEmbedder(readFileSync(path.join(modelDir, "model.onnx")), tokenizer, config), /prepare-model/);
    assert.throws(() => new WasmEmbedder(new Uint8Array(), tokenizer, "{"), /midashi-model.json/);
  });

  test("latency (printed)", () => {
    // Texts of exactly 27 and 256 tokens: the reference's 27-token text and a truncated long one.
    const short = references.find((r) => r.ids.length === 27)?.text;
    const long = references.find((r) => r.ids.length === 256)?.text;
    assert.ok(short && long, "reference has 27- and 256-token texts");
    for (const [label, text, runs] of [["27 tokens", short, 30], ["256 tokens", long, 8]]) {
      embedder.embed(text); // warm-up
      const times = [];
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        embedder.embed(text);
        times.push(performance.now() - t);
      }
      console.log(`wasm encode ${label}: median ${median(times).toFixed(1)} ms, min ${Math.min(...times).toFixed(1)} ms (${runs} runs)`);
    }
  });
});
