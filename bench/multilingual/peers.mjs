// The Chinese and Korean QA sets of bench/multilingual through every peer, the way
// `npm run bench` runs SciFact and JSQuAD (bench/lib/quality.mjs: same records, same queries,
// one scorer): Midashi (the npm package's wasm engine in Node), MiniSearch, FlexSearch, Lunr,
// Orama and Pagefind (pagefind.js in Chromium), each with its documented setup for the
// language (bench/systems/*: `settings.zh` / `settings.ko`).
//
//   node bench/multilingual/peers.mjs [--max-queries N] [--out bench/results/…md]
//
// Lunr is left out of Chinese: lunr-languages' lunr.zh needs nodejieba, a native module.

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { ROOT, spread } from "../lib/data.mjs";
import { measureQuality } from "../lib/quality.mjs";
import { NODE_SYSTEMS, pagefind } from "../systems/index.mjs";

const { values: args } = parseArgs({
  options: { "max-queries": { type: "string", default: "1000" }, out: { type: "string" } },
});

/** A SQuAD-style file as records, queries and judgments (ids as run.py writes them). */
function squad(name, file, prefix, lang) {
  const data = JSON.parse(gunzipSync(readFileSync(path.join(ROOT, "bench/multilingual/data", file))).toString("utf8")).data;
  const docs = [];
  const queries = [];
  const qrels = new Map();
  data.forEach((article, a) =>
    article.paragraphs.forEach((p, i) => {
      const id = `${prefix}${a}p${i}`;
      docs.push({ id, title: article.title ?? "", text: p.context });
      for (const qa of p.qas) {
        queries.push({ id: String(qa.id), text: qa.question });
        qrels.set(String(qa.id), new Map([[id, 1]]));
      }
    }),
  );
  return { name, lang, docs, queries, qrels };
}

const sets = [
  { set: squad("cmrc2018-dev", "cmrc2018_dev.json.gz", "c", "zh"), skip: ["lunr"] },
  { set: squad("korquad-dev", "KorQuAD_v1.0_dev.json.gz", "k", "ko"), skip: [] },
];
const limit = Number(args["max-queries"]);
const rows = [];
for (const { set, skip } of sets) {
  const only = [...Object.keys(NODE_SYSTEMS), "pagefind"].filter((k) => !skip.includes(k));
  rows.push(...(await measureQuality([set], { queryLimit: () => limit, only, spread, semantic: false })));
}

const names = { ...Object.fromEntries(Object.entries(NODE_SYSTEMS).map(([k, s]) => [k, s.name])), pagefind: pagefind.name ?? "Pagefind" };
const lines = [
  `# Chinese and Korean: Midashi and its peers (${new Date().toISOString().slice(0, 10)})`,
  "",
  `\`node bench/multilingual/peers.mjs --max-queries ${limit}\` (every n-th question when a set has more). Same records (paragraph title + text), same queries, one scorer (bench/lib/metrics.mjs).`,
  "",
  "| set | system | nDCG@10 | Recall@10 | p50 ms | p99 ms | index gzip KB |",
  "|---|---|---:|---:|---:|---:|---:|",
];
for (const r of rows) {
  const gz = r.index?.gzip;
  lines.push(
    `| ${r.set} | ${r.system} | ${r.ndcg10?.toFixed(3) ?? "–"} | ${r.recall10?.toFixed(3) ?? "–"} | ${r.latencyMs?.p50?.toFixed(2) ?? "–"} | ${r.latencyMs?.p99?.toFixed(2) ?? "–"} | ${gz ? (gz / 1024).toFixed(0) : "–"} |`,
  );
}
lines.push("", "Settings:", "");
for (const [key, sys] of Object.entries({ ...NODE_SYSTEMS, pagefind })) {
  lines.push(`- ${names[key] ?? key}: zh — ${sys.settings?.zh ?? "not measured"}; ko — ${sys.settings?.ko ?? "not measured"}`);
}
const text = lines.join("\n") + "\n";
console.log(text);
if (args.out) writeFileSync(args.out, text);
