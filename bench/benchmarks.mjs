// Writes BENCHMARKS.md, and the cost table of README.md, from the dated runs in bench/results/:
// the latest run of each kind, so that no figure is copied by hand twice.
//
//   node bench/benchmarks.mjs            write both
//   node bench/benchmarks.mjs --check    exit 1 if either is out of date (for the tests)
//
// Kinds read (each file as the benchmark that wrote it left it):
//   <date>-large-<corpus>.json   `npm run bench:large -- --corpus <corpus>`: bytes a visitor fetches
//   <date>.json                  `npm run bench` (`--only quality`): ranking and latency per system
//   <date>-speed-<set>.json      `npm run bench:speed`: latency at the tail, keystrokes included
//   <date>-aws-docs.json         `npm run bench:aws`: keyword search against plain BM25 on documentation
//   <date>-semantic-<corpus>.json `npm run bench:semantic-bytes -- --corpus <corpus>`: what a question
//                                costs by meaning with each leg, and its quality
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/data.mjs";

const RESULTS = path.join(ROOT, "bench/results");
const check = process.argv.includes("--check");

/** The newest file of each kind: `{ kind → { date, file, data } }`. */
function latestRuns() {
  const latest = new Map();
  for (const file of readdirSync(RESULTS).sort()) {
    const m = /^(\d{4}-\d{2}-\d{2})(?:-(.+))?\.json$/.exec(file);
    if (!m) continue;
    const [, date, rest = "quality"] = m;
    let kind;
    if (rest === "quality") kind = "quality";
    else if (/^large-[a-z0-9-]+$/.test(rest) && !rest.endsWith("-semantic")) kind = rest;
    else if (/^speed-(scifact|jsquad-valid|mix)$/.test(rest)) kind = rest;
    else if (rest === "aws-docs") kind = rest;
    else if (/^semantic-[a-z0-9-]+$/.test(rest)) kind = rest;
    else continue; // variants measured for one change (…-rerun, …-bounded): in their own files
    const prev = latest.get(kind);
    if (!prev || prev.date <= date) latest.set(kind, { date, file, data: JSON.parse(readFileSync(path.join(RESULTS, file), "utf8")) });
  }
  return latest;
}

const kb = (bytes) => `${Math.round(bytes / 1024)} KB`;
const ms = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const range = (xs) => `${kb(Math.min(...xs))}–${kb(Math.max(...xs))}`;

// The sites a visitor meets, smallest first; a name under ../shared/corpora or `docs` (this repository's).
const SITES = [
  ["large-docs", "small: this repository's docs (27 pages)"],
  ["large-rust-book", "mid-sized: the Rust book (112 pages)"],
  ["large-vue-docs-ja", "mid-sized, Japanese: the Vue docs in Japanese (120 pages)"],
  ["large-powershell-docs", "large: PowerShell reference (3,088 pages, 5 versions)"],
  ["large-bigdocs", "very large: every corpus together (6,527 pages)"],
];

/** One row per site: the first query (each query as a visitor's first, empty cache), later ones. */
function costRows(latest) {
  const rows = [];
  for (const [kind, label] of SITES) {
    const run = latest.get(kind);
    const site = run?.data.site;
    if (!site?.cold?.length) continue;
    const first = (who) => site.cold.map((c) => c[who].gzip);
    const later = (who) => site[who].slice(1).map((q) => q.gzip);
    rows.push({
      label,
      date: run.date,
      file: run.file,
      midashiFirst: median(first("midashi")),
      pagefindFirst: median(first("pagefind")),
      midashiLater: median(later("midashi")),
      pagefindLater: median(later("pagefind")),
      firstRange: [range(first("midashi")), range(first("pagefind"))],
      // The static leg's files a settled question adds (its code is in the keyword module).
      meaning: latest.get(`semantic-${kind.slice("large-".length)}`)?.data.legs.static?.total.gzip,
    });
  }
  return rows;
}

function costTable(rows) {
  const lines = [
    "| site | first query, Midashi | first query, Pagefind | each later query, Midashi | Pagefind | a question by meaning adds, Midashi | measured |",
    "|---|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.label} | ${kb(r.midashiFirst)} | ${kb(r.pagefindFirst)} | ${kb(r.midashiLater)} | ${kb(r.pagefindLater)} | ${r.meaning ? kb(r.meaning) : "–"} | ${r.date} |`,
    );
  }
  lines.push(
    "",
    "Gzip as served, code included, medians over ten of the site's own headings typed as a visitor's",
    "first query (empty cache) and as later ones, in headless Chromium; `npm run bench:large --",
    "--corpus <name|folder>` prints them, Pagefind measured on the same HTML in the same run.",
    "Pagefind has no search by meaning. What a question by meaning adds (the site's static table,",
    "its vectors and tree; the keyword module already holds the code) is `npm run",
    "bench:semantic-bytes -- --corpus <name|folder>`'s, with a build of the same docs.",
  );
  return lines.join("\n");
}

function qualityTable(run) {
  const rows = run.data.quality ?? [];
  const sets = [...new Set(rows.map((r) => r.set))];
  const lines = [
    `Keyword ranking and latency in Node, from \`${run.data.command ?? "node bench/run.mjs"}\` (${run.date}, ${run.data.machine?.cpu ?? "?"}, ${run.data.machine?.nproc ?? "?"} cores; \`bench/results/${run.file}\`).`,
    "",
    "| set | system | nDCG@10 | Recall@10 | p50 ms | p99 ms |",
    "|---|---|---:|---:|---:|---:|",
  ];
  for (const set of sets) {
    for (const r of rows.filter((x) => x.set === set).sort((a, b) => b.ndcg10 - a.ndcg10)) {
      lines.push(
        `| ${set} | ${r.system} | ${r.ndcg10.toFixed(3)} | ${r.recall10?.toFixed(3) ?? "–"} | ${r.latencyMs?.p50 != null ? ms(r.latencyMs.p50) : "–"} | ${r.latencyMs?.p99 != null ? ms(r.latencyMs.p99) : "–"} |`,
      );
    }
  }
  return lines.join("\n");
}

function speedTable(run) {
  const d = run.data;
  const lines = [
    `${d.corpus}${d.sections ? ` (${d.sections.toLocaleString("en")} sections)` : ""}: ${d.queries ?? "?"} queries${d.keystrokes ? `, ${d.keystrokes} keystrokes` : ""} (${run.date}; \`bench/results/${run.file}\`).`,
    "",
    "| system | p50 ms | p99 ms |",
    "|---|---:|---:|",
  ];
  for (const r of d.rows ?? []) {
    if (!r.latencyMs) continue;
    lines.push(`| ${r.system} | ${ms(r.latencyMs.p50)} | ${ms(r.latencyMs.p99)} |`);
  }
  return lines.join("\n");
}

function bm25Table(run) {
  const d = run.data;
  const lines = [
    `The AWS documentation QA set (bench/aws-docs: 26,624 pages, 100 questions people asked), from \`${d.command}\` (${run.date}; \`bench/results/${run.file}\`), beside ${d.baseline} on the same records.`,
    "",
    "| set | records | queries | Midashi nDCG@10 | BM25 nDCG@10 | Δ | Midashi R@10 | BM25 R@10 |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of d.rows) {
    const delta = r.midashi.ndcg10 - r.bm25s.ndcg10;
    lines.push(
      `| ${r.set} | ${r.records.toLocaleString("en")} | ${r.queries} | ${r.midashi.ndcg10.toFixed(3)} | ${r.bm25s.ndcg10.toFixed(3)} | ${delta >= 0 ? "+" : "−"}${Math.abs(delta).toFixed(3)} | ${r.midashi.recall10.toFixed(3)} | ${r.bm25s.recall10.toFixed(3)} |`,
    );
  }
  return lines.join("\n");
}

/** Each site's semantic legs side by side: bytes a question fetches, quality, encoding time. */
function semanticTable(runs) {
  const lines = [
    "| site | leg | a question fetches (gzip) | brotli | hybrid nDCG@10 | keyword alone | query encoding p50 ms | measured |",
    "|---|---|---:|---:|---:|---:|---:|---|",
  ];
  const mbOrKb = (b) => (b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : kb(b));
  for (const run of runs) {
    const d = run.data;
    for (const [leg, label] of [
      ["static", "static table (default)"],
      ["deep", "encoder (`--semantic deep`)"],
      ["onnxruntime-web", "the same model on onnxruntime-web"],
    ]) {
      const l = d.legs[leg];
      if (!l) continue;
      const q = d.quality?.[leg];
      lines.push(
        `| ${d.corpus} | ${label} | ${mbOrKb(l.total.gzip)} | ${mbOrKb(l.total.brotli)} | ${q ? q.ndcg10.toFixed(3) : "–"} | ${d.quality ? d.quality.keyword.ndcg10.toFixed(3) : "–"} | ${q?.queryEncodeMsP50 != null ? ms(q.queryEncodeMsP50) : "–"} | ${run.date} |`,
      );
    }
  }
  lines.push(
    "",
    "The files a visitor's first question by meaning fetches beyond keyword search, gzip -9 and",
    "brotli -q 11: with the static table the table, vectors and tree (the keyword module embeds the",
    "question); with the encoder the model, tokenizer, vectors, the semantic module and the full",
    "engine; with onnxruntime-web its wasm build, the model's int8 ONNX file and full tokenizer, and",
    "the same vectors (a JS tokenizer not counted; its ranking is the encoder's, its encoding time",
    "`npm run bench:embed`'s in Node). Quality from `build-index eval` on the corpus's question set",
    "(bench/questions), encoding natively. Pagefind has no semantic leg: a question costs it what",
    "any query does (\"What a visitor downloads\" above). `npm run bench:semantic-bytes -- --corpus",
    "<name|folder>` prints a site's rows.",
  );
  return lines.join("\n");
}

function benchmarks(latest, rows) {
  const out = [
    "# Benchmarks",
    "",
    "Written by `node bench/benchmarks.mjs` from the latest dated run of each kind in",
    "`bench/results/`; do not edit by hand. Each benchmark measures Midashi and its peers in the",
    "same run on the same machine (2 cores); [bench/README.md](bench/README.md) says how each peer",
    "is configured. Tests never assert a time: these files are where speed and size are checked.",
    "",
    "## What a visitor downloads",
    "",
    costTable(rows),
    "",
    "First queries per site (min–max over the ten):",
    "",
    "| site | Midashi | Pagefind | file |",
    "|---|---|---|---|",
    ...rows.map((r) => `| ${r.label} | ${r.firstRange[0]} | ${r.firstRange[1]} | \`bench/results/${r.file}\` |`),
  ];
  const semantic = [...latest.entries()].filter(([k]) => k.startsWith("semantic-")).map(([, run]) => run);
  if (semantic.length) out.push("", "## What a question by meaning costs", "", semanticTable(semantic));
  const quality = latest.get("quality");
  if (quality) out.push("", "## Ranking", "", qualityTable(quality));
  const aws = latest.get("aws-docs");
  if (aws) out.push("", "## Against plain BM25 on documentation (`npm run bench:aws`)", "", bm25Table(aws));
  const speed = ["speed-mix", "speed-scifact", "speed-jsquad-valid"].filter((k) => latest.has(k));
  if (speed.length) {
    out.push("", "## Latency at the tail (`npm run bench:speed`)", "");
    for (const k of speed) out.push(speedTable(latest.get(k)), "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function withCosts(readme, table) {
  const start = readme.indexOf("<!-- costs:start");
  const end = readme.indexOf("<!-- costs:end -->");
  if (start < 0 || end < start) throw new Error("README.md has no <!-- costs:start … --> … <!-- costs:end --> markers");
  const open = readme.indexOf("-->", start) + 3;
  return `${readme.slice(0, open)}\n${table}\n${readme.slice(end)}`;
}

const latest = latestRuns();
const rows = costRows(latest);
const files = {
  "BENCHMARKS.md": benchmarks(latest, rows),
  "README.md": withCosts(readFileSync(path.join(ROOT, "README.md"), "utf8"), costTable(rows)),
};
let stale = [];
for (const [name, text] of Object.entries(files)) {
  const file = path.join(ROOT, name);
  let old = "";
  try {
    old = readFileSync(file, "utf8");
  } catch {}
  if (old === text) continue;
  if (check) stale.push(name);
  else writeFileSync(file, text);
}
if (stale.length) {
  console.error(`${stale.join(" and ")} out of date with bench/results: run node bench/benchmarks.mjs`);
  process.exit(1);
}
if (!check) console.log(`BENCHMARKS.md and README.md's cost table from ${[...latest.values()].map((r) => r.file).join(", ")}`);
