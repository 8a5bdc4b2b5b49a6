// 10,000 queries in a row against one engine instance keep memory flat: a search box sends a
// query per keystroke for as long as the page is open, so anything a query leaves behind in
// the wasm heap (or in the JS wrapper) would grow without bound. WebAssembly memory never
// shrinks, so growth after warm-up means a leak.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
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

test("memory stays flat over 300 engine recoveries (a trap, then a fresh instance)", async () => {
  // A real collection, with or without --expose-gc: freed wasm memories are only released
  // after a full GC and a turn of the event loop.
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 50));
    }
    return process.memoryUsage().external / 1e6;
  };
  const { Midashi } = await importMidashi();
  const rec = await Midashi.load(buildIndex(FIXTURE_DOCS), { cacheSize: 0 });
  after(() => rec.close());
  // Each trap's panic report (message and stack, ~14 lines) is counted, not printed: 320
  // of them were 4,500 lines of a CI log that a failing test's one line got lost in.
  const cycle = async (n) => {
    const report = console.error;
    let reported = 0;
    console.error = () => reported++;
    try {
      for (let i = 0; i < n; i++) {
        await rec.panicForTests().catch((e) => assert.equal(e.code, "INTERNAL"));
        const r = await rec.search("computed", { supersede: false, cache: false });
        assert.ok(r.total > 0);
      }
    } finally {
      console.error = report;
    }
    assert.ok(reported >= n, `each trap is reported on the console (${reported} of ${n})`);
  };
  await cycle(20);
  const warm = await settle();
  await cycle(300);
  const end = await settle();
  // Each instance kept alive held its wasm memory (1.2 MB on this small index, 3.85 MB on
  // the Rust book): 300 of them would be hundreds of MB.
  assert.ok(end - warm < 40, `external memory grew by ${(end - warm).toFixed(1)} MB over 300 recoveries`);
});
