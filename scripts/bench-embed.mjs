// Query-encode latency and model-ready time of all-MiniLM-L6-v2, in one run:
//   - Midashi's semantic wasm module (the purpose-written BERT encoder, simd128) in Node, as
//     the browser runs it, on the encoder file an index ships (midashi_embed::bert, 4-bit
//     weights; made here by the prepare_encoder example; the module reads no ONNX);
//   - onnxruntime-web 1.30.0 (wasm backend, 1 thread, SIMD) on the same model, both in our
//     weight-only int8 format and in fp32 (it runs each differently; the best one counts);
//   - both again in headless Chromium, and onnxruntime-web there at the machine's core count
//     too (a cross-origin isolated page: its threaded build needs one), unless --no-browser;
//   - the same encoder natively (the encode_bench example), for reference, unless --no-native.
// The same two texts for all: 27 tokens and 256 tokens (a long text truncated at the limit),
// tokenised by the same tokenizer.json. Pooling (mean, L2) is included in onnxruntime-web's
// time, as it is in ours. Prints a table and, with --json <file>, writes the figures.
//
//   node scripts/bench-embed.mjs [--runs 30] [--no-native] [--no-browser] [--json out.json]
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
const first = new glue2.WasmEmbedder(prepared, tokenizer, config);
const preparedReady = compiled2 + (now() - t0);
// A page holds one encoder: the first is let go before the second is made.
first.free();
// Made again in the same process: V8 runs a module's first calls in its baseline tier and
// optimises hot functions as they run, so the first make is colder than a page that has
// visited before (whose cached module is optimised code) will see.
t0 = now();
const preparedEmbedder = new glue2.WasmEmbedder(prepared, tokenizer, config);
const preparedWarm = now() - t0;
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
  compileMs: compiled2,
  createMs: preparedReady - compiled2,
  readyWarmMs: preparedWarm,
  wasmBytes: wasmBytes.length,
  modelBytes: prepared.length,
  ...Object.fromEntries(Object.entries(texts).map(([label, t]) => [label, time(() => preparedEmbedder.embed(t), label.startsWith("256") ? Math.ceil(RUNS / 2) : RUNS)])),
};
// ---- onnxruntime-web (wasm, 1 thread) --------------------------------------------------------
const require = createRequire(import.meta.url);
const ortDir = path.dirname(require.resolve("onnxruntime-web"));
const ort = await import(pathToFileURL(path.join(ortDir, "ort.wasm.min.mjs")).href).catch(() => import("onnxruntime-web"));
// One thread in Node (its threaded build needs a page: see the Chromium section below).
const ortThreads = 1;
ort.env.wasm.numThreads = ortThreads;
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

const threads = `${ortThreads} thread${ortThreads > 1 ? "s" : ""}`;
// fp32 first: its first session create starts onnxruntime-web's runtime (compiling its wasm),
// as our ready time includes compiling ours; a second create of it is the warm figure.
for (const [name, file] of [
  [`onnxruntime-web 1.30.0 (wasm, ${threads}), fp32`, onnxFp32Path],
  [`onnxruntime-web 1.30.0 (wasm, ${threads}), int8 weights`, path.join(modelDir, "model.onnx")],
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
  const entry = { readyMs: ready, modelBytes: bytes.length, threads: ortThreads };
  if (file === onnxFp32Path) {
    t0 = now();
    const again = await ort.InferenceSession.create(bytes, { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
    entry.readyWarmMs = now() - t0;
    await again.release();
  }
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

// ---- Chromium: both, and onnxruntime-web at the machine's core count ------------------------
// (onnxruntime-web's threaded build does not start in Node from files: it fetches its worker.)
if (!flag("--no-browser")) {
  const os = await import("node:os");
  const encoderFile = path.join(os.tmpdir(), `midashi-encoder-page-${process.pid}.bin`);
  writeFileSync(encoderFile, prepared);
  try {
    const { encodeInChromium } = await import("../bench/lib/embed-page.mjs");
    Object.assign(results.systems, await encodeInChromium({ embedDir, encoderFile, modelDir, ortDir, texts, runs: RUNS, cores: os.cpus().length }));
  } catch (e) {
    results.systems["Chromium"] = { error: String(e.message ?? e) };
  } finally {
    (await import("node:fs")).rmSync(encoderFile, { force: true });
  }
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
console.log("| system | model ready ms (first in the process) | ready again ms | 27 tokens ms (p90) | 256 tokens ms (p90) |");
console.log("|---|---:|---:|---:|---:|");
for (const [name, e] of Object.entries(results.systems)) {
  if (e.error) {
    console.log(`| ${name} | failed: ${e.error.split("\n")[0]} | | | |`);
    continue;
  }
  const c = (k) => (e[k] ? `${f(e[k].median)} (${f(e[k].p90)})` : "—");
  console.log(`| ${name} | ${f(e.readyMs)} | ${f(e.readyWarmMs)} | ${c("27 tokens")} | ${c("256 tokens")} |`);
}
const ours = results.systems["midashi (wasm, simd128), encoder file as shipped"];
const orts = Object.entries(results.systems).filter(([n, e]) => n.startsWith("onnxruntime") && !e.error);
if (orts.length) {
  // Per place (Node, Chromium) and thread count onnxruntime-web ran at: ours (one thread, all
  // it supports) against its best there.
  for (const [place, ourName] of [["Node", "midashi (wasm, simd128), encoder file as shipped"], ["Chromium", "midashi (wasm, simd128), Chromium"]]) {
    const mine = results.systems[ourName];
    const here = orts.filter(([n]) => n.includes("Chromium") === (place === "Chromium"));
    if (!mine || mine.error || !here.length) continue;
    for (const t of [...new Set(here.map(([, e]) => e.threads))]) {
      const at = here.filter(([, e]) => e.threads === t);
      const best = (k) => Math.min(...at.map(([, e]) => e[k].median));
      for (const k of ["27 tokens", "256 tokens"]) {
        console.log(`${place}: midashi wasm (1 thread) / best onnxruntime-web at ${t} thread(s), ${k}: ${(mine[k].median / best(k)).toFixed(2)}× (≤ 1.0 means Midashi is as fast or faster)`);
      }
    }
    const first = here.find(([, e]) => e.threads === 1);
    if (first) console.log(`${place}: midashi model ready / onnxruntime-web session create, first in a ${place === "Node" ? "process" : "page"} (module compile and runtime start included): ${(mine.readyMs / first[1].readyMs).toFixed(2)}×`);
  }
  const one = orts.filter(([, e]) => e.threads === 1 && e.readyWarmMs !== undefined);
  if (one.length) {
    console.log(`Node: midashi model ready / onnxruntime-web session create, made again (warm code): ${(ours.readyWarmMs / one[0][1].readyWarmMs).toFixed(2)}×`);
  }
  for (const [n, e] of orts.filter(([, e]) => e["cosine vs midashi, 27 tokens"] !== undefined)) {
    console.log(`${n}: cosine with midashi's vector ${e["cosine vs midashi, 27 tokens"].toFixed(5)} (27), ${e["cosine vs midashi, 256 tokens"].toFixed(5)} (256)`);
  }
}
const out = value("--json");
if (out) writeFileSync(out, JSON.stringify(results, null, 2));
