// The search box people expect (#23), in headless Chromium over the demo site (Midashi's own
// docs/ built with --site): filter chips with counts that narrow the list and survive in the
// deep link, several indexes in one box, quoted phrases, excluded words and transposed typos
// answered as the CLI answers them, and a screenshot for the widget's docs.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ROOT, buildIndexBin, buildSite, launch, openPage, record, remove, search, serve } from "./helpers.mjs";

let site;
let server;
let browser;

before(async () => {
  site = buildSite(join(ROOT, "docs"), { name: "search-box" });
  // A second index (another docs set: one page of its own) and a page whose box searches both.
  const other = mkdtempSync(join(tmpdir(), "midashi-other-docs-"));
  writeFileSync(join(other, "fruit.md"), "# Kumquat\n\nHow to install a kumquat tree.\n");
  execFileSync(buildIndexBin(), [other, "--out", join(site, "other-search"), "--keyword-only", "--quiet"], { stdio: ["ignore", "ignore", "inherit"] });
  remove(other);
  writeFileSync(
    join(site, "multi.html"),
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Two indexes</title><link rel="icon" href="data:,">' +
      '<script type="module" src="/search/midashi.js"></script></head><body><midashi-search indexes="docs=/search/ other=/other-search/"></midashi-search></body></html>',
  );
  server = await serve(site);
  browser = await launch();
  await record(browser.context);
});

after(async () => {
  await browser?.close();
  await server?.close();
  remove(site);
});

const open = (path = "/index.html") => openPage(browser.context, server.url + path);

/** What the CLI answers on the site's index: ids in order (the reader's language first, as the
 * widget on the English pages asks). */
function cli(query) {
  const out = execFileSync(buildIndexBin(), ["search", join(site, "search"), query, "--json", "--limit", "5", "--prefer-lang", "en"], { encoding: "utf8" });
  return JSON.parse(out).results.map((h) => h.id);
}

const chips = (page) => page.locator("midashi-search .facets .chip");

describe("filters", () => {
  test("chips show each facet's counts for the query; one narrows the list, again widens it", async () => {
    const { page, problems } = await open();
    await page.keyboard.press("Control+k");
    const all = await search(page, "install");
    assert.ok(all.facets?.category.length > 1, JSON.stringify(all.facets));
    await chips(page).first().waitFor();
    // One chip per category value shown, with its count.
    const shown = await page.evaluate(() =>
      [...document.querySelector("midashi-search").shadowRoot.querySelectorAll('.chip[data-facet="category"]')].map((c) => [c.dataset.value, Number(c.querySelector(".count").textContent)]),
    );
    assert.deepEqual(shown, all.facets.category.slice(0, 8).map((f) => [f.value, f.count]));
    const [value, count] = shown[0];
    const seen = await page.evaluate(() => window.__midashi.results.length);
    await page.locator(`midashi-search .chip[data-facet="category"][data-value="${value}"]`).click();
    const narrowed = await page
      .waitForFunction((seen) => window.__midashi.results.slice(seen).at(-1)?.response, seen)
      .then((h) => h.jsonValue());
    assert.equal(narrowed.total, count);
    assert.ok(narrowed.results.every((h) => h.path.startsWith(`${value}/`) || value === h.path.split("/")[0]), JSON.stringify(narrowed.results.map((h) => h.path)));
    assert.equal(await page.locator(`midashi-search .chip[aria-pressed="true"]`).count(), 1);
    // The input keeps the focus: typing goes on.
    assert.equal(await page.evaluate(() => document.querySelector("midashi-search").shadowRoot.activeElement?.getAttribute("role")), "combobox");
    const again = await page.evaluate(() => window.__midashi.results.length);
    await page.locator(`midashi-search .chip[aria-pressed="true"]`).click();
    const widened = await page
      .waitForFunction((seen) => window.__midashi.results.slice(seen).at(-1)?.response, again)
      .then((h) => h.jsonValue());
    assert.equal(widened.total, all.total);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a deep link's filter=category:… is chosen with its ?q=", async () => {
    const { page, problems } = await open("/index.html?q=install&filter=category:cli");
    const response = await page
      .waitForFunction(() => window.__midashi.results.at(-1)?.response)
      .then((h) => h.jsonValue());
    assert.ok(response.total > 0);
    assert.ok(response.results.every((h) => h.path.startsWith("cli/")), JSON.stringify(response.results.map((h) => h.path)));
    await page.locator('midashi-search .chip[aria-pressed="true"][data-value="cli"]').waitFor();
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("query syntax and typos, as the CLI answers", () => {
  for (const q of ['"index format"', "widget -shortcuts", "serach", "tokenzier"]) {
    test(q, async () => {
      const { page, problems, w } = await open();
      await page.keyboard.press("Control+k");
      const response = await search(page, q);
      assert.deepEqual(response.results.map((h) => h.id), cli(q));
      assert.ok(response.results.length > 0, `${q}: no results`);
      await w.options.first().waitFor();
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  test("a phrase finds fewer sections than its words, all holding it", async () => {
    const { page } = await open();
    await page.keyboard.press("Control+k");
    const loose = await search(page, "index format");
    const phrase = await search(page, '"index format"');
    assert.ok(phrase.total < loose.total, `${phrase.total} vs ${loose.total}`);
    for (const h of phrase.results) {
      const text = await page.evaluate((id) => document.querySelector("midashi-search").searchSource.getSection(id).then((s) => s.text), h.id);
      // Words next to each other, as the engine tokenises: punctuation between them does not
      // part them ("… a 1.3 sharded index. Format 1.5 adds …" holds the phrase).
      assert.match(text.toLowerCase(), /index\W+formats?/, h.heading);
    }
    await page.close();
  });
});

describe("several indexes in one box", () => {
  test("indexes=\"docs=… other=…\" searches both, each hit naming its index", async () => {
    const { page, problems, w } = await open("/multi.html");
    await page.keyboard.press("Control+k");
    // Hits are merged by the engines' scores (as loadMany does): each index answers its words.
    const fruit = await search(page, "kumquat");
    assert.deepEqual([fruit.results[0]?.index, fruit.results[0]?.heading], ["other", "Kumquat"]);
    await w.options.first().waitFor();
    const docs = await search(page, "install");
    assert.ok(docs.results.length > 0 && docs.results.every((h) => h.index === "docs"));
    const both = await page.evaluate(() => document.querySelector("midashi-search").searchSource.search("kumquat install", { limit: 20 }));
    assert.deepEqual([...new Set(both.results.map((h) => h.index))].sort(), ["docs", "other"]);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("languages", () => {
  test("the widget speaks the page's language, matched from its tag", async () => {
    const { page, problems, w } = await open();
    const label = () => page.locator("midashi-search .trigger .label").textContent();
    // A language besides English and Japanese is fetched when first asked for (strings/<tag>.js):
    // the button's words are hidden until it is there, then every word is that language's.
    const shown = (button) =>
      page.waitForFunction((b) => {
        const t = document.querySelector("midashi-search").shadowRoot.querySelector(".trigger");
        return !t.classList.contains("pending") && t.querySelector(".label").textContent === b;
      }, button);
    for (const [tag, button] of [["de-CH", "Suche"], ["zh-Hant", "搜尋"], ["zh", "搜索"], ["ko", "검색"], ["pt-PT", "Pesquisar"], ["ru", "Поиск"], ["nl", "Search"], ["ja-JP", "検索"]]) {
      await page.evaluate((t) => document.querySelector("midashi-search").setAttribute("lang", t), tag);
      await shown(button);
      assert.equal(await label(), button, tag);
    }
    await page.evaluate(() => document.querySelector("midashi-search").setAttribute("lang", "fr"));
    await shown("Rechercher");
    await page.keyboard.press("Control+k");
    assert.equal(await w.input.getAttribute("placeholder"), "Rechercher dans la documentation");
    const response = await search(page, "install");
    await page.waitForFunction((n) => document.querySelector("midashi-search").shadowRoot.querySelector("[role=status]").textContent.includes(`${n} résultats`), response.total);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("the reader's language first", () => {
  test("on a Japanese page the Japanese pages lead, on an English one they do not; nothing is left out", async () => {
    const english = await open("/index.html");
    await english.page.keyboard.press("Control+k");
    const en = await search(english.page, "search");
    const { page, problems } = await open("/ja/index.html");
    assert.equal(await page.evaluate(() => document.documentElement.lang), "ja");
    await page.keyboard.press("Control+k");
    const ja = await search(page, "search");
    assert.ok(ja.results[0].path.startsWith("ja/"), ja.results.map((h) => h.path).join(" "));
    assert.ok(!en.results[0].path.startsWith("ja/"), en.results.map((h) => h.path).join(" "));
    // The same results, reordered: the totals agree.
    assert.equal(ja.total, en.total);
    assert.deepEqual(problems, []);
    await page.close();
    await english.page.close();
  });
});

describe("screenshot", () => {
  test("results with excerpts and filter chips (docs/assets/widget-filters.png)", async () => {
    const { page } = await open();
    await page.setViewportSize({ width: 900, height: 700 });
    await page.keyboard.press("Control+k");
    await search(page, "install");
    await chips(page).first().waitFor();
    const out = join(process.env.MIDASHI_SCREENSHOTS ?? join(ROOT, "target"), "widget-filters.png");
    await page.screenshot({ path: out });
    await page.close();
  });
});
