// Quality, query latency, cold start and index size on the BEIR sets: every system gets the
// same documents and the same queries; rankings are scored by the one metrics module.

import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { NODE_SYSTEMS } from "../systems/index.mjs";
import { buildBundle, bundleFiles, fragmentIds, remove as removePagefind, searchInPage } from "../systems/pagefind.mjs";
import { launch, serve } from "./browser.mjs";
import { ROOT } from "./data.mjs";
import { latencySummary, meanScores, median, timedRuns } from "./metrics.mjs";
import { measureSemantic } from "./semantic.mjs";
import { sizesOfFiles } from "./sizes.mjs";
import { buildIndexBin } from "./tools.mjs";

const execFileAsync = promisify(execFile);
const COLD_RUNS = 3;
const WARMUP = 10;

const log = (...a) => console.error("[quality]", ...a);

/** Cold start of a Node system: `COLD_RUNS` fresh processes, the median. */
async function coldStart(key, dir, lang, query) {
  const runs = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const { stdout } = await execFileAsync(process.execPath, [path.join(ROOT, "bench/cold-start.mjs"), key, dir, lang, query], { cwd: ROOT, timeout: 120_000, maxBuffer: 16 << 20 });
    runs.push(JSON.parse(stdout.trim().split("\n").pop()).ms);
  }
  return { ms: median(runs), runs };
}

/** Runs `queries` through a loaded Node system: rankings and per-query latency (after a warm-up). */
function runQueries(sys, engine, queries, lang) {
  const prepare = sys.prepare && ((q) => sys.prepare(engine, q.text, 10, lang));
  return timedRuns(queries, (q) => sys.search(engine, q.text, 10, lang), WARMUP, prepare);
}

/** One Node system on one set. */
async function nodeSystem(key, set, queries, lang, work) {
  const sys = NODE_SYSTEMS[key];
  const t = performance.now();
  const engine = await sys.build(set.docs, lang);
  const buildMs = performance.now() - t;
  const { runs, ms, firstMs } = await runQueries(sys, engine, queries, lang);
  const files = await sys.serialize(engine);
  const dir = path.join(work, `${key}-${set.name}`);
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f.name)), { recursive: true });
    writeFileSync(path.join(dir, f.name), f.bytes);
  }
  sys.close?.(engine);
  const cold = await coldStart(key, dir, lang, queries[0].text);
  return {
    system: sys.name,
    key,
    set: set.name,
    ...meanScores(runs, set.qrels),
    latencyMs: latencySummary(ms),
    firstRunMs: firstMs.length ? latencySummary(firstMs) : undefined,
    coldStartMs: cold.ms,
    coldStartRunsMs: cold.runs,
    buildInProcessMs: buildMs,
    index: sizesOfFiles(files),
    where: "node",
  };
}

/** Pagefind on one set: built with its Node API, searched by pagefind.js in Chromium. */
async function pagefindSystem(set, queries, lang, browser) {
  const t = performance.now();
  const dir = await buildBundle(set.docs, lang);
  const buildMs = performance.now() - t;
  writeFileSync(path.join(dir, "index.html"), `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>bench</title></head><body></body></html>`);
  const ids = fragmentIds(dir);
  const server = await serve(dir);
  try {
    // Cold start: a fresh page (the browser cache is per context; each page here loads anew
    // because the server answers no-cache) to the first result, measured in the page.
    const colds = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(`${server.url}/index.html`);
      const ms = await page.evaluate(async (q) => {
        const t = performance.now();
        const pf = await import("/pagefind/pagefind.js");
        await pf.init();
        await pf.search(q);
        return performance.now() - t;
      }, queries[0].text);
      colds.push(ms);
      await ctx.close();
    }
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${server.url}/index.html`);
    await searchInPage(page, queries.slice(0, WARMUP).map((q) => q.text));
    const res = await searchInPage(page, queries.map((q) => q.text));
    await ctx.close();
    const runs = queries.map((q, i) => ({ qid: q.id, ranked: res[i].ids.map((h) => ids.get(h)) }));
    return {
      system: "Pagefind",
      key: "pagefind",
      set: set.name,
      ...meanScores(runs, set.qrels),
      latencyMs: latencySummary(res.map((r) => r.ms)),
      coldStartMs: median(colds),
      coldStartRunsMs: colds,
      buildInProcessMs: buildMs,
      index: sizesOfFiles(bundleFiles(dir).filter((f) => !/\.js$|\.css$|^wasm\./.test(f.name))),
      where: "chromium",
    };
  } finally {
    await server.close();
    removePagefind(dir);
  }
}

/**
 * bm25s as plain BM25 on one set (bench/lib/bm25s_runs.py: k1 1.5, b 0.75; English with its
 * stemmer and stopwords, other languages by Midashi's tokenisation): the baseline keyword
 * ranking is measured against (issue #68). Rankings only: it runs in Python, so no latency.
 */
function bm25sSystem(set, queries, work) {
  const ids = path.join(work, `bm25s-${set.name}-queries.json`);
  writeFileSync(ids, JSON.stringify(queries.map((q) => q.id)));
  const out = execFileSync("python3", [path.join(ROOT, "bench/lib/bm25s_runs.py"), set.dir, set.lang, ids], { cwd: ROOT, encoding: "utf8", maxBuffer: 256 << 20 });
  const ranked = JSON.parse(out);
  const runs = queries.map((q) => ({ qid: q.id, ranked: ranked[q.id] ?? [] }));
  return {
    system: "bm25s (plain BM25)",
    key: "bm25s",
    set: set.name,
    ...meanScores(runs, set.qrels),
    latencyMs: { p50: null, p95: null, p99: null },
    where: "python",
  };
}

/** Midashi's semantic and hybrid legs, native (`build-index eval --mode`), when a model is there. */
function midashiNative(set, mode) {
  const model = path.join(ROOT, "models/all-MiniLM-L6-v2");
  if (!existsSync(model)) return { system: `Midashi ${mode} (native)`, set: set.name, skipped: "no model at models/all-MiniLM-L6-v2 (scripts/fetch-model.sh)" };
  const out = execFileSync(buildIndexBin(), ["eval", set.dir, "--mode", mode, "--model", model, "--json"], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20 });
  const v = JSON.parse(out.trim().split("\n").pop());
  return {
    system: `Midashi ${mode} (native)`,
    key: `midashi-${mode}`,
    set: set.name,
    queries: v.queries,
    ndcg10: v["ndcg@10"],
    recall10: v["recall@10"],
    mrr10: v["mrr@10"],
    latencyMs: { ...v.latency_ms, encodeP50: v.query_encode_ms_p50 },
    where: "native",
  };
}

/**
 * Every system on every set. `queryLimit(set)` gives how many queries to use (all, or a spread
 * sample with --quick); `only` restricts the systems.
 */
export async function measureQuality(sets, { queryLimit, only, spread, semantic }) {
  const work = mkdtempSync(path.join(os.tmpdir(), "bench-indexes-"));
  const rows = [];
  const withPagefind = !only || only.includes("pagefind");
  for (const set of sets) {
    const queries = spread(set.queries, queryLimit(set));
    for (const key of Object.keys(NODE_SYSTEMS)) {
      if (only && !only.includes(key)) continue;
      log(set.name, key, `${queries.length} queries`);
      rows.push(await nodeSystem(key, set, queries, set.lang, work));
    }
    if (!only || only.includes("bm25s")) {
      log(set.name, "bm25s", `${queries.length} queries`);
      rows.push(bm25sSystem(set, queries, work));
    }
    if (withPagefind) {
      log(set.name, "pagefind", `${queries.length} queries`);
      // A browser per set, launched when needed: one left idle through the Node systems'
      // minutes of work has been found closed under it.
      const browser = await launch();
      try {
        rows.push(await pagefindSystem(set, queries, set.lang, browser));
      } finally {
        await browser.close().catch(() => undefined);
      }
    }
    if (semantic) {
      rows.push(...(await measureSemantic(set, queries)));
      for (const mode of ["semantic", "hybrid"]) rows.push(midashiNative(set, mode));
    }
  }
  return rows;
}
