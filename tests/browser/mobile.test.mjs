// <midashi-search> on a phone (390 px, touch) in headless Chromium: a search box inside a
// collapsed menu, as MkDocs's and Starlight's navbars have it. The dialog opens as a visible
// full-width sheet whether its button is visible or hidden in the menu, closes with Esc, its
// close button and the back gesture, shows no key hints on touch, and the button does not
// take the host page's title's room. Screenshot: docs/assets/widget-mobile.png.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { CHROMIUM, ROOT, buildSite, remove, serve } from "./helpers.mjs";

const PHONE = { width: 390, height: 844 };
let site;
let server;
let browser;
let context;

before(async () => {
  site = buildSite(join(ROOT, "docs"), { name: "mobile" });
  // A host page whose box is inside a menu that is collapsed (display: none) until opened,
  // beside a site title that needs the row's width.
  writeFileSync(
    join(site, "menu.html"),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Menu</title><link rel="icon" href="data:,"><script type="module" src="/search/midashi.js"></script>
<style>body{margin:0;font:16px sans-serif} header{display:flex;align-items:center;gap:8px;padding:8px} #title{white-space:nowrap}</style></head>
<body><header><span id="title">AWS Lambda developer guide</span><midashi-search id="top"></midashi-search>
<button id="burger">Menu</button></header>
<nav id="menu" style="display:none"><midashi-search id="inmenu"></midashi-search></nav>
<main><h1>Host page</h1></main></body></html>`,
  );
  server = await serve(site);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 1 });
});

after(async () => {
  await browser?.close();
  await server?.close();
  remove(site);
});

/** The open dialog's box, or null when none is shown. */
const dialogBox = (page) =>
  page.evaluate(() => {
    const layer = document.querySelector("[data-midashi-layer]")?.shadowRoot;
    const roots = [...document.querySelectorAll("midashi-search")].map((e) => e.shadowRoot);
    for (const root of [layer, ...roots]) {
      const backdrop = root?.querySelector(".backdrop");
      if (!backdrop || backdrop.hidden) continue;
      const r = backdrop.querySelector("[role=dialog]").getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    }
    return null;
  });

/** The open dialog's root: the layer's when it moved there, else the element's. */
const inDialog = (page, selector) => page.locator(`[data-midashi-layer] ${selector}, midashi-search ${selector}`).filter({ visible: true });

test("a box inside a collapsed menu opens a visible full-width sheet; Esc closes it", async () => {
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  await page.goto(server.url + "/menu.html");
  await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
  // The first box on the page answers the shortcut; here it is the menu's only box.
  await page.evaluate(() => document.getElementById("top").remove());
  await page.keyboard.press("Control+k");
  const box = await dialogBox(page);
  assert.ok(box, "the dialog is shown");
  assert.equal(Math.round(box.width), PHONE.width);
  assert.ok(box.height >= PHONE.height - 1, JSON.stringify(box));
  // Typing reaches it, and results show.
  await page.keyboard.type("install", { delay: 40 });
  await inDialog(page, "[role=option]").first().waitFor();
  await page.keyboard.press("Escape");
  assert.equal(await dialogBox(page), null, "Esc closes it");
  // The menu opened later shows the box's button, not a blank dialog over the page.
  await page.evaluate(() => (document.getElementById("menu").style.display = "block"));
  assert.equal(await dialogBox(page), null);
  await page.locator("#inmenu .trigger").tap();
  assert.equal(Math.round((await dialogBox(page)).width), PHONE.width);
  await inDialog(page, ".close").tap();
  assert.equal(await dialogBox(page), null, "the close button closes it");
  assert.deepEqual(problems, []);
  await page.close();
});

test("on touch: no key hints, a cross to close, the back gesture closes and stays on the page; the button leaves the title its room", async () => {
  const page = await context.newPage();
  await page.goto(server.url + "/menu.html");
  await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
  const trigger = page.locator("#top .trigger");
  // Icon-only below 40rem: the title keeps its whole width.
  const title = await page.locator("#title").evaluate((t) => t.scrollWidth <= t.clientWidth + 1);
  assert.ok(title, "the site title is not squeezed");
  assert.ok((await trigger.boundingBox()).width < 60, `button ${JSON.stringify(await trigger.boundingBox())}`);
  // Its name stays for screen readers.
  assert.match(await trigger.textContent(), /Search/);
  assert.equal(await page.locator("#top .trigger kbd").isVisible(), false, "no Ctrl K on a phone");
  await trigger.tap();
  const close = inDialog(page, ".close");
  assert.equal(await inDialog(page, ".close .cross").count(), 1);
  assert.equal(await page.locator("midashi-search .close .cap").filter({ visible: true }).count(), 0);
  assert.equal(await page.locator("midashi-search .footer").filter({ visible: true }).count(), 0);
  assert.ok((await close.boundingBox()).height >= 40, "a finger-sized close button");
  await page.keyboard.type("sharded layout", { delay: 40 });
  await inDialog(page, "[role=option]").first().waitFor();
  await page.screenshot({ path: join(ROOT, "docs", "assets", "widget-mobile.png") });
  const url = page.url();
  await page.goBack();
  await page.waitForFunction(() => document.querySelector("#top").shadowRoot.querySelector(".backdrop").hidden);
  assert.equal(page.url(), url, "back closed the search, not the page");
  // Closed with its button, the entry it pushed is taken back: one back leaves the page.
  await trigger.tap();
  await close.tap();
  await page.waitForTimeout(300);
  await page.goBack();
  assert.notEqual(page.url(), url, "no search entry left in the history");
  await page.close();
});
