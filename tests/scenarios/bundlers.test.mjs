// Every bundler: an app imports `{ Midashi } from "midashi"` and `"midashi/widget"` from the
// packed tarball, unchanged, and is built with Vite (and served by Vite's dev server),
// webpack 5 and esbuild; in headless Chromium, the API answers and the <midashi-search>
// element searches. The index is written by `npx midashi` (cargo hidden from PATH).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { launch, newPage, record, search, serve, widget } from "../browser/helpers.mjs";
import { BUNDLERS } from "./generators.mjs";
import { installed, npxMidashi, packedTarball, run, userProject, writeTree } from "./harness.mjs";

const MAIN = `import { Midashi } from "midashi";
import "midashi/widget";
const idx = await Midashi.load("/search/");
const r = await idx.search("retry policy");
window.__answer = r.results.map((h) => h.heading);
`;
const HTML = (src) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>app</title><link rel="icon" href="data:,"></head>
<body><midashi-search index="/search/"></midashi-search><script type="module" src="${src}"></script></body></html>`;

let browser;
let app;
let index;
before(async () => {
  // The app's own packages and the tarball, as an app's developer installs them.
  app = installed(BUNDLERS.name, BUNDLERS.packages);
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", packedTarball()], { cwd: app });
  const project = userProject();
  index = join(app, "index");
  rmSync(index, { recursive: true, force: true });
  // A built site (two pages), indexed as a user does: the index and the widget's files.
  const site = join(app, "site");
  rmSync(site, { recursive: true, force: true });
  writeTree(site, {
    "guide/index.html": `<html lang="en"><body><main><h1 id="guide">Guide</h1><h2 id="retry-policy">Retry Policy</h2><p>Failed jobs are retried.</p></main></body></html>`,
    "deploy.html": `<html lang="en"><body><main><h1 id="deploy">Deploying</h1><h2 id="static-hosting">Static Hosting</h2><p>Upload the folder.</p></main></body></html>`,
  });
  npxMidashi(project, [site, "--out", index, "--quiet"]);
  writeTree(app, { "src/main.js": MAIN, "index.html": HTML("/src/main.js") });
  browser = await launch();
  await record(browser.context);
});
after(async () => {
  await browser?.close();
});

/** Opens `url`; the API's answer and the widget's first result for a query. */
async function check(url) {
  const problems = [];
  const page = await newPage(browser.context, problems);
  await page.goto(url);
  const answer = await (await page.waitForFunction(() => window.__answer, null, { timeout: 30_000 })).jsonValue();
  assert.equal(answer[0], "Retry Policy");
  const w = widget(page);
  await w.trigger.click();
  const response = await search(page, "static hosting");
  assert.equal(response.results[0].heading, "Static Hosting");
  assert.deepEqual(problems, []);
  await page.close();
}

/** A built app's folder with the index beside it at /search/. */
function withIndex(dist) {
  cpSync(index, join(dist, "search"), { recursive: true });
  return dist;
}

describe("bundlers", () => {
  test("Vite build", async () => {
    rmSync(join(app, "dist"), { recursive: true, force: true });
    run(join(app, "node_modules", ".bin", "vite"), ["build", "--logLevel", "error"], { cwd: app });
    const server = await serve(withIndex(join(app, "dist")));
    try {
      await check(`${server.url}/index.html`);
    } finally {
      await server.close();
    }
  });

  test("Vite dev server", async () => {
    mkdirSync(join(app, "public"), { recursive: true });
    rmSync(join(app, "public", "search"), { recursive: true, force: true });
    cpSync(index, join(app, "public", "search"), { recursive: true });
    const port = 5300 + Math.floor(Math.random() * 500);
    const dev = spawn(join(app, "node_modules", ".bin", "vite"), ["--port", String(port), "--strictPort", "--host", "127.0.0.1"], { cwd: app, stdio: ["ignore", "pipe", "pipe"] });
    try {
      await new Promise((resolve, reject) => {
        let out = "";
        const seen = (d) => {
          out += d;
          if (out.includes(String(port))) resolve();
        };
        dev.stdout.on("data", seen);
        dev.stderr.on("data", seen);
        dev.on("exit", (code) => reject(new Error(`vite exited with ${code}: ${out}`)));
        setTimeout(() => reject(new Error(`vite did not start: ${out}`)), 30_000);
      });
      await check(`http://127.0.0.1:${port}/`);
    } finally {
      dev.kill();
      rmSync(join(app, "public", "search"), { recursive: true, force: true });
    }
  });

  test("webpack 5", async () => {
    const dist = join(app, "dist-webpack");
    rmSync(dist, { recursive: true, force: true });
    writeTree(app, {
      "webpack.config.mjs": `export default { mode: "production", entry: "./src/main.js", output: { path: ${JSON.stringify(dist)}, filename: "main.js", publicPath: "auto" }, performance: { hints: false } };\n`,
    });
    run(join(app, "node_modules", ".bin", "webpack"), ["--config", "webpack.config.mjs"], { cwd: app });
    writeTree(dist, { "index.html": HTML("/main.js") });
    const server = await serve(withIndex(dist));
    try {
      await check(`${server.url}/index.html`);
    } finally {
      await server.close();
    }
  });

  test("esbuild", async () => {
    const dist = join(app, "dist-esbuild");
    rmSync(dist, { recursive: true, force: true });
    run(join(app, "node_modules", ".bin", "esbuild"), ["src/main.js", "--bundle", "--format=esm", "--splitting", `--outdir=${join(dist, "app")}`, "--log-level=warning"], { cwd: app });
    writeTree(dist, { "index.html": HTML("/app/main.js") });
    const server = await serve(withIndex(dist));
    try {
      await check(`${server.url}/index.html`);
    } finally {
      await server.close();
    }
  });
});
