// `build-index --site` in headless Chromium: a real Japanese corpus (Vue's docs, VitePress
// anchors) whose search results must land on existing anchors; a hostile corpus that must
// render inert; and the same site opened from file://.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { ROOT, anchorExists, buildSite, launch, newPage, record, remove, search, serve, widget } from "./helpers.mjs";

const VUE_JA = join(ROOT, "..", "shared", "corpora", "vue-docs-ja");

let browser;
before(async () => {
  browser = await launch();
  await record(browser.context);
});
after(async () => {
  await browser?.close();
});

async function openPage(url) {
  const problems = [];
  const page = await newPage(browser.context, problems);
  await page.goto(url);
  await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
  return { page, problems, w: widget(page) };
}

describe("vue-docs-ja (VitePress slugs)", () => {
  let site;
  let server;
  before(async () => {
    site = buildSite(VUE_JA, { slug: "vitepress", name: "vue-ja" });
    server = await serve(site);
  });
  after(async () => {
    await server?.close();
    remove(site);
  });

  test("every top result of Japanese queries lands on a page where its anchor exists", async () => {
    const { page, problems, w } = await openPage(server.url + "/index.html");
    const checked = [];
    for (const q of ["算出プロパティ", "コンポーネントの登録", "リアクティビティー", "v-model"]) {
      await page.keyboard.press("Control+k");
      const response = await search(page, q);
      assert.ok(response.results.length > 0, `results for ${q}`);
      await w.options.first().waitFor();
      for (const hit of response.results.slice(0, 4)) {
        const href = await page.evaluate((h) => document.querySelector("midashi-search").hrefFor(h), hit);
        checked.push({ q, href, anchor: hit.anchor });
      }
      await page.keyboard.press("Escape");
    }
    const probe = await newPage(browser.context, problems);
    for (const { q, href, anchor } of checked) {
      // From a blank page, so that a hash-only change is still a full load with a response.
      await probe.goto("about:blank");
      const res = await probe.goto(href);
      assert.equal(res?.status(), 200, `${q}: ${href}`);
      if (anchor) assert.ok(await anchorExists(probe, anchor), `${q}: #${anchor} missing on ${href}`);
    }
    await probe.close();

    // And once through the keyboard: Enter on the first result of a query.
    await page.keyboard.press("Control+k");
    const response = await search(page, "算出プロパティ");
    await w.options.first().waitFor();
    const first = response.results[0];
    await Promise.all([page.waitForURL((u) => u.pathname.endsWith(".html") && u.href.includes("#") === Boolean(first.anchor)), page.keyboard.press("Enter")]);
    if (first.anchor) {
      assert.equal(decodeURIComponent(new URL(page.url()).hash.slice(1)), first.anchor);
      assert.ok(await anchorExists(page, first.anchor));
    }
    // The corpus declares no language: the site's is found from its script, so pages and
    // the search box are Japanese (#23).
    assert.equal(await page.evaluate(() => document.documentElement.lang), "ja");
    assert.equal(await page.locator("midashi-search .trigger .label").textContent(), "検索");
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test("on a phone the page's content starts within the first screen, below a bounded sidebar", async () => {
  const site = buildSite(join(ROOT, "docs"), { name: "phone" });
  const server = await serve(site);
  try {
    const page = await newPage(browser.context);
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(server.url + "/widget.html");
    const top = await page.evaluate(() => document.querySelector("#content, main, article").getBoundingClientRect().top);
    assert.ok(top < 740 * 0.6, `content starts at ${top}px`);
    await page.close();
  } finally {
    await server.close();
    remove(site);
  }
});

describe("a hostile corpus", () => {
  let docs;
  let site;
  let server;
  const ATTACKS = [
    "<script>window.__pwned = 'script'</script>",
    "<img src=x onerror=\"window.__pwned = 'onerror'\">",
    "<svg onload=\"window.__pwned = 'svg'\"></svg>",
    "<iframe srcdoc=\"<script>parent.__pwned = 'iframe'</script>\"></iframe>",
  ].join("\n");

  before(async () => {
    docs = mkdtempSync(join(tmpdir(), "midashi-hostile-"));
    mkdirSync(join(docs, "evil"));
    writeFileSync(
      join(docs, "index.md"),
      `---
title: "<script>window.__pwned = 'title'</script>Hostile"
description: "\\"><script>window.__pwned = 'description'</script>"
keywords: ["<img src=x onerror=window.__pwned='keywords'>"]
---

# Heading <script>window.__pwned = 'heading'</script> payload

Text with ${ATTACKS}

[click me](javascript:window.__pwned='link') and <a href="javascript:window.__pwned='a'">raw link</a>

## <img src=x onerror="window.__pwned = 'h2'"> image heading

[link heading](javascript:alert(1)) payload words

### [javascript link in heading](javascript:window.__pwned='h3')

payload again
`,
    );
    writeFileSync(
      join(docs, "evil", "<img src=x onerror=alert(1)>.md"),
      `# <script>alert('file')</script> payload file\n\n${ATTACKS}\n`,
    );
    writeFileSync(join(docs, "javascript:alert(1).md"), "# Colon payload\n\nA file whose name is a URL scheme.\n");
    site = buildSite(docs, { name: "hostile" });
    server = await serve(site);
  });
  after(async () => {
    await server?.close();
    remove(site);
    remove(docs);
  });

  test("pages render the payloads as text: no script runs, no dialog opens", async () => {
    const { page, problems } = await openPage(server.url + "/index.html");
    const pages = ["/index.html", "/evil/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.html", "/javascript%3Aalert%281%29.html"];
    for (const p of pages) {
      const res = await page.goto(server.url + p);
      assert.equal(res?.status(), 200, p);
      await page.waitForTimeout(200);
      assert.equal(await page.evaluate(() => window.__pwned), undefined, p);
      const active = await page.evaluate(() => {
        const article = document.querySelector("article");
        return {
          scripts: article.querySelectorAll("script, iframe, svg, object, embed").length,
          handlers: [...article.querySelectorAll("*")].flatMap((el) => [...el.attributes].filter((a) => a.name.startsWith("on")).map((a) => a.name)),
          jsLinks: [...document.querySelectorAll("a[href]")].map((a) => a.href).filter((h) => h.trim().toLowerCase().startsWith("javascript:")),
          head: document.head.querySelectorAll("script:not([src])").length,
        };
      });
      assert.deepEqual(active.scripts, 0, p);
      assert.deepEqual(active.handlers, [], p);
      assert.deepEqual(active.jsLinks, [], p);
      // The site's own two inline scripts only (theme and file:// loader).
      assert.equal(active.head, 1, p);
    }
    // The payload is visible as text.
    await page.goto(server.url + "/index.html");
    assert.match(await page.locator("article").textContent(), /<script>window.__pwned = 'script'<\/script>/);
    assert.match(await page.title(), /<script>/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("search results show the payloads as text and follow only safe links", async () => {
    const { page, problems, w } = await openPage(server.url + "/index.html");
    await page.keyboard.press("Control+k");
    const response = await search(page, "payload");
    assert.ok(response.results.length > 0);
    await w.options.first().waitFor();
    const injected = await page.evaluate(() => {
      const root = document.querySelector("midashi-search").shadowRoot;
      return root.querySelectorAll("[role=listbox] script, [role=listbox] img, [role=listbox] svg:not([aria-hidden]), [role=listbox] iframe").length;
    });
    assert.equal(injected, 0);
    const text = await w.listbox.textContent();
    assert.match(text, /<script>|<img/);
    for (let i = 0; i < response.results.length; i++) {
      const href = await page.evaluate((h) => document.querySelector("midashi-search").hrefFor(h), response.results[i]);
      assert.ok(href === undefined || /^https?:/.test(href), href);
    }
    // The file named like a URL scheme is a page link, not a javascript: URL.
    const colon = await page.evaluate(() => document.querySelector("midashi-search").hrefFor({ url: "/javascript:alert(1).html" }));
    assert.ok(colon.startsWith(server.url + "/"), colon);
    await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
    await page.waitForTimeout(200);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

// A sharded site (every large one) inlines a single-file copy of its keyword index: a page
// opened from file:// can fetch no shard.
for (const layout of ["single", "sharded"]) {
  describe(`file:// (${layout} index)`, () => {
    let site;
    before(() => {
      site = buildSite(join(ROOT, "docs"), { name: `file-${layout}`, layout });
    });
    after(() => remove(site));

    test("the site searches from file:// with the inlined index, and results open their pages", async () => {
      const { page, problems, w } = await openPage(pathToFileURL(join(site, "index.html")).href);
      const requests = [];
      page.on("request", (r) => requests.push(r.url()));
      await page.keyboard.press("Control+k");
      const response = await search(page, "offline bundles");
      assert.ok(response.results.length > 0);
      await w.options.first().waitFor();
      assert.ok((await w.marks.count()) > 0);
      const hit = response.results[0];
      await Promise.all([page.waitForURL((u) => u.protocol === "file:" && u.pathname.endsWith(".html") && u.href !== pathToFileURL(join(site, "index.html")).href), page.keyboard.press("Enter")]);
      if (hit.anchor) assert.ok(await anchorExists(page, hit.anchor));
      assert.ok(requests.every((u) => u.startsWith("file:") || u.startsWith("data:")), requests.join("\n"));
      assert.deepEqual(problems, []);
      // The inline bundle holds the keyword files only: a terms and a sections file, whatever
      // the served layout.
      const inline = readFileSync(join(site, "search", "midashi-inline.js"), "utf8");
      assert.ok(inline.includes("midashi-entry.bin") && !inline.includes("vectors."));
      assert.ok(/"terms\.[0-9a-f]{16}\.bin"/.test(inline) && /"sections\.[0-9a-f]{16}\.bin"/.test(inline));
      assert.ok(!inline.includes('"directory.') && !inline.includes('"shard.'));
      const served = readdirSync(join(site, "search"));
      assert.equal(served.some((f) => f.startsWith("shard.")), layout === "sharded", served.join(" "));
      await page.close();
    });
  });
}

// A French site whose pages name no language (#25 item 1): the build tells French by its
// stopwords, indexes it by French rules and serves the languages keyword module, which reads
// the visitor's queries by the same rules without moving to the full engine; from file:// the
// inlined module does the same.
describe("a French site, untagged", () => {
  let site;
  let server;
  before(async () => {
    const docs = mkdtempSync(join(tmpdir(), "midashi-fr-docs-"));
    const para = "Pour les configurer, ouvrez le fichier de configuration et ajoutez une section pour chaque route que vous voulez servir. Les options sont décrites dans la page suivante, avec des exemples pour les cas les plus courants et ce qu'il faut éviter.";
    writeFileSync(join(docs, "index.md"), `# Documentation\n\nBienvenue dans la documentation du routeur. ${para}\n`);
    writeFileSync(join(docs, "routeur.md"), `# Options avancées du routeur\n\nLe routeur accepte des réglages avancés. ${para}\n`);
    writeFileSync(join(docs, "installation.md"), `# Installation\n\nInstallez l'application avec npm. ${para}\n`);
    site = buildSite(docs, { name: "fr" });
    server = await serve(site);
  });
  after(async () => {
    await server?.close();
    remove(site);
  });

  for (const where of ["served", "file://"]) {
    test(`${where}: an inflected query finds its page by French rules, in the keyword module`, async () => {
      const url = where === "served" ? server.url + "/index.html" : pathToFileURL(join(site, "index.html")).href;
      const { page, problems } = await openPage(url);
      const requests = [];
      page.on("request", (r) => requests.push(r.url()));
      assert.equal(await page.evaluate(() => document.documentElement.lang), "fr");
      // The template speaks the page's language too (build-index/src/site/strings.rs).
      assert.equal(await page.locator("#theme-toggle").textContent(), "Mode sombre");
      assert.equal(await page.locator("a.skip").textContent(), "Aller au contenu");
      await page.keyboard.press("Control+k");
      const r = await search(page, "avancé ");
      assert.equal(r.results[0]?.path, "routeur.md", JSON.stringify(r.results.map((h) => h.path)));
      const apps = await search(page, "applications ");
      assert.equal(apps.results[0]?.path, "installation.md");
      // Answered by the keyword module it was given: the full engine was never fetched.
      assert.ok(!requests.some((u) => u.includes("midashi_wasm_bg.wasm")), requests.join("\n"));
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
});
