// Semantic search from a static table (#69) as a visitor meets it, in headless Chromium over
// Midashi's own docs built with `--site --semantic static`, every query typed one key at a
// time: keyword typing and nonsense fetch nothing of the leg; a typed question, once settled,
// fetches the vectors and the table only (no model, no semantic module, no full engine), and
// the fused list replaces the keyword one. Prints the bytes the question cost. The same for a
// Japanese site built by default (`--semantic auto`) with multilingual-e5-small: its table is
// cut by SentencePiece Unigram pieces in the keyword module.

import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ROOT, openPage, siteUnderTest, typed } from "./helpers.mjs";

const s = siteUnderTest(join(ROOT, "docs"), { name: "static-table", semantic: "static" });

const E5 = process.env.MIDASHI_E5_DIR ?? join(ROOT, "models", "multilingual-e5-small");
const VUE_JA = join(process.env.MIDASHI_SHARED ?? join(ROOT, "..", "shared"), "corpora", "vue-docs-ja", "guide", "essentials");
for (const [need, how] of [
  [join(E5, "model.onnx"), "run scripts/fetch-e5.sh"],
  [VUE_JA, "../shared/corpora is missing"],
]) {
  if (!existsSync(need)) throw new Error(`${need} is missing (${how})`);
}
/**
 * A few pages of the Japanese Vue guide, as a small site of their own. In one folder from run
 * to run: the embedding cache is kept per docs folder, so a temporary one would add files to
 * it on every run and never read them.
 */
function japanesePages() {
  const dir = join(ROOT, ".cache", "test-docs", "vue-ja-essentials");
  mkdirSync(dir, { recursive: true });
  for (const f of ["computed.md", "watchers.md", "template-refs.md", "event-handling.md", "forms.md"]) {
    copyFileSync(join(VUE_JA, f), join(dir, f));
  }
  return dir;
}
const ja = siteUnderTest(japanesePages(), { name: "static-table-ja", semantic: "auto", model: E5 });

/** Every request `page` finishes, with its path and body bytes, in `requests`. */
function recordRequests(page) {
  const requests = [];
  page.on("requestfinished", async (r) => {
    const sizes = await r.sizes().catch(() => ({ responseBodySize: 0 }));
    requests.push({ path: new URL(r.url()).pathname, bytes: sizes.responseBodySize });
  });
  return requests;
}
const leg = (p) => /(table|vectors|tree)\.[0-9a-f]+\.bin$/.test(p);
const never = (p) => /embed|model\.|midashi_wasm_bg\.wasm/.test(p);

describe("a site with a static table", () => {
  test("typing fetches nothing of the leg; a settled question fetches the table and the vectors, and answers hybrid", async () => {
    const { page, problems } = await openPage(s.browser.context, s.server.url + "/index.html");
    const requests = recordRequests(page);
    await page.keyboard.press("Control+k");
    const type = (q) => typed(page, q);
    for (const q of ["widget", "ranking", "sharded layout", "xqzvw plorbtek"]) {
      const r = await type(q);
      assert.equal(r.semanticPending, undefined, q);
      assert.ok(!requests.some((x) => leg(x.path)), `${q}: ${requests.map((x) => x.path).filter(leg).join(" ")}`);
    }
    const before = requests.length;
    const question = "how do I make search work without a network";
    const keyword = await type(question);
    assert.equal(keyword.semanticReason, "question");
    const handle = await page.waitForFunction((q) => window.__midashi.results.findLast((r) => r.query === q && r.response.mode === "hybrid")?.response, question, { timeout: 60_000 });
    const hybrid = await handle.jsonValue();
    assert.ok(hybrid.results.length > 0);
    const fetched = requests.slice(before);
    assert.ok(fetched.some((x) => /table\./.test(x.path)) && fetched.some((x) => /vectors\./.test(x.path)), fetched.map((x) => x.path).join(" "));
    assert.deepEqual(fetched.map((x) => x.path).filter(never), [], `no model, no semantic module, no full engine for the question (before it: ${requests.slice(0, before).map((x) => x.path).filter(never)})`);
    const legBytes = fetched.filter((x) => leg(x.path)).reduce((n, x) => n + x.bytes, 0);
    console.log(`# the question's semantic leg: ${fetched.filter((x) => leg(x.path)).map((x) => `${x.path.split("/").pop()} ${x.bytes}`).join(", ")}; ${legBytes} bytes as served (uncompressed)`);
    await page.waitForFunction(() => document.querySelector("midashi-search").shadowRoot.querySelector("[role=status]").textContent.includes("Semantic results included"));
    await page.screenshot({ path: join(ROOT, "target", "static-table-question.png") });
    const none = await type("xqzvw plorbtek");
    assert.equal(none.results.length, 0);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("a Japanese site's default build (multilingual-e5-small's table)", () => {
  test("keyword typing fetches nothing of the leg; a typed question fetches the table and the vectors only, and answers hybrid", async () => {
    const { page, problems } = await openPage(ja.browser.context, ja.server.url + "/index.html");
    const requests = recordRequests(page);
    await page.keyboard.press("Control+k");
    for (const q of ["算出プロパティ", "ウォッチャー", "xqzvw plorbtek"]) {
      const r = await typed(page, q);
      assert.equal(r.semanticPending, undefined, q);
      assert.ok(!requests.some((x) => leg(x.path)), `${q}: ${requests.map((x) => x.path).filter(leg).join(" ")}`);
    }
    const before = requests.length;
    const question = "DOM 要素に直接アクセスするにはどうすればいいですか";
    const keyword = await typed(page, question);
    assert.equal(keyword.semanticReason, "question");
    const handle = await page.waitForFunction((q) => window.__midashi.results.findLast((r) => r.query === q && r.response.mode === "hybrid")?.response, question, { timeout: 60_000 });
    const hybrid = await handle.jsonValue();
    assert.equal(hybrid.results[0]?.path, "template-refs.md", hybrid.results.map((h) => h.path).join(" "));
    const fetched = requests.slice(before);
    assert.ok(fetched.some((x) => /table\./.test(x.path)) && fetched.some((x) => /vectors\./.test(x.path)), fetched.map((x) => x.path).join(" "));
    assert.deepEqual(fetched.map((x) => x.path).filter(never), [], "no model, no semantic module, no full engine for the question");
    const legBytes = fetched.filter((x) => leg(x.path)).reduce((n, x) => n + x.bytes, 0);
    console.log(`# the Japanese question's semantic leg: ${legBytes} bytes as served (uncompressed)`);
    await page.screenshot({ path: join(ROOT, "target", "static-table-question-ja.png") });
    assert.deepEqual(problems, []);
    await page.close();
  });
});
