// A common word on a large site finds its first page without ranking every candidate
// (midashi-core's rank/topk.rs, #24): through the JS API the page must be the one ranking
// every candidate gives (a page ending past the 100th result is ranked whole, so a deep
// page's first ten are the reference), and the count says when it is a lower bound.

import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { buildIndex, cliSearch, importMidashi, SHARED } from "../support/indexes.mjs";

let idx;
let dir;
// Common words of the PowerShell reference (five versions, ~29k sections): their lists
// hold thousands of postings, so these queries are bounded.
const QUERIES = ["parameter value", "PowerShell scope names", "Get-Process", "Example 1: Get all events", "pipeline input object", "Methods"];

before(async () => {
  dir = buildIndex(path.join(SHARED, "corpora/powershell-docs"));
  const { Midashi } = await importMidashi();
  idx = await Midashi.load(dir);
});
after(() => idx?.close());

const page = (r) => r.results.map((h) => [h.id, h.score, h.other_versions.map((v) => v.id)]);

test("a bounded page is the page ranking every candidate gives, and its count a lower bound", async () => {
  let bounded = 0;
  for (const q of QUERIES) {
    for (const group of [true, false]) {
      const first = await idx.search(q, { limit: 10, mode: "keyword", group, cache: false });
      const whole = await idx.search(q, { limit: 101, mode: "keyword", group, cache: false });
      assert.equal(whole.total_exact, true, "a deep page ranks every candidate");
      assert.deepEqual(page(first), page(whole).slice(0, 10), `${q} (group ${group})`);
      assert.equal(typeof first.total_exact, "boolean");
      if (first.total_exact) {
        assert.equal(first.total, whole.total, q);
      } else {
        bounded += 1;
        assert.ok(first.total <= whole.total && first.total >= 10, `${q}: at least ${first.total} of ${whole.total}`);
        // What is certain is most of it: sections with text, one per family.
        assert.ok(first.total >= whole.total * 0.5, `${q}: ${first.total} of ${whole.total}`);
      }
    }
  }
  assert.ok(bounded > 0, "some query was bounded");
});

test("page two continues page one when both are bounded", async () => {
  const q = "parameter value";
  const one = await idx.search(q, { limit: 10, mode: "keyword", cache: false });
  const two = await idx.search(q, { limit: 10, offset: 10, mode: "keyword", cache: false });
  const whole = await idx.search(q, { limit: 101, mode: "keyword", cache: false });
  assert.deepEqual([...page(one), ...page(two)], page(whole).slice(0, 20));
});

test("the CLI says the count is a lower bound with a plus", async () => {
  // As the command line asks: whole words (no completion of the last one).
  const js = await idx.search("parameter value", { limit: 10, mode: "keyword", prefix: false, cache: false });
  assert.equal(js.total_exact, false, "this query is bounded");
  const { ok, value: cli } = await cliSearch(dir, "parameter value");
  assert.ok(ok);
  assert.equal(cli.total, js.total);
  assert.equal(cli.total_exact, false);
  assert.deepEqual(cli.results.map((h) => h.id), js.results.map((h) => h.id));
});

test("what the widget asks keeps the bound: its page's language on a one-language site, facet counts only when ranked", async () => {
  let bounded = 0;
  for (const q of QUERIES) {
    // The widget sends <html lang> and `facetsIfRanked` on every keystroke.
    const widget = await idx.search(q, { limit: 10, mode: "keyword", preferLang: "en", facetsIfRanked: true, cache: false });
    const plain = await idx.search(q, { limit: 10, mode: "keyword", cache: false });
    const counted = await idx.search(q, { limit: 10, mode: "keyword", preferLang: "en", facets: true, cache: false });
    assert.deepEqual(page(widget), page(plain), `${q}: a site in one language is not reordered`);
    assert.deepEqual(page(counted), page(plain), q);
    assert.equal(widget.total_exact, plain.total_exact, `${q}: the reader's language does not stop the bound here`);
    assert.equal(counted.total_exact, true, "counting facets ranks every candidate");
    assert.ok(counted.facets, q);
    if (widget.total_exact) {
      assert.deepEqual(widget.facets, counted.facets, `${q}: ranked whole, counted at once`);
      assert.equal(widget.total, counted.total);
    } else {
      bounded += 1;
      assert.equal(widget.facets, null, `${q}: found without ranking every result, so not counted`);
    }
  }
  assert.ok(bounded > 0, "some query was bounded");
});
