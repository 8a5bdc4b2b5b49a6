// <midashi-search> in headless Chromium, over the demo: Midashi's own docs/ built with
// `build-index docs/ --site` and served from 127.0.0.1. Keyboard, ARIA, IME, highlights,
// deep links, same-origin loading, recent searches, ?q=, themes and axe-core.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ROOT, anchorExists, buildIndexBin, buildSite, launch, newPage, openPage, record, remove, search, serve, typed, widget } from "./helpers.mjs";

const require = createRequire(import.meta.url);

let site;
let server;
let browser;

before(async () => {
  site = buildSite(join(ROOT, "docs"), { name: "demo" });
  server = await serve(site);
  browser = await launch();
  await record(browser.context);
});

after(async () => {
  await browser?.close();
  await server?.close();
  remove(site);
});

/** A fresh page on `path` with the problems list it reports into. */
const open = (path = "/index.html") => openPage(browser.context, server.url + path);

describe("opening and closing", () => {
  test("Ctrl+K, Meta+K and / open the dialog with the input focused; Esc closes and restores focus", async () => {
    const { page, problems, w } = await open();
    await assert.doesNotReject(w.trigger.waitFor());
    assert.equal(await w.dialog.isVisible(), false);

    await page.keyboard.press("Control+k");
    await w.dialog.waitFor({ state: "visible" });
    assert.equal(await w.input.evaluate((el) => el.getRootNode().activeElement === el), true);
    await page.keyboard.press("Escape");
    await w.dialog.waitFor({ state: "hidden" });

    await page.keyboard.press("Meta+k");
    await w.dialog.waitFor({ state: "visible" });
    await page.keyboard.press("Escape");
    await w.dialog.waitFor({ state: "hidden" });

    await page.keyboard.press("/");
    await w.dialog.waitFor({ state: "visible" });
    // The slash opened the box; it was not typed into it.
    assert.equal(await w.input.inputValue(), "");
    await page.keyboard.press("Escape");
    await w.dialog.waitFor({ state: "hidden" });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("Esc closes from the close button and from a result too, not only from the input", async () => {
    const { page, problems, w } = await open();
    await page.keyboard.press("Control+k");
    await search(page, "widget");
    await page.locator("midashi-search .close").focus();
    await page.keyboard.press("Escape");
    await w.dialog.waitFor({ state: "hidden" });
    await page.keyboard.press("Control+k");
    await w.dialog.waitFor({ state: "visible" });
    // The scrolling result area, reached with Tab.
    await page.locator("midashi-search .body").focus();
    await page.keyboard.press("Escape");
    await w.dialog.waitFor({ state: "hidden" });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the shortcuts attribute: another key, or none", async () => {
    const { page, w } = await open();
    await page.evaluate(() => document.querySelector("midashi-search").setAttribute("shortcuts", "alt+s"));
    assert.equal(await page.locator("midashi-search .trigger kbd").textContent(), "Alt S");
    assert.equal(await w.trigger.getAttribute("aria-keyshortcuts"), "Alt+S");
    await page.keyboard.press("Control+k");
    await page.keyboard.press("/");
    assert.equal(await w.dialog.isVisible(), false, "the default keys are the page's again");
    await page.keyboard.press("Alt+s");
    await w.dialog.waitFor({ state: "visible" });
    await page.keyboard.press("Escape");
    await page.evaluate(() => document.querySelector("midashi-search").setAttribute("shortcuts", "off"));
    assert.equal(await w.trigger.getAttribute("aria-keyshortcuts"), null);
    assert.equal(await page.locator("midashi-search .trigger kbd").isVisible(), false);
    await page.keyboard.press("Alt+s");
    await page.keyboard.press("Control+k");
    assert.equal(await w.dialog.isVisible(), false);
    // The button still opens it.
    await w.trigger.click();
    await w.dialog.waitFor({ state: "visible" });
    await page.close();
  });

  test("/ typed in a field of the page is just a slash", async () => {
    const { page, w } = await open();
    await page.evaluate(() => {
      const input = document.createElement("input");
      input.id = "other";
      input.setAttribute("aria-label", "other");
      document.body.prepend(input);
    });
    await page.locator("#other").focus();
    await page.keyboard.type("a/b");
    assert.equal(await page.locator("#other").inputValue(), "a/b");
    assert.equal(await w.dialog.isVisible(), false);
    await page.close();
  });

  test("?q= in the URL opens the search with that query", async () => {
    const { page, w } = await open("/index.html?q=wasm");
    await w.dialog.waitFor({ state: "visible" });
    assert.equal(await w.input.inputValue(), "wasm");
    await w.options.first().waitFor();
    assert.ok((await w.options.count()) > 0);
    await page.close();
  });
});

describe("the site", () => {
  test("every link of the pages (sidebar, breadcrumbs, Markdown links between docs) leads to a page", async () => {
    const { page, problems } = await open();
    const pages = await page.evaluate(() => [...document.querySelectorAll(".sidebar a")].map((a) => a.href));
    const links = new Set();
    let inArticles = 0;
    for (const url of pages) {
      await page.goto(url);
      for (const href of await page.evaluate(() => [...document.querySelectorAll("a[href]")].map((a) => a.href))) links.add(href.split("#")[0]);
      inArticles += await page.locator("article a[href$='.html'], article a[href*='.html#']").count();
    }
    const broken = [];
    for (const href of links) {
      if (!href.startsWith(server.url)) continue;
      const res = await page.request.get(href);
      if (res.status() !== 200) broken.push(`${res.status()} ${href}`);
    }
    assert.deepEqual(broken, []);
    assert.ok(inArticles > 10, "the docs' own Markdown links became page links");
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("results", () => {
  test("grouped by document, with breadcrumbs and <mark> highlights, and ARIA combobox state", async () => {
    const { page, problems, w } = await open();
    await page.keyboard.press("Control+k");
    const response = await search(page, "index format");
    assert.ok(response.results.length > 0, "the docs mention the index format");
    await w.options.first().waitFor();

    // One group per document, in order of each document's best hit.
    const paths = [...new Set(response.results.map((h) => h.path))];
    assert.equal(await w.groups.count(), paths.length);
    // One option per result, and "Show more results" last when more match than a page.
    const more = response.total > response.results.length ? 1 : 0;
    assert.equal(await w.options.count(), response.results.length + more);
    assert.ok((await w.marks.count()) > 0, "matched words are marked");
    const marked = (await w.marks.allTextContents()).map((t) => t.toLowerCase());
    assert.ok(marked.some((t) => t.startsWith("index")) && marked.some((t) => t.startsWith("format")), `marks: ${marked.join(", ")}`);
    // Marks cover whole words: the offsets line up with the text shown (no "s|earch").
    const cut = await page.evaluate(() =>
      [...document.querySelector("midashi-search").shadowRoot.querySelectorAll("[role=option] mark")].filter((m) => {
        const before = m.previousSibling?.textContent ?? "";
        return /[A-Za-z]$/.test(before) || !/^[A-Za-z]/.test(m.textContent);
      }).length,
    );
    assert.equal(cut, 0, "every mark starts a word");

    // ARIA combobox pattern.
    assert.equal(await w.input.getAttribute("aria-expanded"), "true");
    const controls = await w.input.getAttribute("aria-controls");
    assert.equal(await w.listbox.getAttribute("id"), controls);
    const first = await w.options.first().getAttribute("id");
    assert.equal(await w.input.getAttribute("aria-activedescendant"), first);
    assert.equal(await w.options.first().getAttribute("aria-selected"), "true");
    await page.keyboard.press("ArrowDown");
    const second = await w.options.nth(1).getAttribute("id");
    assert.equal(await w.input.getAttribute("aria-activedescendant"), second);
    assert.equal(await w.options.first().getAttribute("aria-selected"), "false");
    await page.keyboard.press("ArrowUp");
    assert.equal(await w.input.getAttribute("aria-activedescendant"), first);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("each result shows its excerpt: plain text around the matched words, marked, even deep in its section", async () => {
    const { page, problems, w } = await open();
    await page.keyboard.press("Control+k");
    // "brotli" first occurs in the bytes table, lines below its section's heading.
    const response = await search(page, "brotli");
    const top = response.results[0];
    assert.ok(top.excerpt_line > top.start_line + 3, `line ${top.excerpt_line} of ${top.start_line}-${top.end_line}`);
    await w.options.first().waitFor();
    const shown = await w.options.first().locator(".preview").textContent();
    assert.equal(shown, top.excerpt);
    assert.ok(!/[|`#]/.test(shown), `no Markdown syntax: ${shown}`);
    const marks = await w.options.first().locator(".preview mark").allTextContents();
    assert.ok(marks.length > 0 && marks.every((m) => m.toLowerCase() === "brotli"), marks.join(", "));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("arrows + Enter land on the result's page and anchor", async () => {
    const { page, problems, w } = await open();
    await page.keyboard.press("Control+k");
    const response = await search(page, "IME composition");
    assert.ok(response.results.length >= 2);
    await w.options.first().waitFor();
    await page.keyboard.press("ArrowDown");
    // Options are shown grouped by document: the second option in display order.
    const order = [...new Set(response.results.map((h) => h.path))];
    const displayed = order.flatMap((p) => response.results.filter((h) => h.path === p));
    const hit = displayed[1];
    const href = await page.evaluate((h) => document.querySelector("midashi-search").hrefFor(h), hit);
    await Promise.all([page.waitForURL(href), page.keyboard.press("Enter")]);
    const url = new URL(page.url());
    assert.equal(decodeURIComponent(url.hash.slice(1)), hit.anchor ?? "");
    if (hit.anchor) assert.ok(await anchorExists(page, hit.anchor), `#${hit.anchor} exists on ${url.pathname}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a page of five, then \"Show more results\" appends the next five and keeps the reader's place", async () => {
    const { page, problems, w } = await open();
    await page.keyboard.press("Control+k");
    const first = await search(page, "index");
    assert.equal(first.results.length, 5, "a page is five results");
    assert.ok(first.total > 10, `enough matches for two pages (${first.total})`);
    const more = page.locator("midashi-search .more-results");
    assert.equal(await more.count(), 1);
    assert.match(await more.textContent(), new RegExp(`${first.total - 5} more`));
    assert.equal(await w.options.last().getAttribute("class"), await more.getAttribute("class"), "the last option");

    // By keyboard: down to the last option, Enter.
    const seen = await page.evaluate(() => window.__midashi.results.length);
    for (let i = 0; i < 8 && (await w.options.last().getAttribute("aria-selected")) !== "true"; i++) await page.keyboard.press("ArrowDown");
    assert.equal(await w.options.last().getAttribute("aria-selected"), "true");
    await page.keyboard.press("Enter");
    const next = await (await page.waitForFunction((n) => window.__midashi.results[n]?.response, seen)).jsonValue();
    assert.equal(next.results.length, 10);
    assert.deepEqual(next.results.slice(0, 5).map((h) => h.id), first.results.map((h) => h.id));

    // The ten equal one search for ten through the package's API.
    const ten = await page.evaluate(async () => {
      const r = await document.querySelector("midashi-search").searchSource.search("index", { limit: 10, previewLines: 3, preferLang: document.documentElement.lang });
      return r.results.map((h) => h.id);
    });
    assert.deepEqual(next.results.map((h) => h.id), ten);
    assert.equal(await w.options.count(), 10 + (next.total > 10 ? 1 : 0));
    // The reader's place: the first new result is the active option.
    const active = await w.input.getAttribute("aria-activedescendant");
    const sixth = await page.evaluate((id) => {
      const root = document.querySelector("midashi-search").shadowRoot;
      return [...root.querySelectorAll("[role=option]")].findIndex((o) => o.id === id);
    }, active);
    const shownOrder = [...new Set(next.results.map((h) => h.path))].flatMap((p) => next.results.filter((h) => h.path === p));
    assert.equal(shownOrder[sixth]?.id, next.results[5].id);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("no results show the message, and suggestions are clickable", async () => {
    const { page, w } = await open();
    await page.keyboard.press("Control+k");
    const none = await search(page, "qqxqzzvvj");
    assert.equal(none.results.length, 0);
    await w.empty.waitFor({ state: "visible" });
    assert.match(await w.empty.textContent(), /No results for “qqxqzzvvj”/);
    assert.equal(await w.input.getAttribute("aria-expanded"), "false");

    // A misspelling: the engine may answer with corrected results or with suggestions.
    const typo = await search(page, "widgett documentaton");
    if (typo.results.length === 0 && typo.suggestions.length > 0) {
      const button = page.locator("midashi-search .suggestion").first();
      const suggestion = await button.textContent();
      await button.click();
      assert.equal(await w.input.inputValue(), suggestion);
    }
    await page.close();
  });

  test("a Japanese query typed through an IME composition is searched once, when it ends", async () => {
    const { page, w } = await open("/ja/index.html");
    await page.keyboard.press("Control+k");
    await w.dialog.waitFor({ state: "visible" });
    const before = await page.evaluate(() => document.querySelector("midashi-search").searchCount);
    await w.input.evaluate(async (input) => {
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      input.dispatchEvent(new CompositionEvent("compositionstart", { data: "" }));
      for (const partial of ["s", "せ", "せい", "せいき", "せいきか", "正規化"]) {
        input.value = partial;
        input.dispatchEvent(new CompositionEvent("compositionupdate", { data: partial }));
        input.dispatchEvent(new InputEvent("input", { data: partial, inputType: "insertCompositionText", isComposing: true }));
        // Longer than the widget's debounce: a search would have started by now.
        await sleep(150);
      }
      input.dispatchEvent(new CompositionEvent("compositionend", { data: "正規化" }));
      input.dispatchEvent(new InputEvent("input", { data: "正規化", inputType: "insertCompositionText", isComposing: false }));
    });
    await page.waitForFunction(() => window.__midashi.results.some((r) => r.query === "正規化"));
    await page.waitForTimeout(300);
    const after = await page.evaluate(() => document.querySelector("midashi-search").searchCount);
    assert.equal(after - before, 1, "exactly one search, after compositionend");
    const searched = await page.evaluate(() => window.__midashi.searches);
    assert.ok(!searched.some((q) => ["s", "せ", "せい", "せいき", "せいきか"].includes(q)), `searched: ${searched.join(", ")}`);
    await w.options.first().waitFor();
    // The Japanese page about normalisation is found, with the query marked.
    const marks = await w.marks.allTextContents();
    assert.ok(marks.some((m) => m.includes("正規")), `marks: ${marks.join(", ")}`);
    // Japanese strings from <html lang="ja">.
    assert.equal(await w.input.getAttribute("placeholder"), "ドキュメントを検索");
    await page.close();
  });

  test("every request goes to the page's own origin", async () => {
    const requests = [];
    const page = await browser.context.newPage();
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(server.url + "/cli/search.html");
    await page.keyboard.press("Control+k");
    await search(page, "preview lines");
    await page.locator("midashi-search [role=option]").first().waitFor();
    const foreign = requests.filter((u) => new URL(u).origin !== server.url && !u.startsWith("data:") && !u.startsWith("blob:"));
    assert.deepEqual(foreign, []);
    assert.ok(requests.some((u) => u.endsWith(".wasm")), "the wasm module was fetched from the site");
    // Keyword search needs only the keyword module; the full engine is not fetched.
    assert.ok(requests.some((u) => u.endsWith("/search/wasm/midashi_keyword_bg.wasm")), requests.join("\n"));
    assert.ok(!requests.some((u) => u.endsWith("/midashi_wasm_bg.wasm")), requests.join("\n"));
    assert.ok(requests.some((u) => u.endsWith("midashi-entry.bin")), "the index was fetched from the site");
    assert.ok(!requests.some((u) => u.includes("midashi-inline.js")), "the file:// bundle is not loaded over HTTP");
    await page.close();
  });

  test("a page in German fetches the German words alone; an English page fetches none", async () => {
    const requests = [];
    const page = await browser.context.newPage();
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    await page.goto(server.url + "/index.html");
    const w = widget(page);
    await w.trigger.waitFor();
    await page.waitForLoadState("networkidle");
    assert.deepEqual(requests.filter((p) => p.includes("/strings/")), [], "an English page needs no translation");
    assert.equal(await page.locator("midashi-search .trigger .label").textContent(), "Search");
    // The page's language changes (as a site's language switcher might): German is fetched,
    // from beside midashi.js, and every word is German once it is there.
    await page.evaluate(() => document.querySelector("midashi-search").setAttribute("lang", "de-AT"));
    await page.waitForFunction(() => document.querySelector("midashi-search").shadowRoot.querySelector("input").placeholder === "Dokumentation durchsuchen");
    assert.deepEqual(requests.filter((p) => p.includes("/strings/")), ["/search/strings/de.js"]);
    assert.equal(await page.locator("midashi-search .trigger .label").textContent(), "Suche");
    assert.equal(await w.trigger.evaluate((b) => b.classList.contains("pending")), false);
    await page.keyboard.press("Control+k");
    await search(page, "widget");
    await w.options.first().waitFor();
    // The count is announced in German.
    await page.waitForFunction(() => /\d+\+? Ergebnis/.test(document.querySelector("midashi-search").shadowRoot.querySelector("[role=status]").textContent));
    await page.close();
  });

  test("without Web Workers the widget says so (its bundle runs the engine only in a worker)", async () => {
    const page = await browser.context.newPage();
    await page.addInitScript(() => {
      delete window.Worker;
    });
    await page.goto(server.url + "/index.html");
    await page.keyboard.press("Control+k");
    const w = widget(page);
    await w.input.fill("preview lines");
    await page.waitForFunction(() => {
      const status = document.querySelector("midashi-search")?.shadowRoot?.querySelector("[role=status]");
      return /Web Workers/.test(status?.textContent ?? "");
    });
    assert.match(await w.status.textContent(), /midashi npm package with \{ worker: false \}/);
    // No answer came (recent searches of earlier tests may still be listed).
    assert.equal(await page.evaluate(() => window.__midashi.results.length), 0);
    await page.close();
  });
});

describe("keyboard only, recent searches, themes, accessibility", () => {
  test("Tab to the search button, Enter, type, ArrowDown, Enter: a page opens", async () => {
    const { page, w } = await open();
    let found = false;
    for (let i = 0; i < 6 && !found; i++) {
      await page.keyboard.press("Tab");
      found = await page.evaluate(() => document.activeElement?.tagName === "MIDASHI-SEARCH");
    }
    assert.ok(found, "the search button is reachable with Tab");
    await page.keyboard.press("Enter");
    await w.dialog.waitFor({ state: "visible" });
    await page.keyboard.type("synonyms");
    await page.waitForFunction(() => window.__midashi.results.some((r) => r.query === "synonyms"));
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    const before = page.url();
    await Promise.all([page.waitForURL((u) => u.href !== before), page.keyboard.press("Enter")]);
    assert.ok(page.url().startsWith(server.url));
    // Focus trap: Tab inside the open dialog never leaves it.
    await page.keyboard.press("Control+k");
    await w.dialog.waitFor({ state: "visible" });
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), "MIDASHI-SEARCH");
    }
    await page.close();
  });

  test("recent searches are offered on an empty query, and can be cleared", async () => {
    const { page, w } = await open();
    await page.evaluate(() => localStorage.clear());
    await page.keyboard.press("Control+k");
    await search(page, "offline bundle");
    await w.options.first().waitFor();
    await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
    await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
    await page.keyboard.press("Control+k");
    await w.dialog.waitFor({ state: "visible" });
    await w.options.first().waitFor();
    assert.equal((await w.options.first().textContent()).trim(), "offline bundle");
    // ArrowDown selects the recent search, Enter runs it.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    assert.equal(await w.input.inputValue(), "offline bundle");
    await w.input.fill("");
    await page.locator("midashi-search .clear").click();
    assert.equal(await w.options.count(), 0);
    await page.close();
  });

  test("light and dark themes", async () => {
    const { page, w } = await open();
    const bg = () => w.dialog.evaluate((el) => getComputedStyle(el).backgroundColor);
    await page.keyboard.press("Control+k");
    await w.dialog.waitFor({ state: "visible" });
    const light = await bg();
    await page.evaluate(() => document.querySelector("midashi-search").setAttribute("theme", "dark"));
    const dark = await bg();
    assert.notEqual(light, dark);
    assert.equal(light, "rgb(255, 255, 255)");
    await page.emulateMedia({ colorScheme: "dark" });
    await page.evaluate(() => document.querySelector("midashi-search").removeAttribute("theme"));
    assert.equal(await bg(), dark, "prefers-color-scheme: dark applies without the attribute");
    await page.close();
  });

  test("axe-core: no serious or critical violations with the search open and results shown; screenshot", async () => {
    const { page, w } = await open("/getting-started/index.html");
    await page.emulateMedia({ colorScheme: "light" });
    await page.keyboard.press("Control+k");
    await search(page, "search box");
    await w.options.nth(1).waitFor();
    await page.addScriptTag({ path: require.resolve("axe-core/axe.min.js") });
    const result = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ["violations"] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 3) }));
    });
    const bad = result.filter((v) => v.impact === "serious" || v.impact === "critical");
    assert.deepEqual(bad, [], JSON.stringify(bad, null, 2));
    mkdirSync(join(ROOT, "docs", "assets"), { recursive: true });
    await page.screenshot({ path: join(ROOT, "docs", "assets", "screenshot.png") });
    await page.close();
  });

});

describe("versioned sites", () => {
  let vSite;
  let vServer;
  before(async () => {
    const docs = mkdtempSync(join(tmpdir(), "midashi-versioned-docs-"));
    writeFileSync(join(docs, "index.md"), "# Widgets\n\nThe widget reference, in three versions.\n");
    for (const v of ["5.1", "7.4", "7.10"]) {
      mkdirSync(join(docs, v), { recursive: true });
      writeFileSync(join(docs, v, "get-widget.md"), `# Get-Widget\n\nGets widgets from the store (${v}).\n\n## -Name\n\nThe widget name to look up.\n`);
    }
    vSite = buildSite(docs, { name: "versioned" });
    remove(docs);
    vServer = await serve(vSite);
  });
  after(async () => {
    await vServer?.close();
    remove(vSite);
  });

  test("a section in three versions is shown once with the others named; version= keeps one", async () => {
    const problems = [];
    const page = await newPage(browser.context, problems);
    await page.goto(vServer.url + "/index.html");
    await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
    const w = widget(page);
    await page.keyboard.press("Control+k");
    const response = await search(page, "widget name");
    const hit = response.results.find((h) => h.path.endsWith("get-widget.md"));
    assert.equal(hit.version, "7.10");
    // Each of its sections (the page's own text, -Name) once, not once per version.
    const headings = response.results.filter((h) => h.path.endsWith("get-widget.md")).map((h) => h.heading);
    assert.deepEqual([...new Set(headings)], headings, JSON.stringify(headings));
    const line = page.locator("midashi-search [role=option] .versions").first();
    assert.equal((await line.textContent()).trim(), "7.10 · Also in 7.4, 5.1");

    // A page of one version pins the widget to it.
    await page.keyboard.press("Escape");
    await page.evaluate(() => document.querySelector("midashi-search").setAttribute("version", "7.4"));
    await page.keyboard.press("Control+k");
    const pinned = await search(page, "widget lookup");
    assert.ok(pinned.results.length > 0);
    assert.ok(pinned.results.every((h) => h.version === "7.4" && h.other_versions.length === 0), JSON.stringify(pinned.results.map((h) => h.path)));
    await w.options.first().waitFor();
    assert.equal((await line.textContent()).trim(), "7.4");
    assert.deepEqual(problems, []);
    await page.close();
  });
});

/** A question (the `auto` policy loads the semantic leg for it). */
const QUESTION = "how do I use it offline?";

describe("semantic results", () => {
  let semanticSite;
  let semanticServer;
  before(async () => {
    semanticSite = buildSite(join(ROOT, "docs"), { name: "semantic", semantic: true });
    semanticServer = await serve(semanticSite);
  });
  after(async () => {
    await semanticServer?.close();
    remove(semanticSite);
  });

  test("keyword-style queries fetch no semantic bytes; a question loads the leg, says why, and can be cancelled", async () => {
    const problems = [];
    const page = await newPage(browser.context, problems);
    const requests = [];
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    // The model held back, as on a slow connection, so the leg is still loading when the
    // reader cancels it (from localhost the whole leg loads in a fraction of a second).
    await page.route(/\/model\.[0-9a-f]{16}\.bin$/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 5000));
      await route.continue().catch(() => {});
    });
    await page.goto(semanticServer.url + "/index.html");
    await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
    await page.keyboard.press("Control+k");
    for (const q of ["widget theming", "sharded layout", "build-index search"]) {
      const r = await search(page, q);
      assert.equal(r.semanticPending, undefined, q);
    }
    assert.ok(!requests.some((p) => /embed|model\.|vectors\./.test(p)), requests.join(" "));
    const bar = page.locator("midashi-search .semantic-bar");
    // Not loaded: the reader can ask for it.
    assert.equal((await bar.textContent()).trim(), "Search by meaning");
    const r = await search(page, QUESTION);
    assert.equal(r.semanticReason, "question");
    await page.waitForFunction(() => document.querySelector("midashi-search").shadowRoot.querySelector(".semantic-bar")?.textContent.includes("reads as a question"));
    await page.locator("midashi-search .semantic-bar button").click();
    await page.waitForFunction(() => document.querySelector("midashi-search").shadowRoot.querySelector(".semantic-bar")?.textContent.trim() === "Search by meaning");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("keyword results at once with a loading note, then hybrid results once the model is in", async () => {
    const problems = [];
    const page = await newPage(browser.context, problems);
    const requests = [];
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    await page.goto(semanticServer.url + "/index.html");
    await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
    const w = widget(page);
    // Nothing of the semantic module or the model is fetched before the first query.
    assert.ok(!requests.some((p) => /embed|model\.|vectors\./.test(p)), requests.join(" "));
    await page.keyboard.press("Control+k");
    // What a screen reader hears: every text the status (a live region) takes.
    await page.evaluate(() => {
      const status = document.querySelector("midashi-search").shadowRoot.querySelector("[role=status]");
      window.__announced = [];
      new MutationObserver(() => window.__announced.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
    });
    const first = await search(page, QUESTION);
    assert.equal(first.mode, "keyword");
    // Typed, so not settled: the answer says why the leg would help, and the download
    // starts once typing pauses (the loading note below).
    assert.equal(first.semanticReason, "question");
    assert.equal(first.semanticPending, undefined);
    // The reader moves, while the model loads, to a result that the fused list will show
    // at another place than first (the CLI's hybrid answer says which).
    const lang = await page.evaluate(() => document.documentElement.lang);
    const fused = JSON.parse(
      execFileSync(buildIndexBin(), ["search", join(semanticSite, "search"), QUESTION, "--mode", "hybrid", "--json", "--limit", String(first.results.length), "--prefer-lang", lang], { encoding: "utf8" }),
    ).results.map((h) => h.heading);
    const selected = () => page.evaluate(() => document.querySelector("midashi-search").shadowRoot.querySelector("[role=option][aria-selected=true] .heading")?.textContent);
    let chosen;
    for (let i = 0; i < 10 && !chosen; i++) {
      await page.keyboard.press("ArrowDown");
      const h = await selected();
      if (fused.indexOf(h) > 0) chosen = h;
    }
    assert.ok(chosen, `a keyword result that the fused list moves: ${fused.join(" | ")}`);
    // The widget asks again by itself once the module is ready.
    const handle = await page.waitForFunction(
      (q) => window.__midashi.results.findLast((r) => r.query === q && r.response.mode === "hybrid")?.response,
      QUESTION,
      { timeout: 120_000 },
    );
    const hybrid = await handle.jsonValue();
    assert.ok(hybrid.results.length > 0);
    // The fused list replaced the keyword one: the selection stayed on the same result.
    assert.ok(hybrid.results.some((h) => h.heading === chosen), `${chosen} is in the fused list`);
    assert.notEqual(hybrid.results[0].heading, chosen, "the test needs a selection that moves");
    assert.equal(await selected(), chosen);
    await page.waitForFunction(() => document.querySelector("midashi-search").shadowRoot.querySelector("[role=status]").textContent.includes("Semantic results included"));
    // One announcement for the keyword list (with its loading note), one for the fused
    // list: the download's progress is shown in the semantic bar, not read out.
    const announced = (await page.evaluate(() => window.__announced)).filter((t, i, a) => t && t !== a[i - 1]);
    assert.ok(announced.length <= 3, announced.join(" | "));
    assert.ok(!announced.some((t) => /%/.test(t)), announced.join(" | "));
    // The module ran in its own worker, and the model came from the index folder.
    assert.ok(requests.some((p) => p.endsWith("/search/embed-worker.js")), requests.join(" "));
    assert.ok(requests.some((p) => /\/search\/model\.[0-9a-f]{16}\.bin$/.test(p)), requests.join(" "));
    // The first query ran on the keyword module; the vectors moved the engine to the full one.
    const keywordAt = requests.indexOf("/search/wasm/midashi_keyword_bg.wasm");
    const fullAt = requests.indexOf("/search/wasm/midashi_wasm_bg.wasm");
    assert.ok(keywordAt >= 0 && fullAt > keywordAt, requests.join(" "));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("typed key by key: words, prefixes and nonsense fetch none of the leg; a typed question loads it after the pause, and Enter opens the first fused row", async () => {
    const problems = [];
    const page = await newPage(browser.context, problems);
    const requests = [];
    // The semantic leg: its encoder module and worker, the model, the vectors (and graph).
    const leg = (p) => /embed|model\.|vectors\.|ann\./.test(p);
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    await page.goto(semanticServer.url + "/index.html");
    await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
    // Enter is followed to a URL: recorded here instead of leaving the page.
    await page.evaluate(() => {
      window.__opened = [];
      document.addEventListener("midashi-navigate", (e) => {
        window.__opened.push(e.detail.hit.id);
        e.preventDefault();
      });
    });
    const w = widget(page);
    await page.keyboard.press("Control+k");
    const type = (q) => typed(page, q);
    for (const q of ["widget", "ranking", "rankng", "sharded layout", "install the widget", "xqzvw plorbtek"]) {
      const r = await type(q);
      assert.equal(r.semanticPending, undefined, q);
      assert.ok(!requests.some(leg), `${q}: ${requests.filter(leg).join(" ")}`);
    }
    // A misspelt word and nonsense are corrected (or found uncorrectable) by the keyword
    // module itself: typing them fetches no full engine.
    assert.ok(!requests.some((p) => p.endsWith("/midashi_wasm_bg.wasm")), requests.join(" "));
    // Nonsense: no results, and nothing said of semantic results.
    assert.ok(!/Semantic/.test(await w.status.textContent()), await w.status.textContent());
    // A question, typed: its keyword answer says why; the pause starts the leg; the fused list
    // replaces the keyword one with its first row highlighted, and Enter opens that row.
    const keyword = await type(QUESTION);
    assert.equal(keyword.semanticReason, "question");
    const handle = await page.waitForFunction(
      (q) => window.__midashi.results.findLast((r) => r.query === q && r.response.mode === "hybrid")?.response,
      QUESTION,
      { timeout: 120_000 },
    );
    const hybrid = await handle.jsonValue();
    assert.ok(requests.some(leg), requests.join(" "));
    assert.ok(hybrid.results.length > 0);
    await page.waitForFunction(() => document.querySelector("midashi-search").shadowRoot.querySelector("[role=status]").textContent.includes("Semantic results included"));
    const firstRow = await page.evaluate(() => document.querySelector("midashi-search").shadowRoot.querySelector("[role=option]").getAttribute("aria-selected"));
    assert.equal(firstRow, "true");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => window.__opened.length > 0);
    assert.deepEqual(await page.evaluate(() => window.__opened), [hybrid.results[0].id]);
    // Nonsense once the leg is loaded: "no results", never "Semantic results included".
    const none = await type("xqzvw plorbtek");
    assert.equal(none.results.length, 0);
    assert.ok(!/Semantic/.test(await w.status.textContent()), await w.status.textContent());
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("a sharded site", () => {
  let sSite;
  let sServer;
  before(async () => {
    // The demo docs, forced into the sharded layout of large sites.
    sSite = buildSite(join(ROOT, "docs"), { name: "sharded", layout: "sharded" });
    sServer = await serve(sSite);
  });
  after(async () => {
    await sServer?.close();
    remove(sSite);
  });

  test("loads the directory only, fetches shards and cards per query, answers like the single layout and lands on the anchor", async () => {
    const requests = [];
    const problems = [];
    const page = await newPage(browser.context, problems);
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    await page.goto(sServer.url + "/index.html");
    await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
    const w = widget(page);
    await page.keyboard.press("Control+k");
    const response = await search(page, "IME composition");
    assert.ok(response.results.length >= 2);
    const index = requests.filter((p) => p.startsWith("/search/") && p.endsWith(".bin"));
    assert.ok(index.some((p) => /\/directory\.[0-9a-f]{16}\.bin$/.test(p)), index.join(" "));
    assert.ok(index.some((p) => /\/shard\./.test(p)) && index.some((p) => /\/card\./.test(p)), index.join(" "));
    // A result shows its card: no document is fetched whole.
    assert.ok(!index.some((p) => /\/bundle\./.test(p)), index.join(" "));
    assert.ok(!index.some((p) => /\/(terms|sections)\./.test(p)), index.join(" "));
    // Its keyword module is what the first query loaded.
    assert.ok(requests.includes("/search/wasm/midashi_keyword_bg.wasm"), requests.join(" "));
    assert.ok(!requests.includes("/search/wasm/midashi_wasm_bg.wasm"), requests.join(" "));
    assert.deepEqual(
      readFileSync(join(sSite, "search/wasm/midashi_keyword_bg.wasm")),
      readFileSync(join(ROOT, "web/dist/wasm/midashi_keyword_bg.wasm")),
    );

    // The same query on the single-layout demo site gives the same results.
    const single = await newPage(browser.context, []);
    await single.goto(server.url + "/index.html");
    await single.waitForFunction(() => customElements.get("midashi-search") !== undefined);
    await single.keyboard.press("Control+k");
    const expected = await search(single, "IME composition");
    // Excerpts aside: a sharded result's comes from the lines its card holds.
    const strip = (r) => r.results.map(({ score, excerpt: _e, excerpt_highlights: _h, excerpt_line: _l, ...h }) => ({ ...h, score: Math.fround(score) }));
    assert.deepEqual(strip(response), strip(expected));
    assert.equal(response.total, expected.total);
    await single.close();

    await w.options.first().waitFor();
    const hit = response.results[0];
    const href = await page.evaluate((h) => document.querySelector("midashi-search").hrefFor(h), hit);
    await Promise.all([page.waitForURL(href), page.keyboard.press("Enter")]);
    if (hit.anchor) assert.ok(await anchorExists(page, hit.anchor), `#${hit.anchor}`);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
