// The browser engine is the native engine: for a sample of real queries (SciFact, English;
// JSQuAD, Japanese) the package returns exactly what `build-index search --json` prints for
// the same index: same hits, same order, same scores (equal as f32), every field equal.
// scripts/parity.mjs runs every query of both sets.

import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { buildEvalIndex, buildIndex, cliSearch, compareWithCli, evalQueries, importMidashi, mapLimit, tempDir } from "../support/indexes.mjs";

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

// The browser build lower-cases and normalises with the JS host's toLowerCase/normalize
// (analyzer/host_unicode.rs), natively std and unicode-normalization: queries whose case
// mapping is not ASCII must still find what the CLI finds, scored the same.
describe("parity with the CLI: non-ASCII case and compatibility forms", () => {
  const docs = tempDir("midashi-case-docs-");
  let Midashi;
  let dir;
  let idx;
  before(async () => {
    ({ Midashi } = await importMidashi());
    mkdirSync(path.join(docs, "guide"), { recursive: true });
    const pages = {
      "guide/french.md": "# École normale\n\nL'ÉCOLE et les élèves: Œuvre, ÇA VA.\n\n## Déjà vu\n\nÀ la CAFÉ-THÉÂTRE.\n",
      "guide/greek.md": "# Οδυσσεύς\n\nΟ ΟΔΥΣΣΕΥΣ ΚΑΙ Η ΠΗΝΕΛΟΠΗ. Σίσυφος.\n",
      "guide/turkish.md": "# İstanbul\n\nİSTANBUL ve IĞDIR, ıspanak.\n",
      "guide/german.md": "# Straße\n\nDIE STRASSE, die Straße, ẞ groß.\n",
      "guide/cyrillic.md": "# Москва\n\nМОСКВА и Ёлка, ЁЖИК.\n",
      "guide/fullwidth.md": "# ＶＵＥ３ ＡＰＩ\n\nＣｏｍｐｏｓｉｔｉｏｎ ＡＰＩ and ﬁle ligatures, Ⅻ.\n",
    };
    for (const [p, text] of Object.entries(pages)) writeFileSync(path.join(docs, p), text);
    dir = buildIndex(docs);
    idx = await Midashi.load(dir);
  });
  after(() => {
    idx?.close();
    rmSync(docs, { recursive: true, force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("upper, lower and mixed case, final sigma, dotted İ, ß/ẞ, full-width and ligatures", async () => {
    const queries = ["ÉCOLE", "école", "Œuvre", "ça va", "déjà", "ΟΔΥΣΣΕΥΣ", "οδυσσευς", "Σίσυφος", "İSTANBUL", "istanbul", "IĞDIR", "STRASSE", "straße", "ẞ", "МОСКВА", "ёлка", "ЁЖИК", "ＶＵＥ３", "vue3", "composition", "file", "Ⅻ"];
    const mismatches = [];
    let found = 0;
    for (const q of queries) {
      const js = await idx.search(q, { limit: 10, prefix: false, supersede: false, cache: false });
      const native = await cliSearch(dir, q, 10);
      assert.ok(native.ok, `CLI answered ${q}`);
      if (js.results.length) found++;
      const diffs = compareWithCli(js, native.value);
      if (diffs.length) mismatches.push(`${q}: ${diffs.join("; ")}`);
    }
    assert.deepEqual(mismatches, []);
    assert.ok(found >= queries.length - 2, `most queries find their page (${found} of ${queries.length})`);
  });
});
