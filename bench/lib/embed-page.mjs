// Query encoding in headless Chromium, for `npm run bench:embed`: Midashi's semantic module
// (one thread: it has no threaded build) against onnxruntime-web at 1 thread and at the
// machine's core count — its threaded build needs a cross-origin isolated page, so the
// page is served here with COOP/COEP headers (a docs site without them gets 1 thread).
// Each thread count is a fresh page (onnxruntime-web fixes its threads when its runtime
// starts). Returns the same entries bench-embed.mjs reports for Node.

import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { launch } from "./browser.mjs";

const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".json": "application/json" };

/** Serves `files` (URL path → file path) from 127.0.0.1 in a cross-origin isolated page. */
function isolatedServer(files) {
  const server = http.createServer((req, res) => {
    const file = files[new URL(req.url, "http://x").pathname];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-embedder-policy": "require-corp",
    });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>encode</title><script type="module">
const now = () => performance.now();
function stats(t) { t.sort((a, b) => a - b); const q = (p) => t[Math.min(t.length - 1, Math.floor(p * t.length))]; return { median: q(0.5), p90: q(0.9), min: t[0] }; }
function pool(h, n, d) { const o = new Float32Array(d); for (let t = 0; t < n; t++) for (let i = 0; i < d; i++) o[i] += h[t * d + i]; let s = 0; for (let i = 0; i < d; i++) s += (o[i] /= n) ** 2; s = Math.sqrt(s); for (let i = 0; i < d; i++) o[i] /= s; return o; }
window.run = async ({ texts, runs, threads }) => {
  const out = { isolated: crossOriginIsolated };
  const [wasm, model, tokenizer, config] = await Promise.all(["/embed.wasm", "/model.bin", "/tokenizer.json", "/config.json"].map((u) => fetch(u).then((r) => r.arrayBuffer())));
  const glue = await import("/embed.js");
  let t0 = now();
  await glue.default({ module_or_path: await WebAssembly.compile(wasm) });
  const embedder = new glue.WasmEmbedder(new Uint8Array(model), new Uint8Array(tokenizer), new TextDecoder().decode(config));
  const ours = { readyMs: now() - t0, threads: 1 };
  const ids = {};
  for (const [label, text] of Object.entries(texts)) {
    ids[label] = Array.from(embedder.tokenIds(text));
    embedder.embed(text);
    const t = [];
    for (let i = 0; i < (label.startsWith("256") ? Math.ceil(runs / 2) : runs); i++) { const a = now(); embedder.embed(text); t.push(now() - a); }
    ours[label] = stats(t);
  }
  out.midashi = ours;
  const ort = await import("/ort/ort.wasm.min.mjs");
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.wasmPaths = "/ort/";
  ort.env.logLevel = "error";
  const onnx = await fetch("/model-fp32.onnx").then((r) => r.arrayBuffer());
  t0 = now();
  const session = await ort.InferenceSession.create(new Uint8Array(onnx), { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
  const o = { readyMs: now() - t0, threads };
  for (const [label, text] of Object.entries(texts)) {
    const n = ids[label].length;
    const i64 = (f) => new ort.Tensor("int64", BigInt64Array.from({ length: n }, (_, i) => BigInt(f(i))), [1, n]);
    const feeds = () => ({ input_ids: i64((i) => ids[label][i]), attention_mask: i64(() => 1), token_type_ids: i64(() => 0) });
    const encode = async () => pool((await session.run(feeds())).last_hidden_state.data, n, 384);
    await encode();
    const t = [];
    for (let i = 0; i < (label.startsWith("256") ? Math.ceil(runs / 2) : runs); i++) { const a = now(); await encode(); t.push(now() - a); }
    o[label] = stats(t);
  }
  out.ort = o;
  return out;
};
window.ready = true;
</script>`;

/**
 * Runs the page at 1 thread and at `cores` threads. `files`: the semantic module's glue and
 * wasm, the encoder file, tokenizer, config, the fp32 ONNX and onnxruntime-web's dist folder.
 */
export async function encodeInChromium({ embedDir, encoderFile, modelDir, ortDir, texts, runs, cores }) {
  const files = {
    "/": null,
    "/embed.js": path.join(embedDir, "midashi_wasm_embed.js"),
    "/embed.wasm": path.join(embedDir, "midashi_wasm_embed_bg.wasm"),
    "/model.bin": encoderFile,
    "/tokenizer.json": path.join(modelDir, "tokenizer.json"),
    "/config.json": path.join(modelDir, "midashi-model.json"),
    "/model-fp32.onnx": path.join(modelDir, "model-fp32.onnx"),
  };
  for (const f of ["ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm"]) files[`/ort/${f}`] = path.join(ortDir, f);
  const pageFile = path.join((await import("node:os")).tmpdir(), `midashi-encode-${process.pid}.html`);
  (await import("node:fs")).writeFileSync(pageFile, PAGE);
  files["/"] = pageFile;
  const server = await isolatedServer(files);
  const browser = await launch();
  const results = {};
  try {
    for (const threads of [...new Set([1, cores])]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${server.address().port}/`);
      await page.waitForFunction(() => window.ready === true);
      const r = await page.evaluate((a) => window.run(a), { texts, runs, threads });
      if (threads === 1) results[`midashi (wasm, simd128), Chromium`] = r.midashi;
      results[`onnxruntime-web 1.30.0 (wasm, ${threads} thread${threads > 1 ? "s" : ""}), fp32, Chromium${r.isolated ? ", cross-origin isolated" : ""}`] = r.ort;
      await context.close();
    }
  } finally {
    await browser.close();
    server.close();
    (await import("node:fs")).rmSync(pageFile, { force: true });
  }
  return results;
}
