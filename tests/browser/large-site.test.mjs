// The widget as shipped on a large site (#24), in headless Chromium: a common word's page is
// found without ranking every result (the page's language is no obstacle on a site in one
// language), and its filter chips and exact count follow once typing pauses — the counts the
// JS API gives with `facets: true`, and a chip narrows to its count.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, openPage, search, siteUnderTest } from "./helpers.mjs";

// One version of the PowerShell reference: ~12k sections in ten module folders (categories).
const under = siteUnderTest(join(ROOT, "../shared/corpora/powershell-docs/7.5"), { name: "large-site" });

const chipsShown = (page) =>
  page.evaluate(() =>
    [...document.querySelector("midashi-search").shadowRoot.querySelectorAll('.chip[data-facet="category"]')].map((c) => [c.dataset.value, Number(c.querySelector(".count").textContent)]),
  );

test("a large site is served the keyword module, which has the bound", () => {
  const served = readFileSync(join(under.site, "search/wasm/midashi_keyword_bg.wasm"));
  assert.ok(served.equals(readFileSync(join(ROOT, "web/dist/wasm/midashi_keyword_bg.wasm"))));
});

test("a common word's page comes at once; its chips and exact count once typing pauses", async () => {
  const { page, problems } = await openPage(under.browser.context, `${under.server.url}/index.html`);
  await page.keyboard.press("Control+k");
  const q = "parameter value";
  const first = await search(page, q);
  assert.equal(first.total_exact, false, "found without ranking every result");
  assert.equal(first.facets, null, "not counted with the page");
  assert.ok(first.results.length > 0);
  // Then the counts: the status loses its "+", the chips appear.
  await page.waitForFunction(() => {
    const root = document.querySelector("midashi-search").shadowRoot;
    return root.querySelectorAll(".chip").length > 0 && !root.querySelector("[role=status]").textContent.includes("+");
  });
  const { Midashi } = await import(join(ROOT, "web/dist/index.js"));
  const idx = await Midashi.load(join(under.site, "search"));
  try {
    const counted = await idx.search(q, { limit: 5, previewLines: 3, preferLang: "en", facets: true, mode: "keyword" });
    assert.equal(counted.total_exact, true);
    assert.deepEqual(await chipsShown(page), counted.facets.category.slice(0, 8).map((f) => [f.value, f.count]));
    const status = await page.evaluate(() => document.querySelector("midashi-search").shadowRoot.querySelector("[role=status]").textContent);
    assert.ok(status.startsWith(`${counted.total} results`), `${status} / ${counted.total}`);
    // The page shown is the one ranking every result gives.
    assert.deepEqual(first.results.map((h) => h.id), counted.results.map((h) => h.id));
  } finally {
    idx.close();
  }
  // A chip narrows the list to its count.
  const [value, count] = (await chipsShown(page))[0];
  const seen = await page.evaluate(() => window.__midashi.results.length);
  await page.locator(`midashi-search .chip[data-facet="category"][data-value="${value}"]`).click();
  const narrowed = await page.waitForFunction((seen) => window.__midashi.results.slice(seen).at(-1)?.response, seen).then((h) => h.jsonValue());
  assert.equal(narrowed.total, count);
  assert.equal(narrowed.total_exact, true);
  assert.deepEqual(problems, []);
  await page.close();
});
