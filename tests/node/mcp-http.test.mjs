// `build-index mcp <dir> --http 127.0.0.1:0` driven by the official MCP TypeScript client over
// Streamable HTTP: the same tools and answers as over stdio, a bearer token, and the request
// size and rate limits, each refused with its HTTP status. And the JS API's `quote` (what the
// widget's WebMCP tools answer) quotes results exactly as the server does.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildIndex, buildIndexBin, FIXTURE_DOCS, importMidashi } from "../support/indexes.mjs";

const ENV = { ...process.env, MIDASHI_MODEL: join(tmpdir(), "midashi-no-model") };

/** Starts `build-index mcp dir --http 127.0.0.1:0 …extra` and resolves with its URL. */
async function serve(dir, extra = []) {
  const child = spawn(buildIndexBin(), ["mcp", dir, "--http", "127.0.0.1:0", ...extra], { cwd: tmpdir(), env: ENV, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr.setEncoding("utf8");
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      err += d;
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`build-index mcp --http exited with ${code}: ${err}`)));
  });
  return { url, child, stderr: () => err };
}

async function stop(server) {
  if (!server || server.child.exitCode !== null) return;
  server.child.kill("SIGTERM");
  await once(server.child, "exit");
}

async function httpClient(url, headers = {}) {
  const client = new Client({ name: "midashi-http-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function stdioClient(dir) {
  const client = new Client({ name: "midashi-stdio-test", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ command: buildIndexBin(), args: ["mcp", dir], cwd: tmpdir(), env: ENV, stderr: "pipe" }));
  return client;
}

const text = (result) => result.content.map((c) => c.text).join("");

/** An MCP `initialize` request, as raw JSON-RPC over HTTP. */
function initialize(url, headers = {}, body = undefined) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: body ?? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } }),
  });
}

describe("build-index mcp --http", () => {
  let dir;
  let server;
  let stdio;

  before(async () => {
    dir = buildIndex(FIXTURE_DOCS);
    server = await serve(dir);
    stdio = await stdioClient(dir);
  });

  after(async () => {
    await stdio?.close();
    await stop(server);
  });

  test("serves on loopback at /mcp and answers as the stdio server does", async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await httpClient(server.url);
    try {
      assert.equal(client.getServerVersion().name, "midashi");
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ["get_document", "list_documents", "search"]);
      for (const [name, args] of [
        ["search", { query: "cursor paging", previewLines: 2 }],
        ["search", { query: "算出プロパティ", limit: 3 }],
        ["list_documents", {}],
      ]) {
        const overHttp = await client.callTool({ name, arguments: args });
        const overStdio = await stdio.callTool({ name, arguments: args });
        // Timing differs between two runs; everything else is the same answer.
        const untimed = (t) => t.replace(/, \d+\.\d ms\)/, ")");
        assert.equal(untimed(text(overHttp)), untimed(text(overStdio)), `${name} ${JSON.stringify(args)}`);
      }
      const hit = (await client.callTool({ name: "search", arguments: { query: "cursor paging" } })).structuredContent.results[0];
      const section = await client.callTool({ name: "get_document", arguments: { path: hit.path, sectionId: hit.id } });
      assert.ok(text(section).endsWith(`id: ${hit.id}\n`));
      // A mistake is a tool error, and the session goes on.
      const bad = await client.callTool({ name: "search", arguments: { query: "page", limit: 0 } });
      assert.equal(bad.isError, true);
      assert.ok((await client.listTools()).tools.length === 3);
    } finally {
      await client.close();
    }
  });

  test("a path other than /mcp is 404", async () => {
    const res = await fetch(server.url.replace(/\/mcp$/, "/other"), { method: "POST", body: "{}" });
    assert.equal(res.status, 404);
  });

  test("a request over --max-request-bytes is 413, and the server still answers", async () => {
    const small = await serve(dir, ["--max-request-bytes", "2000"]);
    try {
      const huge = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { pad: "x".repeat(5000) } });
      const res = await initialize(small.url, {}, huge);
      assert.equal(res.status, 413);
      assert.match(await res.text(), /2000/);
      const client = await httpClient(small.url);
      assert.equal((await client.listTools()).tools.length, 3);
      await client.close();
    } finally {
      await stop(small);
    }
  });

  test("a chunked body over the limit is 413, a body that is not JSON 400 with -32700", async () => {
    const small = await serve(dir, ["--max-request-bytes", "2000"]);
    try {
      // No Content-Length: the body arrives in chunks and is cut while it is read.
      const chunked = await new Promise((resolve, reject) => {
        const req = request(small.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } }, resolve);
        req.on("error", reject);
        for (let i = 0; i < 10; i++) req.write("x".repeat(500));
        req.end();
      });
      assert.equal(chunked.statusCode, 413);
      chunked.resume();
      const broken = await initialize(small.url, {}, '{"jsonrpc":"2.0","id":1,"method":"initi');
      assert.equal(broken.status, 400);
      assert.equal((await broken.json()).error.code, -32700);
    } finally {
      await stop(small);
    }
  });

  test("idle connections from one client do not lock others out, and are closed", async () => {
    const { port } = new URL(server.url);
    // 127.0.0.2 is another client on the loopback interface.
    const idle = [];
    let closedEarly = 0;
    for (let i = 0; i < 100; i++) {
      const socket = connect({ host: "127.0.0.1", port: Number(port), localAddress: "127.0.0.2" });
      socket.on("error", () => {});
      socket.on("close", () => closedEarly++);
      idle.push(socket);
    }
    await Promise.all(idle.map((s) => (s.connecting ? once(s, "connect").catch(() => {}) : null)));
    try {
      const res = await initialize(server.url);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      // The connections past the client's share are closed at once; the rest after the
      // header timeout (10 s).
      for (let t = 0; t < 40 && closedEarly < 100 - 32; t++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(closedEarly >= 100 - 32, `${closedEarly} closed`);
      const half = connect({ host: "127.0.0.1", port: Number(port) });
      half.on("error", () => {});
      half.resume();
      half.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      const closed = once(half, "close");
      const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("a half-sent request stayed open 20 s")), 20_000));
      await Promise.race([closed, timeout]);
    } finally {
      for (const s of idle) s.destroy();
    }
  });

  test("with --token, a request without it is 401 and the client with it works", async () => {
    const guarded = await serve(dir, ["--token", "s3cret-token"]);
    try {
      const none = await initialize(guarded.url);
      assert.equal(none.status, 401);
      assert.match(none.headers.get("www-authenticate") ?? "", /Bearer/);
      const wrong = await initialize(guarded.url, { authorization: "Bearer s3cret-tokem" });
      assert.equal(wrong.status, 401);
      const client = await httpClient(guarded.url, { authorization: "Bearer s3cret-token" });
      const found = await client.callTool({ name: "search", arguments: { query: "install" } });
      assert.ok(!found.isError);
      await client.close();
    } finally {
      await stop(guarded);
    }
  });

  test("past --rate-limit a client gets 429 with Retry-After", async () => {
    const limited = await serve(dir, ["--rate-limit", "3"]);
    try {
      const statuses = [];
      let retry;
      for (let i = 0; i < 6; i++) {
        const res = await initialize(limited.url);
        statuses.push(res.status);
        if (res.status === 429) retry = res.headers.get("retry-after");
        await res.body?.cancel();
      }
      assert.deepEqual(statuses.slice(0, 3), [200, 200, 200], statuses.join(","));
      assert.ok(statuses.slice(3).every((s) => s === 429), statuses.join(","));
      assert.ok(Number(retry) >= 1, `Retry-After: ${retry}`);
    } finally {
      await stop(limited);
    }
  });

  test("the JS API's quote (the widget's WebMCP search_docs) quotes as the server does", async () => {
    const { Midashi } = await importMidashi();
    const midashi = await Midashi.load(dir, { worker: false });
    try {
      for (const [query, options] of [
        ["cursor paging", { previewLines: 2 }],
        ["算出プロパティ", { limit: 3 }],
        ["install", { path: "en/" }],
      ]) {
        const served = text(await stdio.callTool({ name: "search", arguments: { query, ...options } }));
        const quoted = await midashi.quote(query, { ...options, mode: "keyword" });
        // Each result's block: the same, but for the section size (the page counts a
        // section's own text, the server the whole quoted section).
        const blocks = (t) => t.split(/\n(?=\d+\. )/).slice(1).map((b) => b.replace(/ \| Tokens: \d+/, ""));
        assert.deepEqual(blocks(quoted.text), blocks(served), query);
        assert.ok(blocks(quoted.text).length > 0, query);
        assert.match(quoted.text, /call get_section with the id\./);
        assert.equal(quoted.results.length, blocks(quoted.text).length);
        assert.ok(quoted.tokens > 0 && quoted.leftOut === 0);
      }
      // A token budget keeps whole results only.
      const all = await midashi.quote("install", {});
      const some = await midashi.quote("install", { tokenBudget: all.tokens - 1 });
      assert.ok(some.results.length < all.results.length && some.leftOut > 0, some.text);
      assert.match(some.text, /did not fit in the token budget/);

      // A section by id, as get_document gives it; with a link, Markdown to paste.
      const hit = all.results[0];
      const whole = await midashi.quoteSection(hit.id);
      const served = text(await stdio.callTool({ name: "get_document", arguments: { path: hit.path, sectionId: hit.id } }));
      assert.equal(whole, served);
      const paste = await midashi.quoteSection(hit.id, { link: "https://docs.example/en/getting-started#install" });
      assert.ok(paste.startsWith(`[${hit.heading_path.join(" › ")}](<https://docs.example/en/getting-started#install>) · ${hit.path}, lines ${hit.start_line}–${hit.end_line}\n\n`), paste);
      assert.equal(await midashi.quoteSection("ffffffffffffffff"), null);
      await assert.rejects(midashi.quote("install", { tokenBudget: -1 }), { code: "INVALID_OPTION" });
      await assert.rejects(midashi.quoteSection(42), { code: "INVALID_OPTION" });
    } finally {
      midashi.close();
    }
  });
});
