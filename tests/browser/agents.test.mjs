// The docs site for AI agents, in headless Chromium over the demo (docs/ built with
// `build-index --site`, served from 127.0.0.1): llms.txt, llms-full.txt and a Markdown copy
// of each page served beside it; "Copy as Markdown" on a result; and the widget's WebMCP tools
// (`search_docs`, `get_section`) registered with a stub of the browser's API, answering
// exactly what `build-index mcp` answers for the same index.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ROOT, buildIndexBin, buildSite, launch, newPage, record, remove, search, serve, widget } from "./helpers.mjs";

let site;
let server;
let browser;
let mcp;

before(async () => {
  site = buildSite(join(ROOT, "docs"), { name: "agents" });
  server = await serve(site);
  browser = await launch();
  await record(browser.context);
  await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  mcp = new Client({ name: "midashi-agents-test", version: "0.0.0" });
  await mcp.connect(
    new StdioClientTransport({
      command: buildIndexBin(),
      args: ["mcp", join(site, "search")],
      cwd: tmpdir(),
      env: { ...process.env, MIDASHI_MODEL: join(tmpdir(), "midashi-no-model") },
      stderr: "pipe",
    }),
  );
});

after(async () => {
  await mcp?.close();
  await browser?.close();
  await server?.close();
  remove(site);
});

/**
 * A page of the site with a stub of WebMCP's `document.modelContext` installed before the
 * widget runs: registered tools land in `window.__tools`, and leave when their signal aborts.
 */
async function openWithWebMcp(path = "/index.html") {
  const problems = [];
  const page = await newPage(browser.context, problems);
  const fetched = [];
  page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
  await page.addInitScript(() => {
    const tools = {};
    Object.defineProperty(window, "__tools", { value: tools });
    Object.defineProperty(document, "modelContext", {
      value: {
        registerTool(tool, options) {
          if (tools[tool.name]) throw new DOMException(`a tool named ${tool.name} is registered`, "InvalidStateError");
          tools[tool.name] = tool;
          options?.signal?.addEventListener("abort", () => delete tools[tool.name]);
        },
      },
    });
  });
  await page.goto(server.url + path);
  await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
  return { page, problems, fetched, w: widget(page) };
}

const call = (page, name, input) => page.evaluate(([n, i]) => window.__tools[n].execute(i, {}), [name, input]);
const blocks = (t) => t.split(/\n(?=\d+\. )/).slice(1).map((b) => b.replace(/ \| Tokens: \d+/, ""));

describe("files for agents", () => {
  test("llms.txt, llms-full.txt and page.md are served beside the pages", async () => {
    const llms = await (await fetch(`${server.url}/llms.txt`)).text();
    assert.match(llms, /^# .+\n\n> .+\n/);
    const links = [...llms.matchAll(/^- \[([^\]]+)\]\(([^)]+)\)/gm)].map((m) => m[2]);
    assert.ok(links.length >= 10, llms);
    for (const link of links) {
      const res = await fetch(new URL(link, `${server.url}/`));
      assert.equal(res.status, 200, link);
      assert.match(link, /\.md$/);
    }
    const full = await (await fetch(`${server.url}/llms-full.txt`)).text();
    assert.ok(full.length > llms.length * 5);
    // The Markdown as written: its code fences, without the site's HTML.
    const page = await (await fetch(new URL(links[0], `${server.url}/`))).text();
    assert.ok(!/<html|<nav/i.test(page));
    assert.ok(existsSync(join(site, "llms.txt")) && readFileSync(join(site, "llms.txt"), "utf8") === llms);
  });
});

describe("Copy as Markdown", () => {
  test("the button and Ctrl+C copy the selected section with its heading path and link", async () => {
    const { page, problems, w } = await openWithWebMcp();
    await page.keyboard.press("Control+k");
    await w.dialog.waitFor({ state: "visible" });
    const response = await search(page, "token budget");
    assert.ok(response.results.length > 1);
    const copy = page.locator("midashi-search .copy-action");
    await copy.waitFor({ state: "visible" });
    assert.match(await copy.innerText(), /Copy as Markdown/);
    await page.screenshot({ path: join(tmpdir(), "midashi-copy-markdown.png") });

    await copy.click();
    await page.waitForFunction(() => /Copied/.test(document.querySelector("midashi-search").shadowRoot.querySelector("[role=status]").textContent));
    const first = response.results[0];
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const link = await page.evaluate((hit) => document.querySelector("midashi-search").hrefFor(hit), first);
    assert.ok(link.startsWith(server.url), link);
    assert.ok(copied.startsWith(`[${first.heading_path.join(" › ")}](<${link}>) · ${first.path}, lines ${first.start_line}–${first.end_line}\n\n`), copied);
    const section = (await mcp.callTool({ name: "get_document", arguments: { path: first.path, sectionId: first.id } })).content[0].text;
    // The whole section, not the preview.
    const body = copied.slice(copied.indexOf("\n\n") + 2).trimEnd();
    assert.ok(section.includes(body), `${body}\n---\n${section}`);
    assert.ok(body.split("\n").length > 3);
    // Focus stayed in the search box.
    assert.equal(await w.input.evaluate((el) => el.getRootNode().activeElement === el), true);

    // The second result, by keyboard: with nothing selected in the input, Ctrl+C copies it.
    await page.keyboard.press("ArrowDown");
    await w.input.evaluate((el) => el.setSelectionRange(el.value.length, el.value.length));
    await page.keyboard.press("Control+c");
    const second = response.results[1];
    await page.waitForFunction((h) => navigator.clipboard.readText().then((t) => t.includes(` · ${h.path}, lines ${h.start_line}–`)), second);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("WebMCP", () => {
  test("search_docs and get_section answer as build-index mcp does", async () => {
    const { page, problems } = await openWithWebMcp();
    const names = await page.waitForFunction(() => Object.keys(window.__tools).sort().join(","));
    assert.equal(await names.jsonValue(), "get_section,search_docs");
    const schema = await page.evaluate(() => window.__tools.search_docs.inputSchema);
    assert.deepEqual(schema.required, ["query"]);
    assert.ok(schema.properties.filters.properties.path && schema.properties.limit);
    // Registering loaded nothing: no index file was fetched yet.
    assert.equal(await page.evaluate(() => performance.getEntriesByType("resource").some((r) => r.name.includes("midashi-entry"))), false);

    for (const [query, limit] of [["token budget", 5], ["ウィジェット", 3], ["mcp server", 10]]) {
      const found = await call(page, "search_docs", { query, limit });
      assert.ok(!found.isError, found.content[0].text);
      const served = (await mcp.callTool({ name: "search", arguments: { query, limit } })).content[0].text;
      assert.ok(blocks(served).length > 0, query);
      assert.deepEqual(blocks(found.content[0].text), blocks(served), query);
    }

    const filtered = await call(page, "search_docs", { query: "install", filters: { path: "getting-started/", depth: [1, 2] } });
    const paths = [...filtered.content[0].text.matchAll(/^\d+\. (\S+) > /gm)].map((m) => m[1]);
    assert.ok(paths.length > 0 && paths.every((p) => p.startsWith("getting-started/")), filtered.content[0].text);
    assert.ok([...filtered.content[0].text.matchAll(/^Level: (\S+)/gm)].every((m) => m[1] === "H1" || m[1] === "H2"));

    const id = /^id: ([0-9a-f]{16})$/m.exec((await call(page, "search_docs", { query: "token budget", limit: 1 })).content[0].text)[1];
    const hitPath = /^1\. (\S+) > /m.exec((await call(page, "search_docs", { query: "token budget", limit: 1 })).content[0].text)[1];
    const got = await call(page, "get_section", { id });
    assert.ok(!got.isError);
    const served = (await mcp.callTool({ name: "get_document", arguments: { path: hitPath, sectionId: id } })).content[0].text;
    assert.equal(got.content[0].text, served);

    // Mistakes are tool errors that say what to pass, never exceptions.
    for (const [name, input, want] of [
      ["search_docs", { query: "" }, /query must be a non-empty string/],
      ["search_docs", { query: "x", limit: 0 }, /limit must be a whole number from 1 to 50/],
      ["search_docs", { query: "x", filters: { depth: ["h2"] } }, /filters\.depth/],
      ["get_section", { id: "ffffffffffffffff" }, /no section "ffffffffffffffff"/],
      ["get_section", {}, /id must be/],
    ]) {
      const r = await call(page, name, input);
      assert.equal(r.isError, true, JSON.stringify(input));
      assert.match(r.content[0].text, want);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("webmcp=\"off\" takes the tools back; no API, no tools and no errors", async () => {
    const { page, problems, fetched: withApi } = await openWithWebMcp();
    await page.waitForFunction(() => Object.keys(window.__tools).length === 2);
    // The tools are a module of their own, fetched only by a browser that has WebMCP.
    assert.ok(withApi.some((p) => p.endsWith("/webmcp.js")), withApi.join("\n"));
    await page.evaluate(() => document.querySelector("midashi-search").setAttribute("webmcp", "off"));
    assert.equal(await page.evaluate(() => Object.keys(window.__tools).length), 0);
    await page.evaluate(() => document.querySelector("midashi-search").removeAttribute("webmcp"));
    await page.waitForFunction(() => Object.keys(window.__tools).length === 2);
    // Off and on again before the tools' module could answer: registered once, not twice.
    await page.evaluate(() => {
      const box = document.querySelector("midashi-search");
      box.setAttribute("webmcp", "off");
      box.removeAttribute("webmcp");
      box.setAttribute("webmcp", "off");
    });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await page.evaluate(() => Object.keys(window.__tools).length), 0);
    await page.evaluate(() => document.querySelector("midashi-search").removeAttribute("webmcp"));
    await page.waitForFunction(() => Object.keys(window.__tools).length === 2);
    assert.deepEqual(problems, []);
    await page.close();

    // A browser without WebMCP: the box works as ever, and the tools' module is not fetched.
    const plain = await newPage(browser.context);
    const fetched = [];
    plain.on("request", (r) => fetched.push(new URL(r.url()).pathname));
    await plain.goto(`${server.url}/index.html`);
    await plain.waitForFunction(() => customElements.get("midashi-search") !== undefined);
    assert.equal(await plain.evaluate(() => "modelContext" in document || "modelContext" in navigator), false);
    await plain.waitForLoadState("networkidle");
    assert.ok(fetched.some((p) => p.endsWith("/midashi.js")) && !fetched.some((p) => p.endsWith("/webmcp.js")), fetched.join("\n"));
    await plain.close();
  });
});

describe("WebMCP in Chromium itself", () => {
  test("with the browser's own API (--enable-features=WebMCP), an agent lists and calls the tools", async () => {
    const real = await launch({ args: ["--enable-features=WebMCP"] });
    try {
      const page = await newPage(real.context);
      await page.goto(`${server.url}/index.html`);
      await page.waitForFunction(() => customElements.get("midashi-search") !== undefined);
      assert.equal(await page.evaluate(() => typeof document.modelContext?.registerTool), "function", "this Chromium has WebMCP behind --enable-features=WebMCP");
      // The tools' module is fetched once the element sees the API.
      let tools = [];
      for (let i = 0; i < 50 && tools.length < 2; i++) {
        tools = await page.webmcp.tools();
        if (tools.length < 2) await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(tools.map((t) => t.name).sort(), ["get_section", "search_docs"]);
      const found = await page.webmcp.callTool("search_docs", { query: "token budget", limit: 2 });
      assert.ok(!found.isError);
      const served = (await mcp.callTool({ name: "search", arguments: { query: "token budget", limit: 2 } })).content[0].text;
      assert.deepEqual(blocks(found.content[0].text), blocks(served));
      const id = /^id: ([0-9a-f]{16})$/m.exec(found.content[0].text)[1];
      const section = await page.webmcp.callTool("get_section", { id });
      assert.match(section.content[0].text, new RegExp(`id: ${id}\\n$`));
      await page.evaluate(() => document.querySelector("midashi-search").setAttribute("webmcp", "off"));
      assert.deepEqual(await page.webmcp.tools(), []);
    } finally {
      await real.close();
    }
  });
});
