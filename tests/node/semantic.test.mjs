// Semantic and hybrid search through the JS API, end to end: an index of Midashi's own docs
// built with the model (which the index ships), the semantic wasm module loaded lazily, and
// the answers compared with the native CLI's.
//
// - keyword results come at once while the module loads; `semantic` events report download
//   progress (N of M bytes), compiling, ready; the same query then answers hybrid;
// - hybrid answers equal `build-index search --mode hybrid --json` (same ids, same order);
// - semantic mode waits for the module and finds a paraphrase's section;
// - a broken or missing model fails semantic search clearly while keyword search goes on.
//
// Needs the model (scripts/fetch-model.sh) and the module (scripts/build-wasm-embed.sh).
// scripts/test.sh sets MIDASHI_REQUIRE_SEMANTIC=1, so there a missing piece fails instead
// of skipping.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { DIST, EMBED_CACHE, ROOT, buildIndexBin, copyIndexWith, importMidashi, tempDir } from "../support/indexes.mjs";

const execFileAsync = promisify(execFile);
const MODEL = process.env.MIDASHI_MODEL_DIR ?? path.join(ROOT, "models/all-MiniLM-L6-v2");
const DOCS = path.join(ROOT, "docs");

const missing = [
  [path.join(MODEL, "model.onnx"), "run scripts/fetch-model.sh"],
  [path.join(DIST, "embed/midashi_wasm_embed_bg.wasm"), "run scripts/build-wasm-embed.sh"],
].find(([f]) => !existsSync(f));
if (missing && process.env.MIDASHI_REQUIRE_SEMANTIC === "1") {
  throw new Error(`${missing[0]} is missing (${missing[1]})`);
}
const skip = missing ? `${missing[0]} is missing (${missing[1]})` : false;

/** Builds an index of `docs` with the model; returns the folder. */
async function buildSemanticIndex(extra = []) {
  const out = tempDir("midashi-semantic-");
  // The encoder's leg: a default build with this model ships a static table instead
  // (tests/node/static-table.test.mjs).
  await execFileAsync(buildIndexBin(), [DOCS, "--out", out, "--quiet", "--model", MODEL, "--cache-dir", EMBED_CACHE, "--semantic", "deep", ...extra], {
    cwd: ROOT,
  });
  return out;
}

async function cliHybrid(dir, query) {
  const { stdout } = await execFileAsync(buildIndexBin(), ["search", dir, query, "--json", "--mode", "hybrid", "--limit", "10"], { cwd: tempDir() });
  return JSON.parse(stdout);
}

/** Resolves with the detail of the first `semantic` event whose state is one of `states`. */
function nextState(idx, ...states) {
  return new Promise((resolve) => {
    const on = (e) => {
      if (states.includes(e.detail.state)) {
        idx.removeEventListener("semantic", on);
        resolve(e.detail);
      }
    };
    idx.addEventListener("semantic", on);
  });
}

describe("semantic and hybrid search in Node (wasm)", { skip }, () => {
  let Midashi;
  let dir;
  before(async () => {
    ({ Midashi } = await importMidashi());
    dir = await buildSemanticIndex();
  });

  test("the index ships the model; keyword answers at once, then hybrid once the module is ready", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    const kinds = idx.manifest.files.map((f) => f.kind);
    for (const k of ["Vectors", "Model", "Tokenizer", "ModelConfig"]) assert.ok(kinds.includes(k), `${k} in ${kinds}`);
    // Loading fetched only what keyword search needs.
    assert.ok(!idx.indexes[0].fetched.some((f) => f.startsWith("model.") || f.startsWith("vectors.")), idx.indexes[0].fetched.join());
    assert.equal(idx.semanticState, "idle");

    const events = [];
    idx.addEventListener("semantic", (e) => events.push(e.detail));
    const ready = nextState(idx, "ready", "failed");
    const first = await idx.search("offline docs without a server", { mode: "hybrid" });
    assert.equal(first.mode, "keyword", "the first answer does not wait for the model");
    assert.equal(first.semanticPending, true);
    // Loading started; on a fast machine it may already have finished by the time the answer arrives.
    assert.ok(["loading", "ready"].includes(idx.semanticState), idx.semanticState);
    assert.ok(first.results.length > 0);

    const done = await ready;
    assert.equal(done.state, "ready", JSON.stringify(done));
    const downloads = events.filter((e) => e.phase === "download");
    assert.ok(downloads.length >= 2, `progress events: ${JSON.stringify(events)}`);
    const last = downloads.at(-1);
    const { readdirSync, statSync } = await import("node:fs");
    const modelBytes = statSync(path.join(dir, readdirSync(dir).find((f) => /^model\.[0-9a-f]{16}\.bin$/.test(f)))).size;
    assert.ok(modelBytes > 5e6 && last.total >= modelBytes, `the model (${modelBytes} bytes) is counted in the total: ${last.total}`);
    for (const e of downloads) assert.ok(e.loaded <= e.total, JSON.stringify(e));
    assert.ok(events.some((e) => e.phase === "compile"), "a compile phase is reported");
    assert.equal(events.at(-1).state, "ready");

    const again = await idx.search("offline docs without a server", { mode: "hybrid" });
    assert.equal(again.mode, "hybrid");
    assert.equal(again.semanticPending, undefined);
    const auto = await idx.search("offline docs without a server");
    assert.equal(auto.mode, "hybrid", "auto mode is hybrid once the module is ready");
  });

  test("an auto query the English model does not cover neither loads the semantic module nor embeds", async () => {
    const idx = await Midashi.load(dir, { semantic: "lazy" });
    after(() => idx.close());
    const r = await idx.search("算出プロパティのキャッシュ");
    assert.equal(r.mode, "keyword");
    assert.equal(r.semanticPending, undefined);
    assert.equal(idx.semanticState, "idle", "a Japanese query does not start the English model's download");
    // An English query does (the `lazy` policy: any auto query).
    const en = await idx.search("offline docs without a server");
    assert.equal(en.semanticPending, true);
    // (Started: a module compiled by an earlier test of this process may be ready already.)
    assert.ok(["loading", "ready"].includes(idx.semanticState), idx.semanticState);
    await idx.warmup();
    // Ready: still no vector for the Japanese query (its answer is the keyword one).
    const ja = await idx.search("算出プロパティのキャッシュ", { cache: false });
    assert.equal(ja.mode, "keyword");
  });

  test("the auto policy: keyword-style queries fetch nothing, a question or a weak answer starts the leg", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    for (const q of ["widget theming", "build-index search", "sharded layout"]) {
      const r = await idx.search(q);
      assert.equal(r.semanticPending, undefined, q);
      assert.equal(r.semanticReason, undefined, q);
    }
    assert.equal(idx.semanticState, "idle", "no semantic bytes for keyword-style queries");
    // Nonsense matches nothing and asks nothing: "no results", and no download.
    const nonsense = await idx.search("zzqx unfindable");
    assert.equal(nonsense.total, 0);
    assert.equal(nonsense.semanticReason, undefined);
    assert.equal(idx.semanticState, "idle", "no semantic bytes for nonsense");
    // A phrase of three words that few sections hold: the leg may find it in other words.
    const phrase = "gptq probe sequences";
    const few = await idx.search(phrase, { mode: "keyword", cache: false });
    assert.ok(few.total >= 1 && few.total <= 2, `the test needs a phrase that one or two sections of docs/ hold: "${phrase}" has ${few.total}`);
    // Typed (not settled): the answer says why, and nothing loads yet.
    const typing = await idx.search(phrase, { settled: false });
    assert.equal(typing.semanticReason, "weak");
    assert.equal(typing.semanticPending, undefined);
    assert.equal(idx.semanticState, "idle", "a query still being typed loads nothing");
    const weak = await idx.search(phrase);
    assert.equal(weak.semanticReason, "weak");
    assert.equal(idx.semanticState, "loading");
    idx.cancelSemantic();
    assert.equal(idx.semanticState, "idle", "a download can be cancelled");
    const q = await idx.search("how do I make search work offline?");
    assert.equal(q.semanticReason, "question");
    assert.equal(q.semanticPending, true);
    await idx.warmup();
    const again = await idx.search("how do I make search work offline?", { cache: false });
    assert.equal(again.mode, "hybrid");

    // on-demand: only when asked.
    const od = await Midashi.load(dir, { semantic: "on-demand" });
    after(() => od.close());
    const r = await od.search("how do I make search work offline?");
    assert.equal(r.semanticPending, undefined);
    assert.equal(od.semanticState, "idle");
  });

  test("hybrid answers equal the CLI's: same ids, same order", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    await idx.warmup();
    const queries = [
      "how do I install it",
      "search as you type",
      "Japanese text segmentation",
      "keyboard shortcut to open the search box",
      "what happens when the index file is damaged",
      "use it from an AI agent",
      "ranking of headings versus body text",
      "run without network access",
      "ページング",
      "change the colours of the widget",
    ];
    const mismatches = [];
    for (const q of queries) {
      const js = await idx.search(q, { mode: "hybrid", limit: 10, prefix: false, supersede: false, cache: false });
      const cli = await cliHybrid(dir, q);
      assert.equal(js.mode, "hybrid");
      const a = js.results.map((r) => r.id);
      const b = cli.results.map((r) => r.id);
      if (JSON.stringify(a) !== JSON.stringify(b)) mismatches.push(`${q}: ${a.join(",")} vs ${b.join(",")}`);
    }
    assert.deepEqual(mismatches, []);
  });

  test("hybrid counts the sections that hold the query's words and the semantic hits above the noise floor, not the whole semantic head", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    await idx.warmup();
    const sections = idx.manifest.stats.sections;
    for (const q of ["ranking", "widget theming", "how do I use it offline?"]) {
      const kw = await idx.search(q, { mode: "keyword", cache: false });
      const hy = await idx.search(q, { mode: "hybrid", cache: false });
      // Every keyword match is still there (the fused heads, then the keyword tail) ...
      assert.ok(hy.total >= kw.total, `${q}: ${hy.total} < ${kw.total}`);
      // ... and the semantic leg adds only the few sections clearly close in meaning: before,
      // every answer held the whole semantic head (109 of the demo's sections).
      assert.ok(hy.total <= kw.total + 10 && hy.total < sections / 2, `${q}: hybrid ${hy.total}, keyword ${kw.total}, ${sections} sections`);
      // The whole list can be paged through, and holds every keyword match.
      const all = await idx.search(q, { mode: "hybrid", cache: false, limit: hy.total });
      const ids = new Set(all.results.map((h) => h.id));
      const kwAll = await idx.search(q, { mode: "keyword", cache: false, limit: kw.total });
      assert.ok(kwAll.results.every((h) => ids.has(h.id)), q);
    }
    // Nonsense stays empty.
    assert.equal((await idx.search("xqzvw plorbtek", { mode: "hybrid", cache: false })).total, 0);
  });

  test("default fusion weighs the legs by the query: half the semantic weight unless it reads as a question (#22)", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    await idx.warmup();
    const linear = (semantic_weight) => ({ method: "linear", keyword_weight: 1, semantic_weight });
    const answer = async (q, fusion) => {
      const r = await idx.search(q, { mode: "hybrid", limit: 10, ...(fusion ? { fusion } : {}) });
      return r.results.map((h) => `${h.id} ${h.score}`);
    };
    let leaned = 0;
    for (const q of ["search as you type", "Japanese text segmentation", "widget colours", "index file damaged", "ranking headings body"]) {
      const byDefault = await answer(q);
      assert.deepEqual(await answer(q, { method: "auto" }), byDefault, q);
      assert.deepEqual(byDefault, await answer(q, linear(0.5)), `${q}: a keyword-style query blends at 1 : 0.5`);
      if (JSON.stringify(byDefault) !== JSON.stringify(await answer(q, linear(1)))) leaned++;
    }
    assert.ok(leaned > 0, "no keyword-style query ranked differently from equal weights: the test shows nothing");
    for (const q of ["how do I install it", "what happens when the index file is damaged?"]) {
      assert.deepEqual(await answer(q), await answer(q, linear(1)), `${q}: a question blends at 1 : 1`);
    }
    await assert.rejects(idx.search("search", { mode: "hybrid", fusion: { method: "routed" } }), (e) => e.code === "INVALID_OPTION" && /"auto"/.test(e.message));
  });

  test("semantic mode waits for the module and finds a paraphrase", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    // None of these words is in the target's heading; it is found by meaning.
    const r = await idx.search("my browser tab has no internet connection, can I still look things up", { mode: "semantic", limit: 5 });
    assert.equal(r.mode, "semantic");
    assert.ok(r.results.some((h) => h.path === "getting-started/offline.md"), r.results.map((h) => `${h.path}#${h.anchor}`).join(" "));
  });

  test("nonsense finds nothing in any mode once the model is ready, with the same answer as the CLI (#22 item 2)", async () => {
    const idx = await Midashi.load(dir);
    after(() => idx.close());
    await idx.warmup();
    for (const q of ["xylophonequartz", "asdfghjk", "zumatek plinovar"]) {
      for (const mode of ["auto", "keyword", "semantic", "hybrid"]) {
        const r = await idx.search(q, { mode, cache: false });
        assert.equal(r.total, 0, `${q} (${mode}): ${r.results.map((h) => h.id).join(" ")}`);
        assert.deepEqual(r.results, []);
      }
    }
    const real = await idx.search("my browser tab has no internet connection, can I still look things up", { mode: "semantic", cache: false });
    assert.ok(real.total > 0);
  });

  test("a missing model fails semantic search clearly; keyword search goes on", async () => {
    const { readdirSync } = await import("node:fs");
    const model = readdirSync(dir).find((f) => f.startsWith("model.") && f.endsWith(".bin"));
    assert.ok(model);
    const broken = copyIndexWith(dir, model, (b) => b.subarray(0, 1000));
    const idx = await Midashi.load(broken);
    after(() => idx.close());
    const failed = nextState(idx, "failed", "ready");
    await assert.rejects(idx.warmup(), (e) => e.code === "SEMANTIC_UNAVAILABLE" && /model/.test(e.message));
    assert.equal((await failed).state, "failed");
    assert.equal(idx.semanticState, "failed");
    assert.match(idx.semanticError.message, /model/);
    const r = await idx.search("install", { mode: "hybrid" });
    assert.equal(r.mode, "keyword");
    assert.ok(r.results.length > 0);
    await assert.rejects(idx.search("install", { mode: "semantic" }), (e) => e.code === "SEMANTIC_UNAVAILABLE");
  });

  test("a model file with one flipped bit is refused as CORRUPTED, not used (#27 item 2); keyword search goes on", async () => {
    const { readdirSync } = await import("node:fs");
    const model = readdirSync(dir).find((f) => f.startsWith("model.") && f.endsWith(".bin"));
    const flipped = copyIndexWith(dir, model, (b) => {
      const c = Buffer.from(b);
      c[Math.floor(c.length / 2)] ^= 0x10;
      return c;
    });
    const idx = await Midashi.load(flipped);
    after(() => idx.close());
    // Semantic search is unavailable because the model is damaged: the cause says which file.
    await assert.rejects(idx.warmup(), (e) => e.code === "SEMANTIC_UNAVAILABLE" && e.cause?.code === "CORRUPTED" && /does not match the sha256/.test(e.message) && e.message.includes(model));
    assert.equal(idx.semanticState, "failed");
    const r = await idx.search("install", { mode: "hybrid" });
    assert.equal(r.mode, "keyword");
    assert.ok(r.results.length > 0);
  });

  test("the index ships the encoder file, trimmed, in 4 bits; a modelUrl folder from prepare-model answers an index built without one nearly alike", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const names = readdirSync(dir);
    assert.ok(!names.some((f) => f.endsWith(".onnx")), names.join(" "));
    const config = JSON.parse(readFileSync(path.join(dir, names.find((f) => f.startsWith("model-config."))), "utf8"));
    assert.match(config.graph_sha256, /^[0-9a-f]{64}$/);
    assert.notEqual(config.graph_sha256, config.sha256, "the model's identity is its ONNX's, not the encoder file's");
    const tokenizer = names.find((f) => f.startsWith("tokenizer."));
    assert.ok(readFileSync(path.join(dir, tokenizer)).length < readFileSync(path.join(MODEL, "tokenizer.json")).length / 2, "the vocabulary is trimmed to the site's pieces");
    // The documented way to serve the model apart: --no-ship-model, `build-index
    // prepare-model` and modelUrl. The semantic module reads no ONNX: given the model
    // folder itself, it says what to do.
    const bare = await buildSemanticIndex(["--no-ship-model"]);
    assert.ok(!readdirSync(bare).some((f) => f.startsWith("model.")));
    const onnxFolder = await Midashi.load(bare, { modelUrl: MODEL });
    after(() => onnxFolder.close());
    await assert.rejects(onnxFolder.warmup(), (e) => e.code === "SEMANTIC_UNAVAILABLE" && /prepare-model/.test(e.message));
    const served = tempDir("midashi-model-");
    await execFileAsync(buildIndexBin(), ["prepare-model", MODEL, "--out", served]);
    assert.deepEqual(readdirSync(served).sort(), ["midashi-model.json", "model.bin", "tokenizer.json"]);
    const shipped = await Midashi.load(dir);
    after(() => shipped.close());
    const own = await Midashi.load(bare, { modelUrl: served });
    after(() => own.close());
    await Promise.all([shipped.warmup(), own.warmup()]);
    // Both copies' weights are 4-bit `MQ4G` entries (docs/index-format.md). The shipped one
    // rounds them with the site's text in view, the down-projections too; prepare-model has
    // no site, rounds to nearest and keeps those in 6 bits (`MQ6G`). The shipped one's
    // vocabulary is trimmed to the site's pieces, which groups the word table's rows into
    // other 4-bit blocks. Questions in the docs' words and common English: the same best
    // answer up to a near-tie, nearly the same five and scores. (Not "how are results
    // ranked": every section of ranking.md is a near-tie for it, led by its context
    // "Ranking > …", and each copy, the exact model too, puts another first.)
    const graph = readFileSync(path.join(dir, names.find((f) => f.startsWith("model."))));
    assert.ok(graph.subarray(0, 4).toString() === "MBRT", "the encoder file");
    assert.ok(graph.includes("MQ4G") && !graph.includes("MQ6G"), "every weight of the shipped copy in 4 bits");
    const general = readFileSync(path.join(served, "model.bin"));
    assert.ok(general.includes("MQ4G") && general.includes("MQ6G"), "prepare-model: 4-bit weights beside 6-bit down-projections");
    for (const q of ["can I search without a network connection", "how do I put the search box on my site"]) {
      const a = await shipped.search(q, { mode: "semantic", limit: 5, cache: false });
      const b = await own.search(q, { mode: "semantic", limit: 5, cache: false });
      assert.ok(a.results.length === 5 && b.results.length === 5, q);
      // The same best answer, or one the other copy ties with it (within 0.025): the docs'
      // "The search widget", "Quick start with npm" and "Add the search box" lie within 0.013
      // for the second question, and the two roundings order them differently.
      const nearBest = (x, y) => {
        const scores = new Map(y.results.map((h) => [h.id, h.score]));
        return scores.has(x.results[0].id) && y.results[0].score - scores.get(x.results[0].id) < 0.025;
      };
      assert.ok(nearBest(a, b) && nearBest(b, a), `${q}: ${a.results[0].heading} / ${b.results[0].heading}`);
      const exact = new Map(b.results.map((h) => [h.id, h.score]));
      const shared = a.results.filter((h) => exact.has(h.id));
      assert.ok(shared.length >= 4, `${q}: ${shared.length} of 5 shared`);
      for (const h of shared) assert.ok(Math.abs(h.score - exact.get(h.id)) < 0.05, `${q}: ${h.id} ${h.score} vs ${exact.get(h.id)}`);
    }
  });

  test("the browser's encoder gives the CLI's query vectors bit for bit (one integer arithmetic on both)", async () => {
    const { readdirSync, readFileSync, writeFileSync } = await import("node:fs");
    const { pathToFileURL } = await import("node:url");
    const names = readdirSync(dir);
    const file = (prefix) => readFileSync(path.join(dir, names.find((f) => f.startsWith(prefix))));
    const glue = await import(pathToFileURL(path.join(DIST, "embed/midashi_wasm_embed.js")).href);
    await glue.default({ module_or_path: readFileSync(path.join(DIST, "embed/midashi_wasm_embed_bg.wasm")) });
    const embedder = new glue.WasmEmbedder(file("model."), file("tokenizer."), file("model-config.").toString("utf8"));
    after(() => embedder.free());
    const queries = ["how are results ranked", "Can I search without a network connection?", "x", "section-level hybrid search with a long query that goes on and on ".repeat(12)];
    const work = tempDir("midashi-vectors-");
    writeFileSync(path.join(work, "q.jsonl"), queries.map((text, i) => JSON.stringify({ _id: String(i), text })).join("\n") + "\n");
    await execFileAsync(buildIndexBin(), ["vectors", dir, "--queries", path.join(work, "q.jsonl"), "--out", path.join(work, "v.jsonl")]);
    const native = readFileSync(path.join(work, "v.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(native.length, queries.length);
    for (const [i, text] of queries.entries()) {
      const ours = embedder.embed(text);
      const theirs = Float32Array.from(native.find((v) => String(v._id ?? v.id) === String(i)).vector);
      assert.equal(ours.length, theirs.length);
      const differ = ours.findIndex((v, j) => v !== theirs[j]);
      assert.equal(differ, -1, `query ${i}: value ${differ} is ${ours[differ]} in wasm, ${theirs[differ]} natively`);
    }
  });

  test("keyword-only indexes and `semantic: \"off\"` never load the module", async () => {
    const off = await Midashi.load(dir, { semantic: "off" });
    after(() => off.close());
    assert.equal(off.semanticState, "unavailable");
    const r = await off.search("install", { mode: "hybrid" });
    assert.equal(r.mode, "keyword");
    assert.equal(r.semanticPending, undefined);
    await assert.rejects(off.warmup(), (e) => e.code === "SEMANTIC_UNAVAILABLE" && /off/.test(e.message));
    assert.equal(off.semanticState, "unavailable");
  });
});
