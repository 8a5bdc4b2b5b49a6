// The LRU cache: a repeated query is answered from memory, at once and identically.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { buildIndex, FIXTURE_DOCS, importMidashi } from "../support/indexes.mjs";

let Midashi;
let LruCache;
let dir;

before(async () => {
  ({ Midashi, LruCache } = await importMidashi());
  dir = buildIndex(FIXTURE_DOCS);
});

describe("LruCache", () => {
  test("evicts the least recently used entry", () => {
    const c = new LruCache(2);
    c.set("a", 1);
    c.set("b", 2);
    assert.equal(c.get("a"), 1); // a is now the most recent
    c.set("c", 3);
    assert.equal(c.has("b"), false);
    assert.equal(c.get("a"), 1);
    assert.equal(c.get("c"), 3);
    assert.equal(c.size, 2);
  });

  test("overwriting refreshes, capacity 0 stores nothing", () => {
    const c = new LruCache(2);
    c.set("a", 1);
    c.set("b", 2);
    c.set("a", 10);
    c.set("c", 3);
    assert.deepEqual([c.has("a"), c.has("b"), c.has("c")], [true, false, true]);
    assert.equal(c.get("a"), 10);
    const none = new LruCache(0);
    none.set("a", 1);
    assert.equal(none.size, 0);
  });
});

describe("search cache", () => {
  let idx;
  before(async () => {
    idx = await Midashi.load(dir, { cacheSize: 3 });
  });
  after(() => idx.close());

  test("a repeated query is answered from the cache, identically", async () => {
    const first = await idx.search("computed caching");
    assert.equal(first.cached, undefined);
    const second = await idx.search("computed caching");
    assert.equal(second.cached, true);
    assert.deepEqual(second.results, first.results);
    assert.equal(second.total, first.total);
    // Mutating an answer does not poison the cache.
    second.results.length = 0;
    assert.deepEqual((await idx.search("computed caching")).results, first.results);
  });

  test("options are part of the key, in any order", async () => {
    await idx.search("watchers", { limit: 3, prefix: false });
    assert.equal((await idx.search("watchers", { prefix: false, limit: 3 })).cached, true);
    assert.equal((await idx.search("watchers", { limit: 4, prefix: false })).cached, undefined);
  });

  test("holds at most cacheSize answers", async () => {
    for (const q of ["one", "two", "three", "four", "five"]) await idx.search(q);
    assert.equal(idx.cacheSize, 3);
  });

  test("cache: false and cacheSize: 0 bypass it", async () => {
    await idx.search("deep watcher");
    assert.equal((await idx.search("deep watcher", { cache: false })).cached, undefined);
    const uncached = await Midashi.load(dir, { cacheSize: 0 });
    await uncached.search("deep watcher");
    assert.equal((await uncached.search("deep watcher")).cached, undefined);
    uncached.close();
  });

  test("errors are not cached", async () => {
    const long = "x".repeat(5000);
    await assert.rejects(idx.search(long), (e) => e.code === "QUERY_TOO_LONG");
    await assert.rejects(idx.search(long), (e) => e.code === "QUERY_TOO_LONG");
  });
});
