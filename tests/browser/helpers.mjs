// Shared set-up of the widget and site browser tests: finding build-index and the widget's
// built files, building a site into a temporary folder, serving it, and launching Debian's
// Chromium headless with a fresh profile.

import { after, before } from "node:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "../../scripts/serve.mjs";
import { EMBED_CACHE } from "../support/indexes.mjs";
import { ENGINE_WASM } from "../support/modules.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ASSETS = join(ROOT, "web", "dist");

/** The build-index binary: $MIDASHI_BUILD_INDEX (or $BUILD_INDEX), else the newest of the usual target folders, else a debug build. */
export function buildIndexBin() {
  // scripts/test.sh names the binary it just built; a stale one elsewhere must not be used.
  const named = process.env.MIDASHI_BUILD_INDEX ?? process.env.BUILD_INDEX;
  if (named) return named;
  const dirs = [process.env.CARGO_TARGET_DIR, join(ROOT, "target")].filter(Boolean);
  for (const d of dirs) {
    for (const profile of ["release", "debug"]) {
      const bin = join(d, profile, "build-index");
      if (existsSync(bin)) return bin;
    }
  }
  execFileSync("cargo", ["build", "-q", "-p", "build-index"], { cwd: ROOT, stdio: "inherit" });
  return join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "debug", "build-index");
}

/** Makes sure web/dist has the widget bundles (cheap to rebuild; the wasm must be built already). */
export function ensureAssets() {
  for (const name of ENGINE_WASM) {
    const wasm = join(ASSETS, name);
    if (!existsSync(wasm)) {
      throw new Error(`${wasm} is missing: build it first with scripts/build-wasm.sh dev (or release)`);
    }
  }
  if (!existsSync(join(ASSETS, "bundle", "midashi-file.js")) || process.env.MIDASHI_REBUILD_WIDGET) {
    execFileSync("node", [join(ROOT, "scripts", "build-widget.mjs")], { cwd: ROOT, stdio: "inherit" });
  }
  return ASSETS;
}

/** The embedding model folder (scripts/fetch-model.sh). */
export const MODEL = process.env.MIDASHI_MODEL_DIR ?? join(ROOT, "models", "all-MiniLM-L6-v2");

/**
 * Builds `docs` into a fresh temporary site folder; returns its path. Keyword-only unless
 * `semantic`: then with `model`'s vectors, the model shipped and the semantic module copied
 * (`true`: `--semantic deep`) — or, with `semantic: "static"` or `"auto"` (the default's), a
 * table distilled from the docs instead.
 */
export function buildSite(docs, { slug = "github", name = "site", semantic = false, layout = "auto", model = MODEL } = {}) {
  const assets = ensureAssets();
  const out = mkdtempSync(join(tmpdir(), `midashi-${name}-`));
  const leg = ["--semantic", semantic === true ? "deep" : String(semantic)];
  const mode = semantic ? ["--model", model, "--cache-dir", EMBED_CACHE, ...leg] : ["--keyword-only"];
  execFileSync(buildIndexBin(), [docs, "--out", out, "--site", "--slug", slug, "--assets", assets, "--quiet", "--layout", layout, ...mode], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  return out;
}

/**
 * A site built from `docs` (as `buildSite`), served on 127.0.0.1, and Chromium recording the
 * widget's answers: made before the calling file's tests and removed after them. Its fields
 * (`site`, `server`, `browser`) are set once the tests run.
 */
export function siteUnderTest(docs, options) {
  const s = {};
  before(async () => {
    s.site = buildSite(docs, options);
    s.server = await serve(s.site);
    s.browser = await launch();
    await record(s.browser.context);
  });
  after(async () => {
    await s.browser?.close();
    await s.server?.close();
    remove(s.site);
  });
  return s;
}

/** Removes a temporary folder. */
export function remove(dir) {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

export { serve };

/** Chromium, headless, with a fresh profile. Resolves with `{ context, close() }`. */
export async function launch({ args = [] } = {}) {
  const profile = mkdtempSync(join(tmpdir(), "midashi-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", ...args],
    viewport: { width: 1200, height: 800 },
  });
  return {
    context,
    async close() {
      await context.close();
      remove(profile);
    },
  };
}

/** A new page that fails the test on page errors and dialogs (alert/confirm/prompt). */
export async function newPage(context, problems = []) {
  const page = await context.newPage();
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("dialog", async (d) => {
    problems.push(`dialog: ${d.type()} ${d.message()}`);
    await d.dismiss().catch(() => undefined);
  });
  return page;
}

/** The widget's shadow-root parts, by CSS selector (Playwright locators pierce open shadow roots). */
export function widget(page) {
  return {
    trigger: page.locator("midashi-search .trigger"),
    dialog: page.locator("midashi-search [role=dialog]"),
    input: page.locator("midashi-search input[role=combobox]"),
    listbox: page.locator("midashi-search [role=listbox]"),
    options: page.locator("midashi-search [role=option]"),
    groups: page.locator("midashi-search [role=listbox] [role=group]"),
    marks: page.locator("midashi-search [role=option] mark"),
    status: page.locator("midashi-search [role=status]"),
    empty: page.locator("midashi-search .empty"),
  };
}

/**
 * Records the widget's events on every page of a context (capture listeners see events that
 * do not bubble): `window.__midashi = { results: [{ query, response }], searches: [query] }`.
 */
export async function record(context) {
  await context.addInitScript(() => {
    const rec = { results: [], searches: [] };
    Object.defineProperty(window, "__midashi", { value: rec });
    document.addEventListener("midashi-results", (e) => rec.results.push(JSON.parse(JSON.stringify(e.detail))), true);
    document.addEventListener("midashi-search", (e) => rec.searches.push(e.detail.query), true);
  });
}

/** Types `query` into the open search box and resolves with its response (as shown). */
export async function search(page, query) {
  const w = widget(page);
  const q = query.trim();
  // The widget does not search again for the query it already shows: then the last answer
  // for it is current; otherwise wait for a new one.
  const shown = (await w.input.inputValue()).trim() === q;
  const seen = shown ? 0 : await page.evaluate(() => window.__midashi.results.length);
  await w.input.fill(query);
  const handle = await page.waitForFunction(
    ([q, seen]) => window.__midashi.results.slice(seen).findLast((r) => r.query === q)?.response,
    [q, seen],
    { timeout: 30_000 },
  );
  return handle.jsonValue();
}

/**
 * Types `q` into the open search box as a visitor does (80 ms a key), waits past the settling
 * pause, and resolves with the typed query's own answer (a fused one may follow it).
 */
export async function typed(page, q) {
  const w = widget(page);
  await w.input.fill("");
  const seen = await page.evaluate(() => window.__midashi.results.length);
  await w.input.pressSequentially(q, { delay: 80 });
  await page.waitForTimeout(1500);
  const handle = await page.waitForFunction(([q, seen]) => window.__midashi.results.slice(seen).find((r) => r.query === q)?.response, [q, seen]);
  return handle.jsonValue();
}

/** Whether the element with id `anchor` exists on the page. */
export function anchorExists(page, anchor) {
  return page.evaluate((a) => document.getElementById(a) !== null, anchor);
}

/** A fresh page of `context` on `url`, once <midashi-search> is defined, with the problems list it reports into. */
export async function openPage(context, url) {
  const problems = [];
  const page = await newPage(context, problems);
  await page.goto(url);
  await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
  return { page, problems, w: widget(page) };
}
