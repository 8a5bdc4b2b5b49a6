// Requests and bytes a first query makes to an index folder, per query: the JS API in Node
// over HTTP from 127.0.0.1, a fresh index for each query (an empty cache), gzip -9 sizes of
// what it fetched after the entry and directory.
//
//   node bench/first-query-requests.mjs <index folder> <queries.jsonl> [kind] [--limit N]
//
// <queries.jsonl>: a question set's queries (`_id`, `text`, `kind`); `kind` keeps one kind.
// Prints each query's requests by file kind and the medians (bench/results/2026-12-07-cjk-
// requests.md used it on the Japanese Vue docs). It measures; it asserts nothing.

import http from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import zlib from "node:zlib";
import { ROOT } from "./lib/data.mjs";

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { limit: { type: "string", default: "5" } } });
const [dir, queriesFile, kind] = positionals;
if (!queriesFile) {
  console.error("usage: node bench/first-query-requests.mjs <index folder> <queries.jsonl> [kind] [--limit N]");
  process.exit(2);
}
const { Midashi } = await import(pathToFileURL(path.join(ROOT, "web/dist/index.js")).href);
let fetched = [];
const server = http.createServer((req, res) => {
  const name = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/search\//, "");
  const file = path.join(dir, name);
  if (!file.startsWith(path.resolve(dir) + path.sep)) return res.writeHead(403).end();
  try {
    const bytes = readFileSync(file);
    fetched.push([name, zlib.gzipSync(bytes, { level: 9 }).length]);
    res.writeHead(200).end(bytes);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}/search/`;
const queries = readFileSync(queriesFile, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((q) => !kind || q.kind === kind);
const rows = [];
for (const q of queries) {
  fetched = [];
  const idx = await Midashi.load(base);
  const atLoad = fetched.length;
  await idx.search(q.text, { limit: Number(args.limit), mode: "keyword" });
  const after = fetched.slice(atLoad);
  const kinds = {};
  for (const [name] of after) kinds[name.split(".")[0]] = (kinds[name.split(".")[0]] ?? 0) + 1;
  rows.push({ text: q.text, requests: after.length, gzip: after.reduce((a, [, b]) => a + b, 0), kinds });
  idx.close?.();
}
server.close();
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const r of rows.sort((a, b) => a.requests - b.requests)) console.log(`${r.requests}\t${(r.gzip / 1024).toFixed(0)} KB\t${JSON.stringify(r.kinds)}\t${r.text}`);
console.log(`${rows.length} queries: requests after load, median ${median(rows.map((r) => r.requests))}, max ${Math.max(...rows.map((r) => r.requests))}; gzip median ${(median(rows.map((r) => r.gzip)) / 1024).toFixed(1)} KB`);
