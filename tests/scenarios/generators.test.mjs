// Real generators, end to end: each generator's own packages from the registry build the
// scenario site (tests/scenarios/site: English and Japanese pages, nested headings, a
// sidebar, a page excluded with its generator's control), `npx midashi <output>` from the
// packed tarball indexes the output with no Rust toolchain on PATH, and <midashi-search>,
// put into the theme the way docs/generators/<name>.md says, answers in headless Chromium.
// Each query's top result must open a page whose anchor is the heading searched; words that
// only the theme's navigation, sidebar, header or footer show must find nothing.

import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { launch, newPage, record, search, serve, widget } from "../browser/helpers.mjs";
import { CACHE, installed, npxMidashi, sitePages, userProject, writeTree } from "./harness.mjs";
import { GENERATORS } from "./generators.mjs";

/** Query → the heading its top result must be, and the page it is on. */
const QUERIES = [
  ["installation", "Installation", "getting-started"],
  ["prerequisites", "Prerequisites", "getting-started"],
  ["static hosting", "Static Hosting", "deployment"],
  ["environment variables", "Environment Variables", "deployment"],
  ["retry policy", "Retry Policy", "getting-started"],
  ["インストール", "インストール", "ja/"],
  ["設定ファイル", "設定ファイル", "ja/"],
];

/** Words the generator's chrome shows (set in each scenario's config) and the excluded page's. */
const NOWHERE = ["navlinkword", "sidebarlabelword", "footerwordzz", "zanzibarfrobnicate"];

let browser;
let project;
before(async () => {
  project = userProject();
  browser = await launch();
  await record(browser.context);
});
after(async () => {
  await browser?.close();
});

for (const gen of GENERATORS) {
  describe(gen.name, () => {
    let out;
    let server;
    let report;
    before(async () => {
      const dir = gen.install ? gen.install() : installed(gen.name, gen.packages);
      const site = join(CACHE, gen.name, "site");
      rmSync(site, { recursive: true, force: true });
      writeTree(site, gen.files(sitePages()));
      out = gen.build(dir, site);
      assert.ok(existsSync(out), `${gen.name} wrote no ${out}`);
      report = npxMidashi(project, [out]);
      server = await serve(out);
    });
    after(async () => {
      await server?.close();
    });

    test("npx midashi indexes the built pages and leaves the excluded one out", () => {
      assert.match(report, /Indexed \d+ documents/);
      assert.match(report, /internal\/secret[^\n]*(noindex|data-midashi-ignore|no text)/, report);
      assert.ok(existsSync(join(out, "search", "midashi.js")), "the widget is copied beside the index");
    });

    test("each query's top result opens the page at the heading searched", async () => {
      const problems = [];
      const page = await newPage(browser.context, problems);
      await page.goto(server.url + gen.home);
      await page.waitForFunction(() => customElements.get("midashi-search") !== undefined, null, { timeout: 30_000 });
      const w = widget(page);
      await w.trigger.first().click();
      await w.dialog.first().waitFor({ state: "visible" });
      for (const [query, heading, where] of QUERIES) {
        const response = await search(page, query);
        const top = response.results[0];
        assert.ok(top, `${gen.name}: no result for ${query}`);
        assert.equal(top.heading, heading, `${gen.name}: ${query} → ${top.heading} (${top.url})`);
        assert.ok(top.url.includes(where), `${gen.name}: ${query} → ${top.url}`);
        // The anchor exists on the page it opens, and is that heading.
        const target = await browser.context.newPage();
        await target.goto(new URL(gen.file(top.url), server.url).href);
        const found = await target.evaluate((a) => {
          const el = document.getElementById(a);
          return el ? { tag: el.tagName, text: el.textContent } : null;
        }, top.anchor);
        await target.close();
        assert.ok(found, `${gen.name}: #${top.anchor} is not on ${top.url}`);
        assert.match(found.tag, /^H[1-6]$/, `${gen.name}: #${top.anchor} is a ${found.tag}`);
        assert.ok(found.text.includes(heading), `${gen.name}: #${top.anchor} reads ${found.text}`);
      }
      for (const word of NOWHERE) {
        const response = await search(page, word);
        assert.deepEqual(
          response.results.map((r) => `${r.url}#${r.anchor}`),
          [],
          `${gen.name}: ${word} is only in the theme's chrome or an excluded page`,
        );
      }
      assert.deepEqual(problems, []);
      await page.screenshot({ path: join(CACHE, `${gen.name}.png`) });
      await page.close();
    });
  });
}

