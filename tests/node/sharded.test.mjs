// The sharded layout through the JS API: the loader fetches only the files a query reads
// (the engine names them, the host fetches and attaches them), and the answers are the
// single-file layout's and the CLI's, field by field. Built from a real corpus (the Rust
// book) so queries touch many shards and bundles.

import assert from "node:assert/strict";
import { readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { buildIndex, cliSearch, compareWithCli, importMidashi, SHARED, tempDir, withoutExcerpts } from "../support/indexes.mjs";
import { startServer } from "../support/server.mjs";

const CORPUS = path.join(SHARED, "corpora/rust-book");
const QUERIES = [
  "ownership", "borrowing rules", "Result error handling", "trait objects", "lifetim", "cargo workspaces",
  "smart pointer Rc", "unsafe", "match", "closures capture environment", "iterator adaptors",
  "Box<T>", "panic!", "hash map", "threads message passing", "Mutex Arc", "pattern matching",
  "ownrship", "borowing", "modules use keyword", "generic types", "testing", "ve",
];
const NO_TYPING = { supersede: false, cache: false, mode: "keyword" };

describe("sharded layout", () => {
  let Midashi;
  let single;
  let sharded;
  let dirSingle;
  let dirSharded;
  before(async () => {
    ({ Midashi } = await importMidashi());
    dirSingle = buildIndex(CORPUS, tempDir("midashi-single-"), ["--layout", "single"]);
    dirSharded = buildIndex(CORPUS, tempDir("midashi-sharded-"), ["--layout", "sharded"]);
    single = await Midashi.load(dirSingle);
    sharded = await Midashi.load(dirSharded);
  });
  after(() => {
    single?.close();
    sharded?.close();
    for (const d of [dirSingle, dirSharded]) if (d) rmSync(d, { recursive: true, force: true });
  });

  test("loading reads the entry and the directory only", () => {
    const [info] = sharded.indexes;
    assert.deepEqual(info.fetched.map((n) => n.split(".")[0]), ["midashi-entry", "directory"]);
    assert.ok(!readdirSync(dirSharded).some((n) => n.startsWith("terms.") || n.startsWith("sections.")));
  });

  test("a query fetches a small part of the index, and answers like the single layout and the CLI", async () => {
    const [info] = sharded.indexes;
    const all = readdirSync(dirSharded);
    const size = (names) => names.reduce((s, n) => s + statSync(path.join(dirSharded, n)).size, 0);
    const before = info.fetched.length;
    const first = await sharded.search("ownership", NO_TYPING);
    const fetched = info.fetched.slice(before);
    // The shards of its words, and the cards of the results shown (not whole documents).
    assert.ok(fetched.some((n) => n.startsWith("shard.")) && fetched.some((n) => n.startsWith("card.")), String(fetched));
    assert.ok(!fetched.some((n) => n.startsWith("bundle.")), String(fetched));
    assert.ok(size(fetched) < size(all) / 5, `fetched ${size(fetched)} of ${size(all)} bytes`);
    assert.ok(first.results.length > 0);
    for (const q of QUERIES) {
      const a = await single.search(q, NO_TYPING);
      const b = await sharded.search(q, NO_TYPING);
      const { tookMs: _a, ...restA } = a;
      const { tookMs: _b, ...restB } = b;
      assert.deepEqual(withoutExcerpts(restB), withoutExcerpts(restA), q);
      // The CLI takes every word as typed in full.
      const whole = await sharded.search(q, { ...NO_TYPING, prefix: false });
      const cli = await cliSearch(dirSharded, q, 10);
      assert.ok(cli.ok, cli.stderr);
      assert.deepEqual(compareWithCli(whole, cli.value), [], q);
    }
    // The same query again reads nothing new.
    const n = info.fetched.length;
    await sharded.search("ownership", NO_TYPING);
    assert.equal(info.fetched.length, n);
    // Previews longer than a card holds come from the documents' bundles, alike.
    const long = { ...NO_TYPING, previewLines: 12 };
    const seen = info.fetched.length;
    const { tookMs: _l, ...longSharded } = await sharded.search("lifetimes", long);
    const { tookMs: _m, ...longSingle } = await single.search("lifetimes", long);
    assert.deepEqual(longSharded, longSingle);
    assert.ok(info.fetched.slice(seen).some((n) => n.startsWith("bundle.")), String(info.fetched.slice(seen)));
  });

  test("sections, documents and suggestions of a sharded index", async () => {
    const r = await sharded.search("trait objects", NO_TYPING);
    const top = r.results[0];
    assert.deepEqual(await sharded.getSection(top.id), await single.getSection(top.id));
    assert.deepEqual(await sharded.getDocument(top.path), await single.getDocument(top.path));
    assert.deepEqual(await sharded.getSection(`${top.path}#${top.anchor}`), await single.getSection(`${top.path}#${top.anchor}`));
    assert.deepEqual(await sharded.suggest("own"), await single.suggest("own"));
  });

  test("over HTTP, a missing shard is a NOT_FOUND error naming it, not a hang", async () => {
    const dir = buildIndex(CORPUS, tempDir("midashi-sharded-http-"), ["--layout", "sharded"]);
    const server = await startServer({ mounts: [{ prefix: "/idx/", dir }] });
    try {
      const idx = await Midashi.load(`${server.url}/idx/`);
      const ok = await idx.search("ownership", NO_TYPING);
      assert.ok(ok.results.length > 0);
      const fetched = new Set(server.requests.filter((u) => u.startsWith("/idx/")));
      assert.ok(fetched.size < readdirSync(dir).length / 5, `${fetched.size} requests`);
      // Remove a shard no query has read yet, then ask for a word in it.
      const unread = readdirSync(dir).filter((n) => n.startsWith("shard.") && !fetched.has(`/idx/${n}`));
      for (const n of unread) rmSync(path.join(dir, n));
      await assert.rejects(idx.search("zzz unusual words", NO_TYPING), (e) => e.code === "NOT_FOUND" && /shard\./.test(e.message));
      idx.close();
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
