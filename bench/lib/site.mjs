// Midashi vs Pagefind on the same static site (the HTML of `build-index <docs> --site`):
// the bytes a reader's browser fetches before the first result of each query, each system
// used through its own UI in headless Chromium (Midashi's <midashi-search> widget, Pagefind's
// Default UI), with every network response recorded. Only the search's own files count
// (/search/ for Midashi, /pagefind/ for Pagefind): the page itself is the same for both.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { launch, recordResponses, serve, sumLog } from "./browser.mjs";
import { ROOT } from "./data.mjs";
import { readTree, sizesOfFiles } from "./sizes.mjs";
import { buildIndexBin, pagefindBin, timed } from "./tools.mjs";

const log = (...a) => console.error("[site]", ...a);

/** Builds the site (Midashi's index + widget inside) and Pagefind's bundle over its HTML. */
export async function buildSite(corpusDir, slug, { layout = "auto" } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-site-"));
  const args = [corpusDir, "--out", dir, "--site", "--slug", slug, "--assets", path.join(ROOT, "web/dist"), "--quiet", "--keyword-only", "--layout", layout];
  execFileSync(buildIndexBin(), args, {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  // Pagefind indexes the pages' <main> (content + breadcrumbs), not the sidebar every page repeats.
  const pf = await timed(pagefindBin(), ["--site", dir, "--root-selector", "main", "--quiet"], { timeoutMs: 300_000 });
  if (!pf.ok) throw new Error(`pagefind failed on the site: ${pf.stderr}`);
  // Pagefind's Default UI on a page of its own (the same site, the same server).
  writeFileSync(
    path.join(dir, "pagefind-search.html"),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pagefind</title>
<link href="/pagefind/pagefind-ui.css" rel="stylesheet"><script src="/pagefind/pagefind-ui.js"></script></head>
<body><div id="search"></div><script>window.addEventListener("DOMContentLoaded",()=>{new PagefindUI({element:"#search",showSubResults:true});});</script></body></html>`,
  );
  return dir;
}

async function midashiQuery(page, q) {
  const input = page.locator("midashi-search input[role=combobox]");
  if (!(await input.isVisible())) await page.keyboard.press("Control+k");
  const seen = await page.evaluate(() => window.__bench.length);
  await input.fill(q);
  await page.waitForFunction(([q, seen]) => window.__bench.slice(seen).some((r) => r.query === q), [q, seen], { timeout: 30_000 });
  // The response is shown once it is in the DOM.
  await page.locator("midashi-search [role=option], midashi-search .empty").first().waitFor({ timeout: 30_000 });
}

async function pagefindQuery(page, q) {
  const input = page.locator(".pagefind-ui__search-input");
  await input.fill(q);
  // The UI's message names the count for the current term; results are shown once their
  // titles (from the fragments) are in. Until then the UI draws placeholders with the same
  // class, marked `pagefind-ui__loading` and holding dots: those are not a result.
  await page.waitForFunction(
    (q) => {
      const m = document.querySelector(".pagefind-ui__message")?.textContent ?? "";
      if (!m.includes(q)) return false;
      if (/^No results/.test(m)) return true;
      const t = document.querySelector(".pagefind-ui__result-title:not(.pagefind-ui__loading)");
      return Boolean(t && /[\p{L}\p{N}]/u.test(t.textContent));
    },
    q,
    { timeout: 30_000 },
  );
}

/** Search code rather than index data: scripts, styles, wasm (Pagefind's is `wasm.<lang>.pagefind`). */
function isCode(url) {
  const p = new URL(url, "http://x").pathname;
  return /\.(m?js|css|wasm)$/.test(p) || /\/wasm\.[a-z-]+\.pagefind$/.test(p);
}

/** Bytes per query for one system: a fresh context (empty cache), the queries in order. */
async function perQuery(browser, url, prefix, queries, ask, init, siteDir) {
  const ctx = await browser.newContext();
  if (init) await ctx.addInitScript(init);
  const page = await ctx.newPage();
  const fromDisk = (pathname) => {
    try {
      return readFileSync(path.join(siteDir, decodeURIComponent(pathname)));
    } catch {
      return undefined;
    }
  };
  const rec = recordResponses(page, { fromDisk });
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForLoadState("load");
  const rows = [];
  let from = 0;
  for (const q of queries) {
    const t = performance.now();
    await ask(page, q);
    const ms = performance.now() - t;
    await rec.settle();
    const mine = rec.log.filter((e) => e.url.startsWith(prefix));
    const s = sumLog(mine, from);
    // The index's own files, apart from the search code (JS, CSS, wasm): what grows with the site.
    const data = sumLog(mine.slice(from).filter((e) => !isCode(e.url)));
    rows.push({ query: q, ms, ...s, indexGzip: data.gzip, indexBrotli: data.brotli, indexRequests: data.requests, cumulative: sumLog(mine).bytes, cumulativeGzip: sumLog(mine).gzip });
    from = mine.length;
  }
  await ctx.close();
  return { rows, wallMs: Date.now() - t0 };
}

/** Records the widget's answers, so a query is known to be shown. */
function midashiInit() {
  window.__bench = [];
  document.addEventListener("midashi-results", (e) => window.__bench.push({ query: e.detail.query }), true);
}

/** Both systems on one site; resolves with per-query rows and the bundles' sizes. */
export async function measureSite(siteDir, queries) {
  const server = await serve(siteDir);
  const browser = await launch();
  try {
    log("midashi widget");
    const midashi = await perQuery(
      browser,
      `${server.url}/index.html`,
      "/search/",
      queries,
      midashiQuery,
      midashiInit,
      siteDir,
    );
    log("pagefind ui");
    const pagefind = await perQuery(browser, `${server.url}/pagefind-search.html`, "/pagefind/", queries, pagefindQuery, undefined, siteDir);
    // Each query as a visitor's first (an empty cache every time): what the first query costs
    // depends on its words, so one first query in a sequence is one sample of it.
    log("each query first, both systems");
    const cold = [];
    for (const q of queries) {
      const m = await perQuery(browser, `${server.url}/index.html`, "/search/", [q], midashiQuery, midashiInit, siteDir);
      const p = await perQuery(browser, `${server.url}/pagefind-search.html`, "/pagefind/", [q], pagefindQuery, undefined, siteDir);
      cold.push({ query: q, midashi: m.rows[0], pagefind: p.rows[0] });
    }
    const mid = readTree(path.join(siteDir, "search"));
    const pf = readTree(path.join(siteDir, "pagefind")).map((f) => ({ ...f, precompressed: /\.pf_|\.pagefind$/.test(f.name) }));
    return {
      cold,
      midashi: { ...midashi, folder: sizesOfFiles(mid.filter((f) => !f.name.endsWith(".map") && f.name !== "midashi-inline.js" && f.name !== "midashi-file.js")) },
      pagefind: { ...pagefind, folder: sizesOfFiles(pf) },
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

