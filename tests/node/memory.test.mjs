// 10,000 queries in a row against one engine instance keep memory flat: a search box sends a
// query per keystroke for as long as the page is open, so anything a query leaves behind in
// the wasm heap (or in the JS wrapper) would grow without bound. WebAssembly memory never
// shrinks, so growth after warm-up means a leak.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FIXTURE_DOCS, buildIndex, importMidashi } from "../support/indexes.mjs";

let idx;
before(async () => {
  const { Midashi } = await importMidashi();
  idx = await Midashi.load(buildIndex(FIXTURE_DOCS), { cacheSize: 0 });
});
after(() => idx?.close());

/** Queries of every kind: words, prefixes, typos, Japanese, long, failing. */
function query(i) {
  const words = ["computed", "pagination", "ページ", "算出プロパティ", "paginaton", "compu", "watch effect", "a".repeat(300), "the", "🙂"];
  return `${words[i % words.length]} ${i % 7 === 0 ? words[(i * 3) % words.length] : ""}`.trim();
}

test("memory stays flat over 10,000 queries", async () => {
  const run = async (from, to) => {
    for (let i = from; i < to; i++) {
      try {
        await idx.search(query(i), { limit: 10, supersede: false, cache: false });
      } catch (e) {
        // Refused queries (e.g. only stopwords) are answers too; a trap would be INTERNAL.
        assert.notEqual(e.code, "INTERNAL", String(e));
      }
    }
  };
  await run(0, 1000);
  globalThis.gc?.();
  const warm = process.memoryUsage();
  await run(1000, 10000);
  globalThis.gc?.();
  const end = process.memoryUsage();
  const grew = (k) => (end[k] - warm[k]) / 1e6;
  // arrayBuffers holds the wasm memory: it must not grow once warm. The JS heap may wander a
  // little with the collector's timing.
  assert.ok(grew("arrayBuffers") < 2, `wasm/ArrayBuffer memory grew ${grew("arrayBuffers").toFixed(1)} MB over 9,000 queries`);
  assert.ok(grew("rss") < 64, `RSS grew ${grew("rss").toFixed(1)} MB over 9,000 queries`);
});
