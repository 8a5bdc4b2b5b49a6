// Search as you type: a newer search() supersedes an older one still waiting. The older call
// RESOLVES with { superseded: true } and no results (it does not reject), so a search box
// never has to catch anything for a keystroke that was overtaken.

import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { buildIndex, DIST, FIXTURE_DOCS, importMidashi } from "../support/indexes.mjs";

let Midashi;
let LatestOnly;
let idx;

before(async () => {
  ({ Midashi } = await importMidashi());
  ({ LatestOnly } = await import(pathToFileURL(path.join(DIST, "scheduler.js")).href));
  idx = await Midashi.load(buildIndex(FIXTURE_DOCS), { cacheSize: 0 });
});
after(() => idx.close());

describe("supersession", () => {
  test("typing fast: only the last query runs, the earlier ones resolve superseded", async () => {
    const typed = ["w", "wa", "wat", "watc", "watch"].map((q) => idx.search(q));
    const answers = await Promise.all(typed);
    for (const a of answers.slice(0, -1)) {
      assert.equal(a.superseded, true);
      assert.deepEqual(a.results, []);
      assert.equal(a.total, 0);
    }
    const last = answers.at(-1);
    assert.equal(last.superseded, undefined);
    assert.ok(last.results.length > 0);
  });

  test("supersede: false opts out (batch use)", async () => {
    const answers = await Promise.all(["watchers", "pagination", "install"].map((q) => idx.search(q, { supersede: false })));
    for (const a of answers) {
      assert.equal(a.superseded, undefined);
      assert.ok(a.results.length > 0);
    }
  });

  test("a cache hit supersedes a query still waiting", async () => {
    const cached = await Midashi.load(idx.indexes[0].source);
    await cached.search("offset");
    const older = cached.search("limit");
    const newer = await cached.search("offset");
    assert.equal(newer.cached, true);
    assert.equal((await older).superseded, true);
    cached.close();
  });

  test("a superseded query that would have failed does not reject", async () => {
    const older = idx.search("");
    const newer = idx.search("watchers");
    assert.equal((await older).superseded, true);
    assert.ok((await newer).results.length > 0);
  });
});

describe("LatestOnly (unit)", () => {
  test("a running job's stale answer is discarded, the waiting one is never run", async () => {
    const q = new LatestOnly();
    const ran = [];
    let release;
    const gate = new Promise((r) => (release = r));
    const a = q.submit(async () => {
      ran.push("a");
      await gate;
      return "A";
    });
    await new Promise((r) => setTimeout(r, 0)); // a is running now
    const b = q.submit(async () => (ran.push("b"), "B"));
    const c = q.submit(async () => (ran.push("c"), "C"));
    release();
    assert.deepEqual(await a, { superseded: true });
    assert.deepEqual(await b, { superseded: true });
    assert.deepEqual(await c, { superseded: false, value: "C" });
    assert.deepEqual(ran, ["a", "c"], "b was dropped, not queued");
  });

  test("the newest job's error is reported", async () => {
    const q = new LatestOnly();
    await assert.rejects(q.submit(async () => Promise.reject(new Error("boom"))), /boom/);
  });
});
