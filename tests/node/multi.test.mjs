// Several indexes (here one per language) loaded and searched as one: hits merged by the
// engine's scores, each saying which index it came from, and a filter to pick indexes.

import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { buildIndex, DIST, FIXTURE_DOCS, importMidashi } from "../support/indexes.mjs";

let Midashi;
let MidashiError;
let en;
let ja;
let many;

before(async () => {
  ({ Midashi, MidashiError } = await importMidashi());
  const enDir = buildIndex(path.join(FIXTURE_DOCS, "en"));
  const jaDir = buildIndex(path.join(FIXTURE_DOCS, "ja"));
  en = await Midashi.load(enDir);
  ja = await Midashi.load(jaDir);
  many = await Midashi.loadMany([
    { name: "en", url: enDir },
    { name: "ja", url: jaDir },
  ]);
});
after(() => {
  for (const i of [en, ja, many]) i?.close();
});

describe("loadMany", () => {
  test("every index is loaded, in order", () => {
    assert.deepEqual(many.indexes.map((i) => i.name), ["en", "ja"]);
    assert.equal(many.manifest, many.indexes[0].manifest);
  });

  test("results are the indexes' hits merged by score, tagged with their index", async () => {
    // "install" and "npm" occur in both languages' getting-started pages.
    const q = "npm install";
    const opts = { limit: 20, prefix: false };
    const [a, b, m] = await Promise.all([en.search(q, { ...opts, supersede: false }), ja.search(q, { ...opts, supersede: false }), many.search(q, { ...opts, supersede: false })]);
    assert.ok(a.results.length > 0 && b.results.length > 0);
    assert.equal(m.total, a.total + b.total);
    const expected = [...a.results.map((h) => ({ ...h, index: "en" })), ...b.results.map((h) => ({ ...h, index: "ja" }))]
      .sort((x, y) => y.score - x.score)
      .slice(0, 20);
    assert.deepEqual(m.results, expected);
    assert.ok(m.results.some((h) => h.index === "en") && m.results.some((h) => h.index === "ja"));
    for (let i = 1; i < m.results.length; i++) assert.ok(m.results[i - 1].score >= m.results[i].score);
  });

  test("offset and limit apply to the merged list", async () => {
    const all = await many.search("npm install", { limit: 10, prefix: false });
    const page = await many.search("npm install", { limit: 2, offset: 1, prefix: false });
    assert.deepEqual(page.results, all.results.slice(1, 3));
  });

  test("the indexes option picks some of them", async () => {
    const onlyJa = await many.search("ページング", { indexes: ["ja"] });
    assert.ok(onlyJa.results.length > 0);
    assert.ok(onlyJa.results.every((h) => h.index === "ja"));
    const direct = await ja.search("ページング");
    assert.deepEqual(onlyJa.results.map((h) => h.id), direct.results.map((h) => h.id));
    const onlyEn = await many.search("pagination", { indexes: ["en"] });
    assert.ok(onlyEn.results.every((h) => h.index === "en"));
  });

  test("getSection, getDocument and suggest look in every index", async () => {
    // A `path#anchor` finds its section in a fresh sharded index (the default layout)...
    const fresh = await Midashi.loadMany([
      { name: "en", url: many.indexes[0].source },
      { name: "ja", url: many.indexes[1].source },
    ]);
    const jaHit = (await ja.search("ウォッチャー")).results[0];
    const byAnchor = await fresh.getSection(`${jaHit.path}#${jaHit.anchor}`, { indexes: ["ja"] });
    assert.equal(byAnchor.id, jaHit.id);
    fresh.close();
    // ...a bare id, once a result has shown it (finding any id would fetch every bundle).
    await many.search("ウォッチャー");
    const view = await many.getSection(jaHit.id);
    assert.equal(view.index, "ja");
    assert.equal(view.id, jaHit.id);
    assert.equal(await many.getSection(jaHit.id, { indexes: ["en"] }), null);
    const doc = await many.getDocument("reactivity.md");
    assert.equal(doc.index, "en", "the first index that has the path");
    assert.equal((await many.getDocument("reactivity.md", { indexes: ["ja"] })).index, "ja");
    const words = await many.suggest("pag", 5);
    assert.ok(words.length > 0 && words.length <= 5);
  });

  test("names must be distinct and known", async () => {
    await assert.rejects(Midashi.loadMany([{ name: "x", url: "/a" }, { name: "x", url: "/b" }]), (e) => e instanceof MidashiError && e.code === "INVALID_OPTION");
    await assert.rejects(Midashi.loadMany([]), (e) => e instanceof MidashiError && e.code === "NOT_FOUND");
    await assert.rejects(many.search("x", { indexes: ["de"] }), (e) => e.code === "UNKNOWN_INDEX");
  });

  test("one broken index fails the whole load, with its name in the message", async () => {
    await assert.rejects(
      Midashi.loadMany([
        { name: "en", url: many.indexes[0].source },
        { name: "broken", url: path.join(many.indexes[0].source, "nope") },
      ]),
      (e) => e.code === "NOT_FOUND" && /broken/.test(e.message),
    );
  });
});

describe("mergeResponses (unit)", () => {
  test("ties keep index order, totals add, suggestions are united", async () => {
    const { mergeResponses } = await import(pathToFileURL(path.join(DIST, "multi.js")).href);
    const hit = (id, score) => ({ id, score });
    const merged = mergeResponses(
      [
        { name: "a", response: { total: 3, results: [hit("a1", 5), hit("a2", 2), hit("a3", 1)], suggestions: ["x"], mode: "keyword" } },
        { name: "b", response: { total: 2, results: [hit("b1", 5), hit("b2", 3)], suggestions: ["x", "y"], mode: "keyword" } },
      ],
      { limit: 3, offset: 0 },
    );
    assert.equal(merged.total, 5);
    assert.deepEqual(merged.results.map((h) => `${h.index}:${h.id}`), ["a:a1", "b:b1", "b:b2"]);
    assert.deepEqual(merged.suggestions, ["x", "y"]);
  });
});
