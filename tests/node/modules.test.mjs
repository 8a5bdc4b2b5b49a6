// The search engine's wasm modules (web/wasm-modules.json): a page starts on the keyword
// module (keyword search and completions on a sharded index, what a first query needs) and
// moves to the full engine the first time vectors or a section/document are asked for, or
// the index is a single file. The move must lose nothing: a sharded index
// carries its loaded files over, so a result just shown is still found by id, and answers
// stay equal to an instance that loaded only the full engine.

import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { buildIndex, DIST, importMidashi, SHARED, tempDir } from "../support/indexes.mjs";
import { startServer } from "../support/server.mjs";

const CORPUS = path.join(SHARED, "corpora/rust-book");
const NO_TYPING = { supersede: false, cache: false, mode: "keyword" };
const FULL_ONLY = {
  wasmUrl: pathToFileURL(path.join(DIST, "wasm/midashi_wasm_bg.wasm")).href,
  glueUrl: pathToFileURL(path.join(DIST, "wasm/midashi_wasm.js")).href,
};

describe("keyword module, then the full engine", () => {
  let Midashi;
  const dirs = {};
  before(async () => {
    ({ Midashi } = await importMidashi());
    dirs.single = buildIndex(CORPUS, tempDir("midashi-modules-single-"), ["--layout", "single"]);
    dirs.sharded = buildIndex(CORPUS, tempDir("midashi-modules-sharded-"), ["--layout", "sharded"]);
  });
  after(() => {
    for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true });
  });

  for (const layout of ["single", "sharded"]) {
    // A single-file index opens in the full engine: the keyword module opens sharded ones.
    const first = layout === "sharded" ? "keyword" : "full";
    test(`${layout} layout: keyword search on the ${first} module, lookups on the full engine, the same answers throughout`, async () => {
      const idx = await Midashi.load(dirs[layout]);
      const full = await Midashi.load(dirs[layout], FULL_ONLY);
      try {
        assert.equal(await idx.engine(), first);
        assert.equal(await full.engine(), "full");
        const before = await idx.search("trait objects", NO_TYPING);
        assert.deepEqual(before, { ...(await full.search("trait objects", NO_TYPING)), tookMs: before.tookMs });
        assert.deepEqual(await idx.suggest("own"), await full.suggest("own"));
        assert.equal(await idx.engine(), first, "search and suggest need nothing more");

        // The first lookup moves to the full engine; the result just shown is found by id.
        const top = before.results[0];
        const section = await idx.getSection(top.id);
        assert.ok(section, `section ${top.id} of the result shown`);
        assert.equal(await idx.engine(), "full");
        assert.deepEqual(section, await full.getSection(top.id));
        assert.deepEqual(await idx.getDocument(top.path), await full.getDocument(top.path));

        // Search carries on in the full engine with the same answers.
        const again = await idx.search("trait objects", NO_TYPING);
        assert.deepEqual(again, { ...before, tookMs: again.tookMs });
        const other = await idx.search("borrowing rules", NO_TYPING);
        assert.deepEqual(other, { ...(await full.search("borrowing rules", NO_TYPING)), tookMs: other.tookMs });
      } finally {
        idx.close();
        full.close();
      }
    });
  }

  test("over HTTP, the move re-reads only what the sharded index had loaded", async () => {
    const server = await startServer({ mounts: [{ prefix: "/idx/", dir: dirs.sharded }] });
    try {
      const idx = await Midashi.load(`${server.url}/idx/`);
      const r = await idx.search("ownership", NO_TYPING);
      const read = server.requests.filter((u) => u.startsWith("/idx/"));
      const seen = new Set(read);
      await idx.getSection(r.results[0].id);
      const after = server.requests.filter((u) => u.startsWith("/idx/")).slice(read.length);
      // What the keyword module held, again (a browser serves it from its cache); nothing
      // beyond it except what the lookup itself needs (the section's document).
      assert.ok(after.length > 0, "the loaded files were carried over");
      const fresh = after.filter((u) => !seen.has(u));
      assert.ok(fresh.every((u) => /\/(bundle|paths)\./.test(u)), fresh.join(" "));
      assert.ok(after.length <= read.length + 2, `${after.length} requests after ${read.length}`);
      idx.close();
    } finally {
      await server.close();
    }
  });

  test("concurrent lookups move once", async () => {
    const idx = await Midashi.load(dirs.sharded);
    try {
      const r = await idx.search("closures capture environment", NO_TYPING);
      const ids = r.results.slice(0, 4).map((h) => h.id);
      const sections = await Promise.all(ids.map((id) => idx.getSection(id)));
      assert.deepEqual(
        sections.map((s) => s?.id),
        ids,
      );
      assert.equal(await idx.engine(), "full");
    } finally {
      idx.close();
    }
  });

  test("VERSION_MISMATCH: the two modules' files swapped", async () => {
    const swapped = {
      wasmUrl: pathToFileURL(path.join(DIST, "wasm/midashi_keyword_bg.wasm")).href,
      glueUrl: pathToFileURL(path.join(DIST, "wasm/midashi_keyword.js")).href,
      keywordWasmUrl: pathToFileURL(path.join(DIST, "wasm/midashi_wasm_bg.wasm")).href,
      keywordGlueUrl: pathToFileURL(path.join(DIST, "wasm/midashi_wasm.js")).href,
    };
    await assert.rejects(Midashi.load(dirs.sharded, swapped), (e) => e.code === "VERSION_MISMATCH" && /full module where the keyword one/.test(e.message));
  });

  test("the keyword module has the semantic leg: a query vector on an index without vectors is refused as the full engine refuses it, not a trap", async () => {
    const glue = await import(`${pathToFileURL(path.join(DIST, "wasm/midashi_keyword.js")).href}?direct`);
    await glue.default({ module_or_path: readFileSync(path.join(DIST, "wasm/midashi_keyword_bg.wasm")) });
    assert.equal(glue.version().engine, "keyword");
    const at = (name) => readFileSync(path.join(dirs.sharded, name));
    const manifest = glue.readManifest(at("midashi-entry.bin"));
    const index = glue.WasmIndex.openSharded(at("midashi-entry.bin"), at(manifest.files.find((f) => f.kind === "Directory").name));
    const answer = (q, opts, vector) => {
      for (let round = 0; round < 4; round++) {
        const step = index.search(q, opts, vector);
        if (!step.needs || step.needs.full_engine) return step;
        for (const n of step.needs.files) index.attachFile(n, at(n));
      }
      throw new Error(`${q}: still needs files`);
    };
    const keyword = answer("ownership", {});
    assert.equal(keyword.needs, null);
    assert.ok(keyword.answer.results.length > 0);
    // It has the semantic leg (for a static table's, whose vectors and table it attaches;
    // the host sends an encoder's query vectors to the full engine, which also reads the
    // HNSW graph): on this keyword-only index, a vector is refused as the full engine
    // refuses it, and the instance goes on.
    assert.equal(manifest.model, null);
    assert.throws(() => answer("ownership", { mode: "hybrid" }, new Float32Array(384)), (e) => e.code === "SEMANTIC_UNAVAILABLE" && /no vectors/.test(e.message));
    // Lookups are not in it at all, nor the full engine's own attach methods.
    assert.equal(typeof index.getSection, "undefined");
    assert.equal(typeof index.attachVectors, "undefined");
    // And the instance still answers.
    assert.ok(answer("borrowing", {}).answer.results.length > 0);
  });

  describe("the keyword module opens sharded indexes only", () => {
    const SHARDED_KEYWORD = {
      ...FULL_ONLY,
      keywordWasmUrl: pathToFileURL(path.join(DIST, "wasm/midashi_keyword_bg.wasm")).href,
      keywordGlueUrl: pathToFileURL(path.join(DIST, "wasm/midashi_keyword.js")).href,
    };

    test("answers a sharded index as the keyword module does, and moves on the first lookup", async () => {
      const idx = await Midashi.load(dirs.sharded, SHARDED_KEYWORD);
      const full = await Midashi.load(dirs.sharded, FULL_ONLY);
      try {
        const r = await idx.search("trait objects", NO_TYPING);
        assert.deepEqual(r, { ...(await full.search("trait objects", NO_TYPING)), tookMs: r.tookMs });
        assert.deepEqual(await idx.suggest("own"), await full.suggest("own"));
        assert.equal(await idx.engine(), "keyword");
        assert.deepEqual(await idx.getSection(r.results[0].id), await full.getSection(r.results[0].id));
        assert.equal(await idx.engine(), "full");
      } finally {
        idx.close();
        full.close();
      }
    });

    test("it corrects a typo itself, as the full engine does, and never moves for one", async () => {
      const idx = await Midashi.load(dirs.sharded, SHARDED_KEYWORD);
      const full = await Midashi.load(dirs.sharded, FULL_ONLY);
      try {
        // Known words, a word being typed that has completions, a word too short to correct,
        // and a finished word that is in no section (corrected): the same answers as the full
        // engine's, from the keyword module.
        for (const q of ["ownership rules", "borrow chec", "xqz ownership", "owenrship "]) {
          const r = await idx.search(q, NO_TYPING);
          assert.deepEqual(r, { ...(await full.search(q, NO_TYPING)), tookMs: r.tookMs }, q);
        }
        const r = await idx.search("owenrship ", NO_TYPING);
        assert.ok(r.results.some((h) => /Ownership/.test(h.heading)), JSON.stringify(r.results.map((h) => h.heading)));
        assert.equal(await idx.engine(), "keyword");
        // Typo corrections off: the word matches nothing, in either engine.
        const opts = { ...NO_TYPING, fuzzy: false };
        const none = await idx.search("owenrship ", opts);
        assert.deepEqual(none, { ...(await full.search("owenrship ", opts)), tookMs: none.tookMs });
        assert.equal(await idx.engine(), "keyword");
      } finally {
        idx.close();
        full.close();
      }
    });

    test("previews longer than a card's lines move it to the full engine, which reads them from bundles", async () => {
      const idx = await Midashi.load(dirs.sharded, SHARDED_KEYWORD);
      const full = await Midashi.load(dirs.sharded, FULL_ONLY);
      try {
        // Up to a card's five lines: from cards, in the keyword module.
        for (const previewLines of [3, 5]) {
          const opts = { ...NO_TYPING, previewLines };
          const r = await idx.search("trait objects", opts);
          assert.deepEqual(r, { ...(await full.search("trait objects", opts)), tookMs: r.tookMs });
        }
        assert.equal(await idx.engine(), "keyword");
        const opts = { ...NO_TYPING, previewLines: 12 };
        const r = await idx.search("trait objects", opts);
        assert.deepEqual(r, { ...(await full.search("trait objects", opts)), tookMs: r.tookMs });
        assert.ok(r.results.some((h) => h.preview.split("\n").length > 5), "a preview longer than a card's");
        assert.equal(await idx.engine(), "full");
      } finally {
        idx.close();
        full.close();
      }
    });

    test("a single-file index given to it opens in the full engine instead", async () => {
      const idx = await Midashi.load(dirs.single, SHARDED_KEYWORD);
      const full = await Midashi.load(dirs.single, FULL_ONLY);
      try {
        assert.equal(await idx.engine(), "full");
        const r = await idx.search("trait objects", NO_TYPING);
        assert.deepEqual(r, { ...(await full.search("trait objects", NO_TYPING)), tookMs: r.tookMs });
      } finally {
        idx.close();
        full.close();
      }
    });

    test("it has no single-file open at all, and is smaller than the full engine", async () => {
      const glue = await import(`${pathToFileURL(path.join(DIST, "wasm/midashi_keyword.js")).href}?opens`);
      await glue.default({ module_or_path: readFileSync(path.join(DIST, "wasm/midashi_keyword_bg.wasm")) });
      assert.equal(glue.version().engine, "keyword");
      assert.equal(typeof glue.WasmIndex.open, "undefined");
      assert.equal(typeof glue.WasmIndex.openSharded, "function");
      const size = (f) => readFileSync(path.join(DIST, "wasm", f)).length;
      assert.ok(size("midashi_keyword_bg.wasm") < size("midashi_wasm_bg.wasm"));
    });

    test("given a bundle, which it has no use for, it says which engine does, and goes on answering", async () => {
      const glue = await import(`${pathToFileURL(path.join(DIST, "wasm/midashi_keyword.js")).href}?refuse`);
      await glue.default({ module_or_path: readFileSync(path.join(DIST, "wasm/midashi_keyword_bg.wasm")) });
      const read = (name) => readFileSync(path.join(dirs.sharded, name));
      const manifest = glue.readManifest(read("midashi-entry.bin"));
      const named = (kind) => manifest.files.find((f) => f.kind === kind).name;
      const index = glue.WasmIndex.openSharded(read("midashi-entry.bin"), read(named("Directory")));
      const tree = readdirSync(dirs.sharded).find((n) => n.startsWith("tree."));
      // The tree is the semantic leg's (a static table's, in this module).
      index.attachFile(tree, read(tree));
      const paths = readdirSync(dirs.sharded).find((n) => n.startsWith("paths."));
      index.attachFile(paths, read(paths));
      const bundle = readdirSync(dirs.sharded).find((n) => n.startsWith("bundle."));
      assert.throws(() => index.attachFile(bundle, read(bundle)), (e) => e.code === "NEEDS_FULL_ENGINE" && /previews longer/.test(e.message));
      // The files a query needs are answered as a value; a typo's too (the lexicon and its
      // corrections' shards): no full engine.
      const attachAll = (q) => {
        for (let round = 0; round < 4; round++) {
          const step = index.search(q, {});
          if (!step.needs || step.needs.full_engine) return step;
          assert.ok(step.needs.files.length > 0, `${q}: a need names files or the full engine`);
          for (const n of step.needs.files) index.attachFile(n, read(n));
        }
        throw new Error(`${q}: still needs files`);
      };
      assert.ok(attachAll("owenrship ").answer.results.length > 0);
      assert.ok(attachAll("ownership ").answer.results.length > 0);
      index.free();
    });
  });
});

test("the loader's default URLs are web/wasm-modules.json's (bundlers need them as literals)", async () => {
  const { wasmModule } = await import("../support/modules.mjs");
  const loader = readFileSync(path.join(path.dirname(DIST), "src/assets.ts"), "utf8");
  for (const name of ["keyword", "full", "semantic"]) {
    const { out } = wasmModule(name);
    assert.ok(loader.includes(`new URL("./${out}.js", import.meta.url)`), `${name}: ${out}.js`);
    assert.ok(loader.includes(`new URL("./${out}_bg.wasm", import.meta.url)`), `${name}: ${out}_bg.wasm`);
  }
});
