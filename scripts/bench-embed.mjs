// Query-encode latency and model-ready time of all-MiniLM-L6-v2, in one run:
//   - Midashi's semantic wasm module (the purpose-written BERT encoder, simd128) in Node, as
//     the browser runs it, on the encoder file an index ships (midashi_embed::bert, 4-bit
//     weights; made here by the prepare_encoder example; the module reads no ONNX);
//   - onnxruntime-web 1.30.0 (wasm backend, 1 thread, SIMD) on the same model, both in our
//     weight-only int8 format and in fp32 (it runs each differently; the best one counts);
//   - the same encoder natively (the encode_bench example), for reference, unless --no-native.
// The same two texts for all: 27 tokens and 256 tokens (a long text truncated at the limit),
// tokenised by the same tokenizer.json. Pooling (mean, L2) is included in onnxruntime-web's
// time, as it is in ours. Prints a table and, with --json <file>, writes the figures.
//
//   node scripts/bench-embed.mjs [--runs 30] [--no-native] [--json out.json]
//
// Needs: scripts/fetch-model.sh, scripts/build-wasm-embed.sh (release for real figures).

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(value("--runs", "30"));
const modelDir = process.env.MIDASHI_MODEL_DIR ?? path.join(root, "models/all-MiniLM-L6-v2");
const embedDir = path.join(root, "web/dist/embed");

for (const [file, how] of [
  [path.join(modelDir, "model.onnx"), "run scripts/fetch-model.sh"],
  [path.join(embedDir, "midashi_wasm_embed_bg.wasm"), "run scripts/build-wasm-embed.sh wasm-embed-release"],
]) {
  if (!existsSync(file)) {
    console.error(`bench-embed: ${file} is missing: ${how}`);
    process.exit(2);
  }
}

const now = () => performance.now();
function stats(times) {
  const s = [...times].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], p90: s[Math.floor(s.length * 0.9)], min: s[0] };
}
function time(f, runs) {
  for (let i = 0; i < 3; i++) f();
  const t = [];
  for (let i = 0; i < runs; i++) {
    const a = now();
    f();
    t.push(now() - a);
  }
  return stats(t);
}
async function timeAsync(f, runs) {
  for (let i = 0; i < 3; i++) await f();
  const t = [];
  for (let i = 0; i < runs; i++) {
    const a = now();
    await f();
    t.push(now() - a);
  }
  return stats(t);
}

const onnxFp32Path = path.join(modelDir, "model-fp32.onnx");
const tokenizer = readFileSync(path.join(modelDir, "tokenizer.json"));
const config = readFileSync(path.join(modelDir, "midashi-model.json"), "utf8");
const results = { machine: { node: process.version, cpus: (await import("node:os")).cpus().map((c) => c.model)[0] }, runs: RUNS, systems: {} };

// ---- Midashi: the encoder in wasm ---------------------------------------------------------
const wasmBytes = readFileSync(path.join(embedDir, "midashi_wasm_embed_bg.wasm"));
// In a fresh process, as a page load is: V8 shares compiled code between instances of the
// same module bytes, so a second load would run warmer code.
const preparedPath = path.join((await import("node:os")).tmpdir(), `midashi-encoder-${process.pid}.bin`);
execFileSync("cargo", ["run", "--quiet", "--release", "-p", "midashi-embed", "--example", "prepare_encoder", "--", path.join(modelDir, "model.onnx"), preparedPath], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
const prepared = readFileSync(preparedPath);
(await import("node:fs")).rmSync(preparedPath, { force: true });
const glue2 = await import(pathToFileURL(path.join(embedDir, "midashi_wasm_embed.js")).href);
let t0 = now();
await glue2.default({ module_or_path: await WebAssembly.compile(wasmBytes) });
const compiled2 = now() - t0;
t0 = now();
const preparedEmbedder = new glue2.WasmEmbedder(prepared, tokenizer, config);
const preparedReady = compiled2 + (now() - t0);
/** The longest word prefix of `text` with at most `n` tokens (as encode_bench does). */
function fit(text, n) {
  const words = text.split(/\s+/);
  let best = "";
  for (let i = 1; i <= words.length; i++) {
    const c = words.slice(0, i).join(" ");
    if (preparedEmbedder.countTokens(c) > n) break;
    best = c;
  }
  return best;
}
const short = fit("Midashi finds the section of the documentation that answers a question, in the browser, offline, and from the command line too", 27);
const long = "Section-level search splits every Markdown file into a tree of headings and indexes each node with its breadcrumbs, so that a result points at the paragraph that answers the query rather than at a whole page. ".repeat(20);
const texts = { "27 tokens": short, "256 tokens": long };
for (const [label, t] of Object.entries(texts)) {
  const n = preparedEmbedder.tokenIds(t).length;
  if (n !== Number(label.split(" ")[0])) throw new Error(`${label}: the text has ${n} tokens`);
}
results.systems["midashi (wasm, simd128), encoder file as shipped"] = {
  readyMs: preparedReady,
  wasmBytes: wasmBytes.length,
  modelBytes: prepared.length,
  ...Object.fromEntries(Object.entries(texts).map(([label, t]) => [label, time(() => preparedEmbedder.embed(t), label.startsWith("256") ? Math.ceil(RUNS / 2) : RUNS)])),
};
// ---- onnxruntime-web (wasm, 1 thread) --------------------------------------------------------
const require = createRequire(import.meta.url);
const ortDir = path.dirname(require.resolve("onnxruntime-web"));
const ort = await import(pathToFileURL(path.join(ortDir, "ort.wasm.min.mjs")).href).catch(() => import("onnxruntime-web"));
ort.env.wasm.numThreads = 1;
ort.env.wasm.simd = true;
ort.env.wasm.wasmPaths = pathToFileURL(ortDir + path.sep).href;
ort.env.logLevel = "error";

function feeds(ids) {
  const n = ids.length;
  const i64 = (f) => new ort.Tensor("int64", BigInt64Array.from({ length: n }, (_, i) => BigInt(f(i))), [1, n]);
  return { input_ids: i64((i) => ids[i]), attention_mask: i64(() => 1), token_type_ids: i64(() => 0) };
}
function pool(hidden, n, dims) {
  const out = new Float32Array(dims);
  for (let t = 0; t < n; t++) for (let d = 0; d < dims; d++) out[d] += hidden[t * dims + d];
  let norm = 0;
  for (let d = 0; d < dims; d++) norm += (out[d] /= n) ** 2;
  norm = Math.sqrt(norm);
  for (let d = 0; d < dims; d++) out[d] /= norm;
  return out;
}
function cosine(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

for (const [name, file] of [
  ["onnxruntime-web 1.30.0 (wasm, 1 thread), int8 weights", path.join(modelDir, "model.onnx")],
  ["onnxruntime-web 1.30.0 (wasm, 1 thread), fp32", onnxFp32Path],
]) {
  if (!existsSync(file)) continue;
  const bytes = readFileSync(file);
  t0 = now();
  let session;
  try {
    session = await ort.InferenceSession.create(bytes, { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
  } catch (e) {
    results.systems[name] = { error: String(e.message ?? e) };
    continue;
  }
  const ready = now() - t0;
  const entry = { readyMs: ready, modelBytes: bytes.length };
  for (const [label, t] of Object.entries(texts)) {
    const ids = Array.from(preparedEmbedder.tokenIds(t));
    const run = async () => {
      const out = await session.run(feeds(ids));
      return pool(out.last_hidden_state.data, ids.length, 384);
    };
    const ours = preparedEmbedder.embed(t);
    entry[`cosine vs midashi, ${label}`] = cosine(await run(), ours);
    entry[label] = await timeAsync(run, label.startsWith("256") ? Math.ceil(RUNS / 2) : RUNS);
  }
  results.systems[name] = entry;
  await session.release();
}

// ---- native (reference) ----------------------------------------------------------------------
if (!flag("--no-native")) {
  try {
    const out = execFileSync("cargo", ["run", "--quiet", "--release", "-p", "midashi-embed", "--example", "encode_bench", "--", modelDir], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    const entry = {};
    // The encoder file's load (what an index ships, 4-bit), tract's ONNX load beside it;
    // latencies of the encoder file (printed after tract's).
    const prepared = out.match(/encoder file, Four bits: .*? load (\d+) \//);
    const onnx = out.match(/: load (\d+) ms/);
    if (prepared) entry.readyMs = Number(prepared[1]);
    if (onnx) entry.readyOnnxMs = Number(onnx[1]);
    for (const m of out.matchAll(/encoder file, 4-bit +(\d+ tokens) \(\d+ tokens\): median ([\d.]+) ms, p90 ([\d.]+) ms, min ([\d.]+) ms/g)) {
      entry[m[1]] = { median: Number(m[2]), p90: Number(m[3]), min: Number(m[4]) };
    }
    results.systems["midashi native (encoder file, 1 thread)"] = entry;
  } catch (e) {
    results.systems["midashi native (encoder file, 1 thread)"] = { error: String(e.message ?? e) };
  }
}

// ---- report ----------------------------------------------------------------------------------
const f = (x) => (x === undefined ? "—" : x.toFixed(1));
console.log(`\nQuery encoding, all-MiniLM-L6-v2 (${results.machine.cpus}; Node ${process.version}; median of ${RUNS} runs, 256-token runs ${Math.ceil(RUNS / 2)})\n`);
console.log("| system | model ready ms | 27 tokens ms (p90) | 256 tokens ms (p90) |");
console.log("|---|---:|---:|---:|");
for (const [name, e] of Object.entries(results.systems)) {
  if (e.error) {
    console.log(`| ${name} | failed: ${e.error.split("\n")[0]} | | |`);
    continue;
  }
  const c = (k) => (e[k] ? `${f(e[k].median)} (${f(e[k].p90)})` : "—");
  console.log(`| ${name} | ${f(e.readyMs)} | ${c("27 tokens")} | ${c("256 tokens")} |`);
}
const ours = results.systems["midashi (wasm, simd128), encoder file as shipped"];
const orts = Object.entries(results.systems).filter(([n, e]) => n.startsWith("onnxruntime") && !e.error);
if (orts.length) {
  const best = (k) => Math.min(...orts.map(([, e]) => e[k].median));
  for (const k of ["27 tokens", "256 tokens"]) {
    console.log(`\nmidashi wasm / best onnxruntime-web, ${k}: ${(ours[k].median / best(k)).toFixed(2)}× (≤ 1.0 means Midashi is as fast or faster)`);
  }
  const readyBest = Math.min(...orts.map(([, e]) => e.readyMs));
  console.log(`midashi model ready (encoder file) / best onnxruntime-web session create: ${(ours.readyMs / readyBest).toFixed(2)}×`);
  for (const [n, e] of orts) {
    console.log(`${n}: cosine with midashi's vector ${e["cosine vs midashi, 27 tokens"].toFixed(5)} (27), ${e["cosine vs midashi, 256 tokens"].toFixed(5)} (256)`);
  }
}
const out = value("--json");
if (out) writeFileSync(out, JSON.stringify(results, null, 2));
