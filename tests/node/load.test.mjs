// Loading an index in Node (from disk and over HTTP) and the read API: search, getSection,
// getDocument, suggest. The index is built by the real build-index from tests/fixtures/docs.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildIndex, FIXTURE_DOCS, importMidashi } from "../support/indexes.mjs";
import { startServer } from "../support/server.mjs";

let Midashi;
let dir;
let idx;

before(async () => {
  ({ Midashi } = await importMidashi());
  dir = buildIndex(FIXTURE_DOCS);
  idx = await Midashi.load(dir);
});
after(() => idx?.close());

const HIT_FIELDS = [
  "id", "path", "url", "anchor", "heading", "heading_path", "depth", "section_number", "start_line",
  "end_line", "score", "preview", "more_lines", "highlights", "excerpt", "excerpt_highlights", "excerpt_line",
  "title", "description", "token_estimate",
  "version", "other_versions",
];

describe("load from disk", () => {
  test("reads the entry file and only the files keyword search needs", () => {
    const [info] = idx.indexes;
    assert.equal(info.name, "default");
    assert.equal(info.fetched[0], "midashi-entry.bin");
    const needed = info.manifest.files.filter((f) => f.needed_for_keyword).map((f) => f.name);
    assert.deepEqual(info.fetched.slice(1).sort(), needed.sort());
    assert.ok(!info.fetched.some((n) => n.startsWith("vectors.")), "vectors are not fetched at load");
    assert.equal(idx.manifest.stats.documents, 6);
    assert.equal(idx.inWorker, false, "Node runs the engine on the calling thread");
  });

  test("a file: URL works like a path", async () => {
    const other = await Midashi.load(pathToFileURL(dir));
    const { results } = await other.search("pagination");
    assert.ok(results.length > 0);
    other.close();
  });

  test("the options form of load", async () => {
    const other = await Midashi.load({ url: dir, cacheSize: 0 });
    assert.equal((await other.search("watchers")).results[0].heading, "Watchers");
    other.close();
  });
});

describe("search", () => {
  test("English: results are SearchHits with every field the CLI prints", async () => {
    const res = await idx.search("computed properties", { limit: 5 });
    assert.equal(res.mode, "keyword");
    assert.ok(res.total >= 1);
    assert.ok(res.results.length >= 1 && res.results.length <= 5);
    assert.equal(typeof res.tookMs, "number");
    assert.ok(Array.isArray(res.suggestions));
    const top = res.results[0];
    assert.deepEqual(Object.keys(top).sort(), [...HIT_FIELDS].sort());
    assert.equal(top.path, "en/reactivity.md");
    assert.match(top.heading, /Computed/);
    assert.match(top.id, /^[0-9a-f]{16}$/);
    assert.ok(top.url.includes("#"), "a section hit deep-links to its anchor");
    for (let i = 1; i < res.results.length; i++) assert.ok(res.results[i - 1].score >= res.results[i].score);
  });

  test("highlights are UTF-16 ranges into the preview", async () => {
    const { results } = await idx.search("キャッシュ", { prefix: false });
    assert.ok(results.length > 0, "Japanese text is found");
    const hit = results[0];
    assert.ok(hit.path.startsWith("ja/"));
    assert.ok(hit.highlights.length > 0);
    for (const [a, b] of hit.highlights) {
      assert.ok(a < b && b <= hit.preview.length);
    }
    assert.ok(hit.highlights.some(([a, b]) => hit.preview.slice(a, b).includes("キャッシュ") || "キャッシュ".includes(hit.preview.slice(a, b))));
  });

  test("Japanese query finds the Japanese section", async () => {
    const { results } = await idx.search("ページング", { limit: 3 });
    assert.ok(results.length > 0);
    assert.equal(results[0].path, "ja/pagination.md");
  });

  test("filters and paging are the engine's", async () => {
    const all = await idx.search("install", { limit: 10 });
    const ja = await idx.search("install", { path: "ja/" });
    assert.ok(ja.results.every((h) => h.path.startsWith("ja/")));
    const page2 = await idx.search("install", { limit: 1, offset: 1 });
    assert.equal(page2.total, all.total);
    if (all.results.length > 1) assert.equal(page2.results[0].id, all.results[1].id);
    const docsOnly = await idx.search("install", { depth: [0] });
    assert.ok(docsOnly.results.every((h) => h.depth === 0));
  });

  test("search as you type completes the last word", async () => {
    const typing = await idx.search("paginat");
    assert.ok(typing.results.some((h) => h.path.endsWith("pagination.md")));
  });
});

describe("sections, documents, suggestions", () => {
  test("getSection by id and by path#anchor", async () => {
    const { results } = await idx.search("writable computed");
    const hit = results[0];
    const view = await idx.getSection(hit.id);
    assert.equal(view.id, hit.id);
    assert.equal(view.heading, hit.heading);
    assert.match(view.text, /setter/);
    assert.equal(view.score, 0);
    const byAnchor = await idx.getSection(`${hit.path}#${hit.anchor}`);
    assert.equal(byAnchor.id, hit.id);
    assert.equal(await idx.getSection("0000000000000000"), null);
    assert.equal(await idx.getSection("nope.md#nothing"), null);
  });

  test("getDocument returns source and outline", async () => {
    const doc = await idx.getDocument("ja/reactivity.md");
    assert.equal(doc.title, "リアクティビティー");
    assert.match(doc.source, /算出プロパティ/);
    assert.ok(doc.sections.length >= 4);
    assert.equal(doc.sections[0].depth, 0);
    assert.ok(doc.sections.some((s) => s.anchor === "computed-properties"), "an explicit {#id} is kept");
    assert.equal(await idx.getDocument("missing.md"), null);
  });

  test("suggest completes a prefix", async () => {
    const words = await idx.suggest("pag");
    assert.ok(words.length > 0);
    assert.ok(words.every((w) => w.startsWith("pag")), JSON.stringify(words));
    assert.ok((await idx.suggest("wat", 1)).length <= 1);
    assert.deepEqual(await idx.suggest("zzzzqqq"), []);
  });
});

describe("load over HTTP", () => {
  let server;
  before(async () => {
    server = await startServer({ mounts: [{ prefix: "/search/", dir }] });
  });
  after(() => server.close());

  test("fetches the entry file first, then only the keyword files", async () => {
    server.requests.length = 0;
    const remote = await Midashi.load(`${server.url}/search/`);
    assert.equal(server.requests[0], "/search/midashi-entry.bin");
    // The default layout is sharded: the load reads the directory; a query, its shards and cards.
    assert.match(server.requests[1], /^\/search\/directory\./);
    assert.equal(server.requests.length, 2);
    assert.ok(!server.requests.some((r) => path.basename(r).startsWith("vectors.")));
    const local = await idx.search("deep watcher");
    const res = await remote.search("deep watcher");
    assert.deepEqual(res.results, local.results, "the same bytes give the same answer");
    remote.close();
  });

  test("a folder URL without its trailing slash works too", async () => {
    const remote = await Midashi.load(`${server.url}/search`);
    assert.ok((await remote.search("offset")).results.length > 0);
    remote.close();
  });
});
