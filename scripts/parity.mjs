#!/usr/bin/env node
// Native/wasm parity over every query of the evaluation sets: builds each set's index with
// build-index, runs each query through `build-index search --json --limit 10` and through the
// `midashi` package in Node (with prefix: false, as the CLI), and counts the queries whose
// answers differ in any way (ids, order, scores as f32, any field, total, suggestions).
//
//   node scripts/parity.mjs [--set scifact|jsquad-valid] [--max N] [--jobs N]
//
// Prints the mismatch count (must be 0) and the first mismatches; exits 1 on any mismatch.
// Needs web/dist (npm run build:wasm && npm run build:web).

import { performance } from "node:perf_hooks";
import { buildEvalIndex, cliSearch, compareWithCli, evalQueries, importMidashi, mapLimit } from "../tests/support/indexes.mjs";

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const sets = arg("--set") ? [arg("--set")] : ["scifact", "jsquad-valid"];
const max = Number(arg("--max", "Infinity"));
const jobs = Number(arg("--jobs", "2"));

const { Midashi } = await importMidashi();
let mismatches = 0;
let total = 0;

for (const set of sets) {
  const t0 = performance.now();
  const dir = buildEvalIndex(set);
  const idx = await Midashi.load(dir);
  const queries = evalQueries(set).slice(0, max);
  const bad = [];
  let done = 0;
  await mapLimit(queries, jobs, async (q) => {
    const native = await cliSearch(dir, q.text, 10);
    const js = await idx.search(q.text, { limit: 10, prefix: false, supersede: false, cache: false }).then(
      (value) => ({ ok: true, value }),
      (e) => ({ ok: false, code: e.code, message: e.message }),
    );
    let diffs = [];
    if (native.ok !== js.ok) diffs = [`CLI ${native.ok ? "answered" : `failed: ${native.stderr.trim()}`}, JS ${js.ok ? "answered" : `${js.code}: ${js.message}`}`];
    else if (native.ok) diffs = compareWithCli(js.value, native.value);
    if (diffs.length) bad.push(`${q.id} ${JSON.stringify(q.text)}: ${diffs.join("; ")}`);
    done += 1;
    if (process.stderr.isTTY && done % 100 === 0) process.stderr.write(`\r${set}: ${done}/${queries.length}`);
  });
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
  idx.close();
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(`${set}: ${queries.length} queries, ${bad.length} mismatches (${secs} s)`);
  for (const line of bad.slice(0, 10)) console.log(`  ${line}`);
  mismatches += bad.length;
  total += queries.length;
}

console.log(`mismatches: ${mismatches} of ${total} queries`);
process.exitCode = mismatches === 0 ? 0 : 1;
