// `npm run bench`: Midashi against MiniSearch, FlexSearch, Lunr, Orama and Pagefind on the
// same corpora and queries, in one run. Writes bench/results/<date>.json, <date>.md and two
// SVG plots (quality vs latency, bytes per query). See bench/README.md.
//
//   node bench/run.mjs [--quick] [--only quality,runtime,site,build] [--systems midashi,lunr,...]
//
// Queries: at most --max-queries per set (default 1000, a spread sample: all 300 of SciFact,
// 1,000 of JSQuAD's 4,442; 0 = all), which keeps a full run near 20 minutes on 2 cores.
// --quick: 100 queries per set, 5 site queries, no powershell-docs build.
// --semantic: also Midashi's semantic and hybrid legs, natively (`build-index eval --mode`),
// when models/all-MiniLM-L6-v2 exists. Off by default: the first run embeds each corpus
// (SciFact: ~15 min on 2 cores; cached by build-index afterwards).
// Needs: build-index (cargo build --release -p build-index), web/dist (npm run build:wasm,
// npm run build:web, npm run build:widget), Debian's chromium.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { measureBuilds } from "./lib/build.mjs";
import { CORPORA, corpusDir, EVAL_SETS, loadEvalSet, ROOT, spread } from "./lib/data.mjs";
import { measureQuality } from "./lib/quality.mjs";
import { bytesPerQuerySvg, markdown, qualityVsLatencySvg } from "./lib/report.mjs";
import { measureRuntime } from "./lib/runtime.mjs";
import { SEMANTIC_SETTINGS } from "./lib/semantic.mjs";
import { buildSite, measureSite } from "./lib/site.mjs";
import { buildIndexBin, buildIndexVersion, pagefindBin, versionOf } from "./lib/tools.mjs";
import { NODE_SYSTEMS, pagefind } from "./systems/index.mjs";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    systems: { type: "string" },
    out: { type: "string", default: path.join(ROOT, "bench/results") },
    "build-timeout": { type: "string", default: "120" },
    semantic: { type: "boolean", default: false },
    "embed-large": { type: "boolean", default: false },
    "max-queries": { type: "string", default: "1000" },
  },
});
const parts = args.only ? args.only.split(",") : ["quality", "runtime", "site", "build"];
const only = args.systems ? args.systems.split(",") : undefined;
const started = Date.now();

/** Queries a reader might type on the Rust book's site, in the order typed. */
const SITE_QUERIES = [
  "ownership",
  "borrow checker",
  "lifetimes",
  "trait objects",
  "hash map",
  "error handling with Result",
  "closures capture environment",
  "smart pointers Rc RefCell",
  "async await futures",
  "cargo workspaces",
];

function preflight() {
  const missing = [];
  try {
    buildIndexBin();
  } catch (e) {
    missing.push(e.message);
  }
  for (const f of ["web/dist/index.js", "web/dist/wasm/midashi_wasm_bg.wasm"]) if (!existsSync(path.join(ROOT, f))) missing.push(`${f} (npm run build:wasm && npm run build:web)`);
  if (parts.includes("site") && !existsSync(path.join(ROOT, "web/dist/bundle/midashi.js"))) missing.push("web/dist/bundle/midashi.js (npm run build:widget)");
  if ((parts.includes("site") || parts.includes("quality")) && !existsSync(process.env.CHROMIUM ?? "/usr/bin/chromium")) missing.push("/usr/bin/chromium (apt-get install chromium)");
  if (missing.length) {
    console.error(`bench: missing:\n  ${missing.join("\n  ")}`);
    process.exit(2);
  }
}

function machine() {
  let chromium = null;
  try {
    chromium = execFileSync(process.env.CHROMIUM ?? "/usr/bin/chromium", ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {}
  return {
    cpu: os.cpus()[0]?.model?.trim() ?? "unknown",
    nproc: Number(execFileSync("nproc", { encoding: "utf8" }).trim()),
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    chromium,
  };
}

function versions() {
  const v = { midashi: `${JSON.parse(readFileSync(path.join(ROOT, "web/package.json"), "utf8")).version} (${buildIndexVersion()}, commit ${gitHead()})` };
  for (const pkg of ["minisearch", "flexsearch", "lunr", "lunr-languages", "@orama/orama", "@orama/tokenizers", "@orama/stopwords", "pagefind", "esbuild", "playwright-core"]) v[pkg] = versionOf(pkg);
  v["pagefind binary"] = execFileSync(pagefindBin(), ["--version"], { encoding: "utf8" }).trim();
  return v;
}

function gitHead() {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

preflight();
const result = {
  date: new Date().toISOString().slice(0, 10),
  startedAt: new Date().toISOString(),
  quick: args.quick,
  command: `node bench/run.mjs${process.argv.slice(2).length ? " " + process.argv.slice(2).join(" ") : ""}`,
  machine: machine(),
  versions: versions(),
  settings: {
    ...Object.fromEntries([...Object.values(NODE_SYSTEMS), pagefind].map((s) => [s.name, s.settings])),
    ...(args.semantic ? { "Midashi semantic / hybrid": { en: SEMANTIC_SETTINGS.midashi, ja: "same" }, "Orama semantic / hybrid": { en: SEMANTIC_SETTINGS.orama, ja: "same, Japanese tokenizer on the text side" } } : {}),
  },
};

if (parts.includes("quality")) {
  const sets = EVAL_SETS.map((s) => ({ ...loadEvalSet(s.name), lang: s.lang }));
  result.quality = await measureQuality(sets, { queryLimit: () => (args.quick ? 100 : Number(args["max-queries"])), only, spread, semantic: args.semantic && (!only || only.includes("midashi")) });
}
if (parts.includes("runtime")) {
  console.error("[runtime] bundles");
  result.runtime = await measureRuntime();
}
if (parts.includes("site")) {
  console.error("[site] building rust-book site + Pagefind bundle");
  const dir = await buildSite(corpusDir("rust-book"), "mdbook");
  try {
    const queries = args.quick ? SITE_QUERIES.slice(0, 5) : SITE_QUERIES;
    result.site = { corpus: "rust-book", queries, ...(await measureSite(dir, queries)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (parts.includes("build")) {
  const corpora = args.quick ? CORPORA.filter((c) => c.name !== "powershell-docs") : CORPORA;
  result.build = await measureBuilds(corpora, { timeoutMs: Number(args["build-timeout"]) * 1000, only, semantic: args.semantic, embedLarge: args["embed-large"] });
}
result.elapsedMs = Date.now() - started;

mkdirSync(args.out, { recursive: true });
const base = path.join(args.out, `${result.date}${args.quick ? "-quick" : ""}`);
writeFileSync(`${base}.json`, JSON.stringify(result, null, 2) + "\n");
writeFileSync(`${base}.md`, markdown(result));
if (result.quality) writeFileSync(`${base}-quality-latency.svg`, qualityVsLatencySvg(result.quality));
if (result.site) writeFileSync(`${base}-bytes-per-query.svg`, bytesPerQuerySvg(result.site));
console.log(readFileSync(`${base}.md`, "utf8"));
console.error(`bench: wrote ${path.relative(ROOT, base)}.{json,md,svg} in ${(result.elapsedMs / 60000).toFixed(1)} min`);
