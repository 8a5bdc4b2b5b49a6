// How long semantic search takes to be ready on a first and on a second visit of a site
// (#21 item 4), in headless Chromium over scripts/serve.mjs (hashed files immutable, the rest
// revalidated): the demo site built with the default model, `warmup()` timed from the call
// to `ready`, then the page opened again in the same browser profile (HTTP cache and V8's
// wasm code cache warm). Prints the times and what the second visit fetched.
//
//   node bench/second-visit.mjs [--runs 3]

import { join } from "node:path";
import { ROOT, buildSite, launch, remove, serve } from "../tests/browser/helpers.mjs";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1]) || 3;
const site = buildSite(join(ROOT, "docs"), { name: "second-visit", semantic: true });
const server = await serve(site);
const rows = [];
try {
  for (let r = 0; r < runs; r++) {
    const browser = await launch();
    try {
      for (const visit of ["first", "second"]) {
        const page = await browser.context.newPage();
        await page.goto(server.url + "/index.html");
        await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
        // Opening the box loads the keyword index; then semantic search is asked for.
        await page.keyboard.press("Control+k");
        await page.waitForFunction(() => document.querySelector("midashi-search").searchSource !== undefined);
        server.requests.length = 0;
        const ms = await page.evaluate(async () => {
          const source = document.querySelector("midashi-search").searchSource;
          const started = performance.now();
          await source.warmup();
          return performance.now() - started;
        });
        const fetched = server.requests.length;
        rows.push({ run: r + 1, visit, ms: Math.round(ms), requests: fetched });
        server.requests.length = 0;
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
  remove(site);
}
console.log("| run | visit | warmup → ready (ms) | semantic requests that reached the server |");
console.log("|---:|---|---:|---:|");
for (const r of rows) console.log(`| ${r.run} | ${r.visit} | ${r.ms} | ${r.requests} |`);
