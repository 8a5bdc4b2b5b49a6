// What a visitor's question costs with each semantic leg, side by side (#21 item 3, #69 item 5):
// the index of a docs folder built with `--semantic static` (the default: a table distilled
// from the site, embedded by look-up in the keyword module) and with `--semantic deep` (the
// model's encoder); the files a first question fetches with each (raw, gzip -9, brotli -q 11,
// as bench/lib/sizes.mjs measures every file); and, for a corpus with a question set
// (bench/questions/<corpus>), hybrid nDCG@10 and the query encoding time of each leg beside
// keyword alone (`build-index eval`).
//
//   node bench/semantic-bytes.mjs [--corpus rust-book|<name under ../shared/corpora>|<folder>]
//                                 [--leg static|deep] [--slug <style>] [--no-record]
//
// Writes bench/results/<date>-semantic-<corpus>.{json,md} unless --no-record or --leg (one
// leg is not a comparison); BENCHMARKS.md and README's cost table read the JSON.
// - static: the table, the vectors, the tree (and an HNSW graph, which moves a page to the
//   full engine). The keyword module carries the leg's code for every visitor (+8.5 KB
//   brotli, web/wasm-modules.json), not counted here.
// - deep: the model, tokenizer and model configuration, the vectors, tree and graph, the
//   semantic module with its glue and worker, and the full engine the page moves to.
// - onnxruntime-web (beside deep, not a build): what a page would fetch to embed the question
//   with onnxruntime-web instead — its wasm build (ort.wasm.min.mjs and the SIMD module), the
//   model's ONNX file as build-index reads it (weight-only int8), its full tokenizer.json, and
//   the same vectors and tree. A JS WordPiece/Unigram tokenizer would come on top (not counted).
//   Same model and vectors as deep, so the same ranking; its encoding time is bench:embed's.
//
// Needs a release build-index (or $MIDASHI_BUILD_INDEX), the model, and for `deep` the built
// semantic module (scripts/build-wasm-embed.sh release). The builds share the default
// embedding cache, so the second leg and the evaluations reuse the first's encoder pass.
// Nothing here asserts a size.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { CORPORA, corpusDir, ROOT } from "./lib/data.mjs";
import { sizesOf } from "./lib/sizes.mjs";
import { buildIndexBin, machine } from "./lib/tools.mjs";

const { values: args } = parseArgs({
  options: {
    corpus: { type: "string", default: "rust-book" },
    leg: { type: "string" },
    slug: { type: "string" },
    "no-record": { type: "boolean", default: false },
  },
});
const docs = args.corpus.includes(path.sep) ? path.resolve(args.corpus) : corpusDir(args.corpus);
const name = path.basename(docs);
const slug = args.slug ?? CORPORA.find((c) => c.name === name)?.slug ?? "github";
const legs = args.leg ? [args.leg] : ["static", "deep"];
const ORT_RUNTIME = ["ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm"].map((f) => path.join(ROOT, "node_modules/onnxruntime-web/dist", f));
const INDEX_FILES = { static: /^(table|vectors|tree|ann)\.[0-9a-f]{16}\./, deep: /^(model|tokenizer|model-config|vectors|tree|ann)\.[0-9a-f]{16}\./ };
const CODE = { static: [], deep: ["embed/midashi_wasm_embed_bg.wasm", "embed/midashi_wasm_embed.js", "bundle/embed-worker.js", "wasm/midashi_wasm_bg.wasm", "wasm/midashi_wasm.js"] };
const QUESTIONS = path.join(ROOT, "bench/questions", name);

const mb = (n) => (n / 1e6).toFixed(3);

/** `build-index eval` of the question set in `mode` (with `leg` for hybrid): its JSON. */
function evaluate(mode, leg) {
  const extra = leg ? ["--semantic", leg] : [];
  const out = execFileSync(buildIndexBin(), ["eval", QUESTIONS, "--docs", docs, "--slug", slug, "--mode", mode, "--json", ...extra], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 << 20 });
  const v = JSON.parse(out);
  return { ndcg10: v["ndcg@10"], top1: v.top1, queryEncodeMsP50: v.query_encode_ms_p50 };
}

const result = { date: new Date().toISOString().slice(0, 10), corpus: name, slug, machine: machine(), legs: {} };
result.binary = path.relative(ROOT, buildIndexBin());
const m = result.machine;
const lines = [
  `# What a question costs by meaning: ${name} (${result.date})`,
  "",
  `Command: \`node bench/semantic-bytes.mjs --corpus ${args.corpus.includes(path.sep) ? path.relative(ROOT, docs) || "." : args.corpus}\` (build-index: \`${result.binary}\`). Machine: ${m.cpus} cores (${m.model}), ${m.memGiB} GiB.`,
  "",
];
for (const leg of legs) {
  if (!INDEX_FILES[leg]) throw new Error(`--leg ${leg}: use static or deep`);
  const out = mkdtempSync(path.join(os.tmpdir(), `midashi-semantic-bytes-${leg}-`));
  try {
    const report = execFileSync(buildIndexBin(), [docs, "--out", out, "--slug", slug, "--semantic", leg], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const summary = report.split("\n").find((l) => /^ {2}(model|table) {5,6}/.test(l));
    const index = readdirSync(out)
      .filter((f) => INDEX_FILES[leg].test(f))
      .map((f) => path.join(out, f));
    if (!index.some((f) => path.basename(f).startsWith("vectors."))) throw new Error(`${docs}: the build made no vectors (no model at hand?)`);
    const files = [...index, ...CODE[leg].map((c) => path.join(ROOT, "web/dist", c))].map((f) => ({ file: path.basename(f), ...sizesOf(readFileSync(f)) }));
    result.legs[leg] = table(`--semantic ${leg}`, summary?.trim(), files);
    if (leg === "deep") {
      // The model folder the build embedded with, by the name its shipped configuration records.
      const config = index.find((f) => path.basename(f).startsWith("model-config."));
      const model = path.join(ROOT, "models", JSON.parse(readFileSync(config, "utf8")).name);
      const ort = [...index.filter((f) => /^(vectors|tree|ann)\./.test(path.basename(f))), path.join(model, "model.onnx"), path.join(model, "tokenizer.json"), ...ORT_RUNTIME];
      const ortLeg = table("onnxruntime-web (the same model and vectors)", `onnxruntime-web ${ortVersion()}, wasm backend; ${path.relative(ROOT, model)}/model.onnx as build-index reads it`, ort.map((f) => ({ file: path.basename(f), ...sizesOf(readFileSync(f)) })));
      result.legs["onnxruntime-web"] = { ...ortLeg, model: path.basename(model) };
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
/** Records a leg's files as a table under `title`; returns the leg's entry. */
function table(title, summary, files) {
  const sum = (k) => files.reduce((a, r) => a + r[k], 0);
  lines.push(`## ${title}`, "");
  if (summary) lines.push(summary, "");
  lines.push("| file | raw MB | gzip MB | brotli MB |", "|---|---:|---:|---:|");
  for (const r of files) lines.push(`| ${r.file} | ${mb(r.raw)} | ${mb(r.gzip)} | ${mb(r.brotli)} |`);
  lines.push(`| **total** | ${mb(sum("raw"))} | ${mb(sum("gzip"))} | **${mb(sum("brotli"))}** |`, "");
  return { files, total: { raw: sum("raw"), gzip: sum("gzip"), brotli: sum("brotli") } };
}

/** The installed onnxruntime-web's version. */
function ortVersion() {
  return JSON.parse(readFileSync(path.join(ROOT, "node_modules/onnxruntime-web/package.json"), "utf8")).version;
}

/** onnxruntime-web's query encoding of all-MiniLM-L6-v2 in the newest `npm run bench:embed`
 * record (int8 weights, one thread, the shortest query length measured), or `undefined`. */
function ortEncodeMs() {
  const dir = path.join(ROOT, "bench/results");
  for (const f of readdirSync(dir).filter((f) => /-embed[-a-z]*\.json$/.test(f)).sort().reverse()) {
    const systems = JSON.parse(readFileSync(path.join(dir, f), "utf8")).systems ?? {};
    const key = Object.keys(systems).find((k) => k.startsWith("onnxruntime-web") && /1 thread/.test(k) && /int8/.test(k));
    const len = key && Object.keys(systems[key]).find((k) => /^\d+ tokens$/.test(k));
    if (len) return { ms: systems[key][len].median, what: `${key}, ${len}, median (${f})` };
  }
  return undefined;
}

if (existsSync(path.join(QUESTIONS, "queries.jsonl"))) {
  result.quality = { questions: path.relative(ROOT, QUESTIONS), keyword: evaluate("keyword") };
  for (const leg of legs) result.quality[leg] = evaluate("hybrid", leg);
  const q = result.quality;
  lines.push(`## Quality (\`build-index eval ${q.questions} --docs … --mode hybrid --semantic <leg>\`)`, "");
  lines.push("| leg | hybrid nDCG@10 | top-1 | query encoding p50 ms |", "|---|---:|---:|---:|");
  lines.push(`| keyword alone | ${q.keyword.ndcg10.toFixed(4)} | ${q.keyword.top1.toFixed(3)} | – |`);
  for (const leg of legs) lines.push(`| ${leg} | ${q[leg].ndcg10.toFixed(4)} | ${q[leg].top1.toFixed(3)} | ${q[leg].queryEncodeMsP50?.toFixed(2) ?? "–"} |`);
  if (q.deep && result.legs["onnxruntime-web"]) {
    // bench:embed times the default model only.
    const ort = result.legs["onnxruntime-web"].model === "all-MiniLM-L6-v2" ? ortEncodeMs() : undefined;
    q["onnxruntime-web"] = { ...q.deep, queryEncodeMsP50: ort?.ms, queryEncodeSource: ort?.what };
    lines.push(`| onnxruntime-web | ${q.deep.ndcg10.toFixed(4)} (deep's) | ${q.deep.top1.toFixed(3)} | ${ort ? `${ort.ms.toFixed(2)}†` : "–"} |`);
    if (ort) lines.push("", `† ${ort.what}: Node, not this run.`);
  }
  lines.push("");
}
const text = lines.join("\n");
console.log(text);
if (!args["no-record"] && !args.leg) {
  const base = path.join(ROOT, "bench/results", `${result.date}-semantic-${name}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`${base}.md`, `${text}\n`);
  console.error(`recorded ${path.relative(ROOT, base)}.{json,md}`);
}
