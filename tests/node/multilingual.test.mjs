// Japanese docs with no --model: build-index embeds them with multilingual-e5-small (the
// default model covers English only). With `--semantic deep` it ships a copy trimmed to the
// site's pieces; the JS API's wasm module embeds Japanese questions with it ("query: " prefix
// included) and answers as the native CLI does (#22 item 3). The default, a table distilled
// with e5, is tests/node/static-table.test.mjs's.
//
// Needs models/multilingual-e5-small (scripts/fetch-e5.sh) and the semantic module;
// scripts/test.sh sets MIDASHI_REQUIRE_SEMANTIC=1, so there a missing piece fails.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { DIST, ROOT, buildIndexBin, importMidashi, tempDir } from "../support/indexes.mjs";

const execFileAsync = promisify(execFile);
const E5 = path.join(ROOT, "models/multilingual-e5-small");
const SHARED = process.env.MIDASHI_SHARED ?? path.join(ROOT, "../shared");
const PAGES = path.join(SHARED, "corpora/vue-docs-ja/guide/essentials");

const missing = [
  [path.join(E5, "model.onnx"), "run scripts/fetch-e5.sh"],
  [path.join(DIST, "embed/midashi_wasm_embed_bg.wasm"), "run scripts/build-wasm-embed.sh"],
  [PAGES, "../shared/corpora is missing"],
].find(([f]) => !existsSync(f));
if (missing && process.env.MIDASHI_REQUIRE_SEMANTIC === "1") {
  throw new Error(`${missing[0]} is missing (${missing[1]})`);
}
const skip = missing ? `${missing[0]} is missing (${missing[1]})` : false;

describe("Japanese docs get semantic search with the multilingual model", { skip }, () => {
  let Midashi;
  let dir;
  before(async () => {
    ({ Midashi } = await importMidashi());
    const docs = tempDir("midashi-ja-docs-");
    mkdirSync(docs, { recursive: true });
    for (const f of ["computed.md", "watchers.md", "template-refs.md", "event-handling.md"]) {
      copyFileSync(path.join(PAGES, f), path.join(docs, f));
    }
    dir = tempDir("midashi-ja-index-");
    const env = { ...process.env };
    delete env.MIDASHI_MODEL; // the models beside the binary, as a checkout's user has them
    const { stderr } = await execFileAsync(buildIndexBin(), [docs, "--out", dir, "--quiet", "--cache-dir", path.join(dir, ".cache"), "--semantic", "deep"], { cwd: ROOT, env });
    assert.match(stderr, /mostly in ja.*multilingual-e5-small/s);
  });

  test("the shipped model is the trimmed copy, and a Japanese question is answered by meaning", async () => {
    const onnx = readdirSync(dir).filter((f) => /^model\.[0-9a-f]{16}\.bin$/.test(f));
    assert.equal(onnx.length, 1);
    assert.ok(statSync(path.join(dir, onnx[0])).size < 40e6, "trimmed to the site's pieces");
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    const r = await idx.search("DOM 要素に直接アクセスしたい", { mode: "semantic", limit: 3 });
    assert.equal(r.mode, "semantic");
    assert.equal(r.results[0]?.path, "template-refs.md", r.results.map((h) => `${h.path}#${h.anchor}`).join(" "));
    const auto = await idx.search("算出プロパティ");
    assert.equal(auto.mode, "hybrid", "auto runs the semantic leg for a language the model covers");
  });

  test("a Japanese question with no interrogative (「…の止め方は」) reads as a question and starts the leg", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    const words = await idx.search("ウォッチャーの止め方");
    assert.notEqual(words.semanticReason, "question", "the same words without the closing は name a topic");
    idx.cancelSemantic();
    for (const q of ["ウォッチャーの止め方は", "ウォッチャーは止められるか", "ウォッチャーを止める方法を答えよ。"]) {
      const r = await idx.search(q, { cache: false });
      assert.equal(r.semanticReason, "question", q);
      idx.cancelSemantic();
    }
  });

  test("hybrid answers equal the CLI's: same ids, same order", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    await idx.warmup();
    const mismatches = [];
    for (const q of ["算出プロパティのキャッシュ", "ウォッチャーを止めるには", "イベント修飾子", "ref で要素を参照する", "computed"]) {
      const js = await idx.search(q, { mode: "hybrid", limit: 10, prefix: false, supersede: false, cache: false });
      const { stdout } = await execFileAsync(buildIndexBin(), ["search", dir, q, "--json", "--mode", "hybrid", "--limit", "10"], { cwd: tempDir() });
      const cli = JSON.parse(stdout);
      const a = js.results.map((h) => h.id);
      const b = cli.results.map((h) => h.id);
      if (JSON.stringify(a) !== JSON.stringify(b)) mismatches.push(`${q}: ${a.join(",")} vs ${b.join(",")}`);
    }
    assert.deepEqual(mismatches, []);
  });
});
