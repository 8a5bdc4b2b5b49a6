// Semantic search from a static table (`build-index --semantic static`, issue #69) through the
// JS API: the index ships a table instead of the model, and a question is embedded by look-up
// in the keyword module — no semantic module, no model, no full engine.
//
// - typing and keyword-style queries fetch nothing of the leg; a settled question loads the
//   vectors and the table (only those), after which auto answers hybrid;
// - hybrid answers equal `build-index search --mode hybrid --json` (same ids, same order);
// - semantic mode finds a paraphrase's section, and nonsense finds nothing.
//
// Needs the model to build (scripts/fetch-model.sh); scripts/test.sh sets
// MIDASHI_REQUIRE_SEMANTIC=1, so there a missing model fails instead of skipping.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { EMBED_CACHE, ROOT, buildIndexBin, importMidashi, tempDir } from "../support/indexes.mjs";

const execFileAsync = promisify(execFile);
const MODEL = process.env.MIDASHI_MODEL_DIR ?? path.join(ROOT, "models/all-MiniLM-L6-v2");
const DOCS = path.join(ROOT, "docs");

const missing = !existsSync(path.join(MODEL, "model.onnx"));
if (missing && process.env.MIDASHI_REQUIRE_SEMANTIC === "1") {
  throw new Error(`${MODEL}/model.onnx is missing (run scripts/fetch-model.sh)`);
}

describe("semantic search from a static table in Node (wasm)", { skip: missing && "no model: run scripts/fetch-model.sh" }, () => {
  let Midashi;
  let dir;
  before(async () => {
    ({ Midashi } = await importMidashi());
    dir = tempDir("midashi-static-");
    await execFileAsync(buildIndexBin(), [DOCS, "--out", dir, "--quiet", "--model", MODEL, "--cache-dir", EMBED_CACHE, "--semantic", "static"], { cwd: ROOT });
  });

  test("a settled question loads the vectors and the table in the keyword module, then answers hybrid", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    const kinds = idx.manifest.files.map((f) => f.kind);
    assert.ok(kinds.includes("Table") && kinds.includes("Vectors"), kinds.join());
    assert.ok(!kinds.includes("Model"), "no model shipped");
    const fetched = () => idx.indexes[0].fetched;
    for (const q of ["how", "how do", "widget theming"]) {
      const r = await idx.search(q, { settled: false });
      assert.equal(r.semanticPending, undefined, q);
    }
    assert.equal(idx.semanticState, "idle", "typing loads nothing of the leg");
    assert.ok(!fetched().some((f) => /^(vectors|table)\./.test(f)), fetched().join());
    const q = "how do I make search work offline?";
    const first = await idx.search(q);
    assert.equal(first.semanticReason, "question");
    assert.equal(first.mode, "keyword");
    await idx.warmup();
    assert.equal(idx.semanticState, "ready");
    assert.ok(fetched().some((f) => f.startsWith("table.")) && fetched().some((f) => f.startsWith("vectors.")), fetched().join());
    const again = await idx.search(q, { cache: false });
    assert.equal(again.mode, "hybrid");
    assert.ok(again.results.length > 0);
    assert.equal(await idx.engine(), "keyword", "the table's leg runs in the keyword module");
  });

  test("hybrid answers equal the CLI's, semantic finds a paraphrase, nonsense finds nothing", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    await idx.warmup();
    const mismatches = [];
    for (const q of ["how do I install it", "keyboard shortcut to open the search box", "what happens when the index file is damaged", "run without network access"]) {
      const js = await idx.search(q, { mode: "hybrid", limit: 10, prefix: false, supersede: false, cache: false });
      const { stdout } = await execFileAsync(buildIndexBin(), ["search", dir, q, "--json", "--mode", "hybrid", "--limit", "10"], { cwd: tempDir() });
      const cli = JSON.parse(stdout);
      assert.equal(js.mode, "hybrid");
      const [a, b] = [js.results.map((r) => r.id), cli.results.map((r) => r.id)];
      if (JSON.stringify(a) !== JSON.stringify(b)) mismatches.push(`${q}: ${a.join(",")} vs ${b.join(",")}`);
    }
    assert.deepEqual(mismatches, []);
    const meaning = await idx.search("my browser tab has no internet connection, can I still look things up", { mode: "semantic", limit: 5 });
    assert.ok(meaning.results.some((h) => h.path === "getting-started/offline.md"), meaning.results.map((h) => h.path).join());
    for (const mode of ["auto", "semantic", "hybrid"]) {
      const r = await idx.search("xylophonequartz", { mode, cache: false });
      assert.equal(r.total, 0, `nonsense in ${mode} mode`);
    }
  });
});

// A Japanese site's table (multilingual-e5-small's SentencePiece Unigram pieces, cut by the
// core with the host's NFKC) answers a Japanese paraphrase by meaning in the keyword module.
const E5 = process.env.MIDASHI_E5_DIR ?? path.join(ROOT, "models/multilingual-e5-small");
const noE5 = !existsSync(path.join(E5, "model.onnx"));
if (noE5 && process.env.MIDASHI_REQUIRE_SEMANTIC === "1") {
  throw new Error(`${E5}/model.onnx is missing (run scripts/fetch-e5.sh)`);
}

describe("a Japanese site's static table in Node (wasm)", { skip: noE5 && "no multilingual model: run scripts/fetch-e5.sh" }, () => {
  test("a Japanese question is embedded by look-up of its Unigram pieces and finds its page by meaning", async () => {
    const { Midashi } = await importMidashi();
    const docs = tempDir("midashi-static-ja-docs-");
    const pages = {
      "index.md": "# はじめに\n\nこのライブラリはドキュメントサイトの検索を提供します。インストールは npm で行います。\n",
      "offline.md": "# オフラインで使う\n\nネットワークに接続していない環境でも、ファイルを開くだけで検索が動きます。サーバーは不要です。\n",
      "theme.md": "# 見た目の変更\n\n色やフォントは CSS 変数で変えられます。ダークモードにも対応しています。\n",
    };
    for (const [name, text] of Object.entries(pages)) writeFileSync(path.join(docs, name), text);
    const dir = tempDir("midashi-static-ja-");
    const cache = path.join(dir, ".cache");
    // The default leg (`--semantic auto`) with e5 is the table.
    await execFileAsync(buildIndexBin(), [docs, "--out", dir, "--quiet", "--model", E5, "--cache-dir", cache], { cwd: ROOT });
    rmSync(cache, { recursive: true, force: true });
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    assert.ok(idx.manifest.files.some((f) => f.kind === "Table"));
    await idx.warmup();
    const r = await idx.search("ネットワークなしで検索", { mode: "semantic", cache: false });
    assert.equal(r.results[0]?.path, "offline.md", r.results.map((h) => h.path).join());
    const q = await idx.search("インターネットがなくても調べられますか", { cache: false });
    assert.equal(q.mode, "hybrid");
    assert.equal(await idx.engine(), "keyword");
  });
});
