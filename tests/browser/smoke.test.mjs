// The package in a real browser: headless Chromium loads web/dist's ES modules from a local
// server, the engine runs in a Web Worker, and a query returns the same hits as in Node.
//
// Needs web/dist (npm run build:wasm && npm run build:web) and /usr/bin/chromium (or $CHROMIUM).

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { buildIndex, DIST, FIXTURE_DOCS, importMidashi } from "../support/indexes.mjs";
import { startServer } from "../support/server.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

let server;
let context;
let profile;
let page;
let dir;
const pageErrors = [];

before(async () => {
  await importMidashi(); // fails early, with advice, when web/dist is not built
  dir = buildIndex(FIXTURE_DOCS);
  server = await startServer({
    mounts: [
      { prefix: "/dist/", dir: DIST },
      { prefix: "/index/", dir },
      { prefix: "/en/", dir: buildIndex(path.join(FIXTURE_DOCS, "en")) },
      { prefix: "/ja/", dir: buildIndex(path.join(FIXTURE_DOCS, "ja")) },
    ],
    pages: { "/": "<!doctype html><meta charset=utf-8><title>midashi smoke</title><p>smoke</p>" },
  });
  profile = mkdtempSync(path.join(os.tmpdir(), "midashi-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(`${server.url}/`);
});

after(async () => {
  await context?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test("a query runs through the Web Worker and returns the engine's hits", async () => {
  const out = await page.evaluate(async () => {
    const { Midashi } = await import("/dist/index.js");
    const idx = await Midashi.load("/index/");
    const res = await idx.search("computed properties", { limit: 5 });
    const section = await idx.getSection(res.results[0].id);
    const ja = await idx.search("ページング");
    const words = await idx.suggest("pag");
    const info = { inWorker: idx.inWorker, fetched: idx.indexes[0].fetched };
    idx.close();
    return { res, section, ja, words, info };
  });
  assert.equal(out.info.inWorker, true);
  assert.ok(page.workers().length >= 1 || out.info.inWorker, "a dedicated worker was started");
  assert.equal(out.info.fetched[0], "midashi-entry.bin");
  // The default layout is sharded: the load reads the entry and the directory, a query the
  // shards of its words and the cards of its results.
  assert.match(out.info.fetched[1] ?? "", /^directory\./);
  assert.equal(out.info.fetched.length, 2, "entry + directory at load, nothing else");
  assert.equal(out.res.mode, "keyword");
  assert.ok(out.res.results.length > 0);
  assert.equal(out.res.results[0].path, "en/reactivity.md");
  assert.equal(out.section.id, out.res.results[0].id);
  assert.equal(out.ja.results[0].path, "ja/pagination.md");
  assert.ok(out.words.every((w) => w.startsWith("pag")));

  // The same index and query in Node give the same hits: one engine.
  const { Midashi } = await importMidashi();
  const node = await Midashi.load(dir);
  const expected = await node.search("computed properties", { limit: 5 });
  node.close();
  assert.deepEqual(out.res.results, expected.results);
});

test("typing fast in the browser: superseded queries resolve, only the last answers", async () => {
  const out = await page.evaluate(async () => {
    const { Midashi } = await import("/dist/index.js");
    const idx = await Midashi.load("/index/", { cacheSize: 0 });
    const answers = await Promise.all(["w", "wa", "wat", "watc", "watche"].map((q) => idx.search(q)));
    idx.close();
    return answers.map((a) => ({ superseded: a.superseded ?? false, n: a.results.length }));
  });
  assert.deepEqual(out.slice(0, -1).map((a) => a.superseded), [true, true, true, true]);
  assert.equal(out.at(-1).superseded, false);
  assert.ok(out.at(-1).n > 0);
});

test("several indexes as one, and errors with codes", async () => {
  const out = await page.evaluate(async () => {
    const { Midashi, MidashiError } = await import("/dist/index.js");
    const many = await Midashi.loadMany([
      { name: "en", url: "/en/" },
      { name: "ja", url: "/ja/" },
    ]);
    const both = await many.search("npm install", { prefix: false, limit: 20 });
    const ja = await many.search("ページング", { indexes: ["ja"] });
    const blank = await many.search("");
    const empty = { total: blank.total, results: blank.results.length };
    const tooLong = await many.search("x".repeat(5000)).catch((e) => ({ code: e.code, isMidashiError: e instanceof MidashiError }));
    many.close();
    const missing = await Midashi.load("/nowhere/").catch((e) => ({ code: e.code, message: e.message }));
    return { indexes: [...new Set(both.results.map((h) => h.index))].sort(), ja: ja.results.map((h) => h.index), empty, tooLong, missing };
  });
  assert.deepEqual(out.indexes, ["en", "ja"]);
  assert.ok(out.ja.length > 0 && out.ja.every((i) => i === "ja"));
  assert.deepEqual(out.empty, { total: 0, results: 0 });
  assert.deepEqual(out.tooLong, { code: "QUERY_TOO_LONG", isMidashiError: true });
  assert.equal(out.missing.code, "NOT_FOUND");
  assert.match(out.missing.message, /build-index/);
});

test("the engine survives a trap inside the worker", async () => {
  const out = await page.evaluate(async () => {
    const { Midashi } = await import("/dist/index.js");
    const idx = await Midashi.load("/index/", { cacheSize: 0 });
    const code = await idx.panicForTests().then(() => "none", (e) => e.code);
    const after = await idx.search("watchers");
    idx.close();
    return { code, n: after.results.length };
  });
  assert.equal(out.code, "INTERNAL");
  assert.ok(out.n > 0);
});

test("no page errors", () => {
  assert.deepEqual(pageErrors, []);
});
