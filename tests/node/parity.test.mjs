// The browser engine is the native engine: for a sample of real queries (SciFact, English;
// JSQuAD, Japanese) the package returns exactly what `build-index search --json` prints for
// the same index: same hits, same order, same scores (equal as f32), every field equal.
// scripts/parity.mjs runs every query of both sets.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { buildEvalIndex, cliSearch, compareWithCli, evalQueries, importMidashi, mapLimit } from "../support/indexes.mjs";

const SAMPLE = 30;

/** Every n-th query, so the sample spreads over the whole file. */
function sample(queries, n) {
  const step = Math.max(1, Math.floor(queries.length / n));
  return queries.filter((_, i) => i % step === 0).slice(0, n);
}

for (const set of ["scifact", "jsquad-valid"]) {
  describe(`parity with the CLI: ${set}`, () => {
    let Midashi;
    let dir;
    let idx;
    before(async () => {
      ({ Midashi } = await importMidashi());
      dir = buildEvalIndex(set);
      idx = await Midashi.load(dir);
    });
    after(() => idx?.close());

    test(`${SAMPLE} queries: same ids, order, scores and fields`, async () => {
      const queries = sample(evalQueries(set), SAMPLE);
      assert.equal(queries.length, SAMPLE);
      const cli = await mapLimit(queries, 2, (q) => cliSearch(dir, q.text, 10));
      const mismatches = [];
      for (const [i, q] of queries.entries()) {
        // The CLI treats a query as complete (prefix: false); so must we, for parity.
        const js = await idx.search(q.text, { limit: 10, prefix: false, supersede: false, cache: false }).then(
          (value) => ({ ok: true, value }),
          (e) => ({ ok: false, code: e.code }),
        );
        const native = cli[i];
        if (!native.ok || !js.ok) {
          if (native.ok !== js.ok) mismatches.push(`${q.id}: CLI ${native.ok ? "answered" : "failed"}, JS ${js.ok ? "answered" : js.code}`);
          continue;
        }
        assert.ok(js.value.results.length > 0 || native.value.results.length === 0);
        const diffs = compareWithCli(js.value, native.value);
        if (diffs.length) mismatches.push(`${q.id} ${JSON.stringify(q.text)}: ${diffs.join("; ")}`);
      }
      assert.deepEqual(mismatches, []);
    });
  });
}
