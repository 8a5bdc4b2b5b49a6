// Two builds of the JS API and its wasm modules, asked the same queries in one process, one
// query at a time each (the order alternating): `npm run bench:ab -- <distA> <distB>`.
//
//   node bench/modules-ab.mjs <distA> <distB> [--corpus scifact|jsquad-valid] [--queries N]
//                             [--rounds N] [--excerpts]
//
// <dist> is a copy of web/dist (index.js and wasm/) with a build's modules in it, e.g. before
// and after a change: `cp -r web/dist /tmp/before` before rebuilding. Why this and not two
// `bench:speed` runs: on a shared 2-core machine two runs minutes apart differ by 10–30 % for
// both engines alike, more than most changes; queried in turn, a change's effect is the
// median of the per-query ratios B / A, which the load falls on equally. It checks first that
// both builds give the same results (a speed-up that changed an answer is not one).
//
// The index is built as `npm run bench` builds it (bench/systems/midashi.mjs), the options are
// its own: top 10, ungrouped, whole words, `excerpts: false, previewLines: 0` unless
// `--excerpts` (results as the widget shows them). Prints; asserts no time.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadEvalSet } from "./lib/data.mjs";
import { buildRecordsIndex } from "./systems/midashi.mjs";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    corpus: { type: "string", default: "jsquad-valid" },
    queries: { type: "string", default: "300" },
    rounds: { type: "string", default: "5" },
    excerpts: { type: "boolean", default: false },
  },
});
if (positionals.length !== 2) {
  console.error("usage: node bench/modules-ab.mjs <distA> <distB> [--corpus scifact|jsquad-valid] [--queries N] [--rounds N] [--excerpts]");
  process.exit(2);
}
const set = loadEvalSet(args.corpus);
const queries = set.queries.slice(0, Number(args.queries)).map((q) => q.text);
const dir = buildRecordsIndex(set.docs);
const options = { limit: 10, prefix: false, group: false, supersede: false, cache: false, ...(args.excerpts ? {} : { excerpts: false, previewLines: 0 }) };

const builds = [];
for (const dist of positionals) {
  const { Midashi } = await import(pathToFileURL(path.resolve(dist, "index.js")).href);
  builds.push({ dist, index: await Midashi.load(dir), ms: [] });
}
// Reads every file a query needs (the timed runs answer from memory), and the same answers.
for (const q of queries) {
  const [a, b] = await Promise.all(builds.map((x) => x.index.search(q, options)));
  if (JSON.stringify(a.results) !== JSON.stringify(b.results)) throw new Error(`the builds answer ${JSON.stringify(q)} differently`);
}
for (let r = 0; r < Number(args.rounds); r++) {
  for (const [n, q] of queries.entries()) {
    for (const x of (n + r) % 2 ? [...builds].reverse() : builds) {
      const t = performance.now();
      await x.index.search(q, options);
      x.ms.push(performance.now() - t);
    }
  }
}
const at = (sorted, p) => sorted[Math.floor(p * (sorted.length - 1))];
for (const x of builds) {
  const s = [...x.ms].sort((a, b) => a - b);
  console.log(`${x.dist}: p50 / p95 / p99 ${at(s, 0.5).toFixed(3)} / ${at(s, 0.95).toFixed(3)} / ${at(s, 0.99).toFixed(3)} ms`);
}
const ratios = builds[1].ms.map((b, i) => b / builds[0].ms[i]).sort((a, b) => a - b);
console.log(`${args.corpus}, ${args.excerpts ? "with excerpts" : "top 10"}, ${queries.length} queries × ${args.rounds}: B / A per query, median ${at(ratios, 0.5).toFixed(3)} (quartiles ${at(ratios, 0.25).toFixed(3)}–${at(ratios, 0.75).toFixed(3)})`);
for (const x of builds) x.index.close();
