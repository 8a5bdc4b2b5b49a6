// Keyword query speed on a large docs corpus (issue #24): `npm run bench:speed`.
//
//   node bench/keyword-speed.mjs [--corpus mix|scifact|jsquad-valid|<name under ../shared/corpora>|<folder>] [--queries N]
//
// scifact, jsquad-valid: the evaluation sets of `npm run bench` (../shared/eval), indexed as
// bench/systems/midashi.mjs and flexsearch.mjs index them (one record per document, their
// settings per language) and asked their judged queries whole, ungrouped, as there — so that
// the Chromium figures of those sets sit beside the Node ones (#24). No typing rows for them.
//
// Default corpus: the 141k-section mix of docs/large-sites.md (powershell-docs twice, the
// Rust book, Vue docs en and ja in one folder). Midashi indexes it as `build-index` does by
// default (sharded, keyword only) and is asked through its JS API in Node (the wasm engine);
// FlexSearch indexes the very same sections — taken from Midashi's own sectioner through the
// JS API, as bench/multilingual/sections.mjs does — as `{ heading path, own text }` records
// with the settings of bench/systems/flexsearch.mjs. Queries: N headings of the corpus spread
// over its files (bench/lib/corpus-queries.mjs), asked whole, and typed a key at a time
// (search as you type: every prefix of the query, `prefix: true`, as the widget asks).
// Midashi's files are read before each timed query (its first run, which reads them, is
// reported apart), so both engines answer from memory. The same three lists are then asked
// in headless Chromium (the page imports the package's dist/index.js: the engine in its Web
// Worker, the index over HTTP from 127.0.0.1; FlexSearch bundled into the page with the same
// records) — skipped with --no-browser. Prints a table and writes
// bench/results/<date>-speed-<corpus>.{json,md}. Nothing here asserts a time.

import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { headingQueries, markdownFiles } from "./lib/corpus-queries.mjs";
import { corpusDir, EVAL_SETS, loadEvalSet, ROOT, spread } from "./lib/data.mjs";
import flexSystem from "./systems/flexsearch.mjs";
import { buildRecordsIndex } from "./systems/midashi.mjs";
import { latencySummary, timedRuns } from "./lib/metrics.mjs";
import { buildIndexBin } from "./lib/tools.mjs";

const { values: args } = parseArgs({
  options: {
    corpus: { type: "string", default: "mix" },
    queries: { type: "string", default: "200" },
    out: { type: "string", default: path.join(ROOT, "bench/results") },
    "no-browser": { type: "boolean", default: false },
  },
});
const log = (...a) => console.error("[speed]", ...a);
const work = mkdtempSync(path.join(os.tmpdir(), "midashi-speed-"));

/** The corpus folder: the mix assembled under `work`, a shared corpus, or a path. */
function corpusFolder() {
  if (args.corpus !== "mix") return args.corpus.includes(path.sep) ? path.resolve(args.corpus) : corpusDir(args.corpus);
  const dir = path.join(work, "mix");
  for (const [name, as] of [["powershell-docs", "ps"], ["powershell-docs", "ps-archive"], ["rust-book", "rust-book"], ["vue-docs-en", "vue-en"], ["vue-docs-ja", "vue-ja"]]) {
    cpSync(corpusDir(name), path.join(dir, as), { recursive: true });
  }
  return dir;
}

// An evaluation set of `npm run bench` (BEIR: one record per document), or a docs folder.
const evalSet = EVAL_SETS.find((e) => e.name === args.corpus);
const lang = evalSet?.lang ?? "en";
const { Midashi } = await import(pathToFileURL(path.join(ROOT, "web/dist/index.js")).href);
const index = path.join(work, "index");
let docs;
let records = [];
let queries;
if (evalSet) {
  const set = loadEvalSet(evalSet.name);
  docs = set.dir;
  log(`building Midashi's index of ${set.docs.length} documents (as npm run bench does)`);
  buildRecordsIndex(set.docs, index);
  records = set.docs.map((d) => ({ id: d.id, title: d.title, text: d.text }));
  queries = spread(set.queries, Number(args.queries) || set.queries.length).map((q) => q.text);
} else {
  docs = corpusFolder();
  const bin = buildIndexBin();
  log("building Midashi's index (build-index defaults, keyword only)");
  execFileSync(bin, [docs, "--out", index, "--quiet", "--keyword-only"], { stdio: ["ignore", "ignore", "inherit"] });

  log("taking the sections from Midashi's sectioner for FlexSearch");
  const single = path.join(work, "single");
  execFileSync(bin, [docs, "--out", single, "--quiet", "--keyword-only", "--layout", "single"], { stdio: ["ignore", "ignore", "inherit"] });
  const whole = await Midashi.load(single);
  for (const p of markdownFiles(docs)) {
    const d = await whole.getDocument(p);
    if (!d) continue;
    const lines = d.source.split("\n");
    d.sections.forEach((s, i) => {
      // Own text: from the heading to the next section's heading.
      const end = i + 1 < d.sections.length ? d.sections[i + 1].start_line - 1 : lines.length;
      records.push({ id: `${p}#${s.anchor ?? ""}`, title: s.heading_path.join(" > "), text: lines.slice(s.start_line - 1, end).join("\n") });
    });
  }
  whole.close();
  queries = headingQueries(docs, Number(args.queries));
}
const idx = await Midashi.load(index);
log(`${records.length} ${evalSet ? "documents" : "sections"}`);
// FlexSearch as bench/systems/flexsearch.mjs sets it up for the language.
const flex = flexSystem.build(records, lang);

/** Every prefix a reader types on the way to `q`, from its second character. */
const keystrokes = (q) => Array.from({ length: Math.max(0, q.length - 1) }, (_, i) => q.slice(0, i + 2)).filter((p) => !p.endsWith(" "));

/** p50 / p95 / p99 of `ask` over `list` (metrics.timedRuns: 10 warm-ups; `prepare` runs first, timed apart). */
async function time(list, ask, prepare) {
  const qs = list.map((text, i) => ({ id: String(i), text }));
  const { ms, firstMs } = await timedRuns(qs, (q) => ask(q.text), 10, prepare && ((q) => prepare(q.text)));
  return { latencyMs: latencySummary(ms), firstRunMs: firstMs.length ? latencySummary(firstMs) : undefined, n: list.length };
}

// An evaluation set is asked as `npm run bench` asks it (bench/systems/midashi.mjs):
// ungrouped, one record per document.
const base = evalSet ? { limit: 10, group: false, supersede: false, cache: false } : { limit: 10, supersede: false, cache: false };
const widget = { ...base, prefix: false }; // results as the widget shows them (grouped, excerpts)
const ids = { ...widget, excerpts: false, previewLines: 0 };
// What <midashi-search> itself sends on each keystroke (element.ts pageOptions): five results
// with three-line previews, the page's language first, facet counts when they cost nothing
// (the rest are asked once typing pauses, not timed here).
const asShipped = { limit: 5, previewLines: 3, preferLang: "en", facetsIfRanked: true, supersede: false, cache: false };
const typing = evalSet ? [] : queries.flatMap(keystrokes);
const rows = [];
const midashi = (name, options, list) => ({ name, run: () => time(list, (q) => idx.search(q, options), (q) => idx.search(q, options)) });
const flexRow = (name, list) => ({ name, run: () => time(list, (q) => flexSystem.search(flex, q, 10)) });
for (const r of [
  midashi(evalSet ? "Midashi, results with excerpts" : "Midashi, results as the widget shows them", widget, queries),
  midashi("Midashi, top 10 only (excerpts: false)", ids, queries),
  flexRow("FlexSearch", queries),
  ...(typing.length
    ? [
        midashi("Midashi, search as you type (prefix: true, every keystroke)", { ...base }, typing),
        midashi("Midashi, every keystroke with the widget's own options", asShipped, typing),
        flexRow("FlexSearch, search as you type (every keystroke)", typing),
      ]
    : []),
]) {
  log(r.name);
  rows.push({ system: r.name, ...(await r.run()) });
}
idx.close();

if (!args["no-browser"]) {
  log("Chromium: the same lists in a page");
  for (const r of await inChromium()) rows.push(r);
}

/**
 * The lists asked in headless Chromium: `search()` of the package as a page calls it (engine
 * in its Web Worker, files over HTTP), FlexSearch on the page's thread with the same records.
 * Timed in the page with performance.now(), as in Node (each Midashi query once untimed first).
 */
async function inChromium() {
  const { launch, serve } = await import("./lib/browser.mjs");
  const { bundleBytes } = await import("./lib/bundle.mjs");
  const site = path.join(work, "site");
  const embed = path.join(ROOT, "web/dist/embed");
  cpSync(path.join(ROOT, "web/dist"), path.join(site, "dist"), { recursive: true, filter: (f) => f !== embed && !f.startsWith(embed + path.sep) });
  cpSync(index, path.join(site, "index"), { recursive: true });
  // The page runs bench/systems/flexsearch.mjs itself, bundled: the same settings as in Node.
  writeFileSync(path.join(site, "flex.js"), await bundleBytes(`export { default } from "./bench/systems/flexsearch.mjs";`));
  writeFileSync(path.join(site, "records.json"), JSON.stringify(records));
  writeFileSync(path.join(site, "lists.json"), JSON.stringify({ queries, typing }));
  writeFileSync(path.join(site, "index.html"), "<!doctype html><meta charset=utf-8><title>speed</title>");
  // The page times with the same code as the Node rows (metrics.mjs imports nothing).
  cpSync(path.join(ROOT, "bench/lib/metrics.mjs"), path.join(site, "metrics.mjs"));
  // Cross-origin isolated, so that the page's clock has microseconds for both engines
  // (without it Chromium's performance.now() steps by 0.1 ms, coarser than a p50 here).
  const server = await serve(site, { headers: { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" } });
  const browser = await launch();
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(0);
    await page.goto(`${server.url}/index.html`);
    const out = await page.evaluate(
      async ({ widget, ids, base, asShipped, lang, beir }) => {
        const { Midashi } = await import("/dist/index.js");
        const { default: flexSystem } = await import("/flex.js");
        const { queries, typing } = await (await fetch("/lists.json")).json();
        const records = await (await fetch("/records.json")).json();
        const url = new URL("/index/", location.href).href;
        const idx = await Midashi.load(url);
        const flex = flexSystem.build(records, lang);
        const { timedRuns, latencySummary } = await import("/metrics.mjs");
        const time = async (list, ask, prepare) => {
          const qs = list.map((text, i) => ({ id: String(i), text }));
          const { ms, firstMs } = await timedRuns(qs, (q) => ask(q.text), 10, prepare && ((q) => prepare(q.text)));
          return { latencyMs: latencySummary(ms), firstRunMs: firstMs.length ? latencySummary(firstMs) : undefined, n: list.length };
        };
        const m = (index, options) => (q) => index.search(q, options);
        const f = (q) => flexSystem.search(flex, q, 10);
        const rows = [];
        rows.push({ system: `Chromium: Midashi, ${beir ? "results with excerpts" : "results as the widget shows them"}`, ...(await time(queries, m(idx, widget), m(idx, widget))) });
        rows.push({ system: "Chromium: Midashi, top 10 only (excerpts: false)", ...(await time(queries, m(idx, ids), m(idx, ids))) });
        // The engine on the page's thread (`worker: false`), as FlexSearch runs: no message
        // to a worker and back in the time.
        const inPage = await Midashi.load(url, { worker: false });
        rows.push({ system: "Chromium: Midashi on the page's thread (worker: false), top 10 only", ...(await time(queries, m(inPage, ids), m(inPage, ids))) });
        inPage.close();
        rows.push({ system: "Chromium: FlexSearch", ...(await time(queries, f)) });
        if (typing.length) {
          rows.push({ system: "Chromium: Midashi, search as you type (prefix: true, every keystroke)", ...(await time(typing, m(idx, { ...base }), m(idx, { ...base }))) });
          rows.push({ system: "Chromium: Midashi, every keystroke with the widget's own options", ...(await time(typing, m(idx, asShipped), m(idx, asShipped))) });
          rows.push({ system: "Chromium: FlexSearch, search as you type (every keystroke)", ...(await time(typing, f)) });
        }
        idx.close();
        return { rows, ua: `${navigator.userAgent}; crossOriginIsolated: ${crossOriginIsolated}` };
      },
      { widget, ids, base, asShipped, lang, beir: Boolean(evalSet) },
    );
    log(out.ua);
    return out.rows;
  } finally {
    await browser.close();
    await server.close();
  }
}

const ms = (n) => (n == null ? "–" : n < 10 ? n.toFixed(2) : n.toFixed(1));
const date = new Date().toISOString().slice(0, 10);
const name = evalSet ? evalSet.name : path.basename(args.corpus === "mix" ? "mix" : docs);
const md = [
  `# Keyword speed: ${name} (${date})`,
  "",
  `${records.length} ${evalSet ? "documents" : "sections"}, ${queries.length} ${evalSet ? "judged" : "heading"} queries (${typing.length} keystrokes typed). Node ${process.version}, ${os.cpus()[0]?.model}, ${os.cpus().length} cores. \`npm run bench:speed -- --corpus ${args.corpus}\`.`,
  "",
  "| system | queries | p50 / p95 / p99 (ms) | first run p50 / p99 (ms) |",
  "|---|---:|---|---|",
  ...rows.map((r) => `| ${r.system} | ${r.n} | ${ms(r.latencyMs.p50)} / ${ms(r.latencyMs.p95)} / ${ms(r.latencyMs.p99)} | ${r.firstRunMs ? `${ms(r.firstRunMs.p50)} / ${ms(r.firstRunMs.p99)}` : "–"} |`),
  "",
  "First run: Midashi reads the files a query needs (shards, cards) from disk (in Chromium: over HTTP from 127.0.0.1) on its first run; the timed run answers from memory, as FlexSearch's whole index is. Chromium rows: `search()` of the package from a page, its engine in a Web Worker (a message each way counted) unless the row says `worker: false` (the engine on the page's thread, as FlexSearch runs); the page is cross-origin isolated, so its clock has microseconds (it steps by 0.1 ms otherwise).",
  "",
].join("\n");
mkdirSync(args.out, { recursive: true });
const base_ = path.join(args.out, `${date}-speed-${name}`);
writeFileSync(`${base_}.json`, JSON.stringify({ date, corpus: name, sections: records.length, queries: queries.length, keystrokes: typing.length, rows }, null, 2));
writeFileSync(`${base_}.md`, md);
console.log(md);
