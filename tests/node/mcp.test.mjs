// `build-index mcp <dir>` driven by the official MCP TypeScript client over stdio, as an agent
// would: initialise, list the tools, search (English and Japanese), read a section by the id a
// search gave, list documents, cap an answer with a token budget, and make mistakes (unknown
// id, empty query, bad limit, unknown argument) after which the server still answers.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { buildIndex, buildIndexBin, FIXTURE_DOCS, tempDir } from "../support/indexes.mjs";

const execFileAsync = promisify(execFile);

/** Starts the server on `dir` and connects a client to it. */
async function connect(dir) {
  const transport = new StdioClientTransport({
    command: buildIndexBin(),
    args: ["mcp", dir],
    // No default model (one beside build-index would be found from any folder): these
    // indexes are keyword-only, and token counts then come from the index's estimate.
    cwd: tmpdir(),
    env: { ...process.env, MIDASHI_MODEL: join(tmpdir(), "midashi-no-model") },
    stderr: "pipe",
  });
  const client = new Client({ name: "midashi-test", version: "0.0.0" });
  await client.connect(transport);
  return { client };
}

/** The text of a tool result (one text block). */
function text(result) {
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, "text");
  return result.content[0].text;
}

describe("build-index mcp", () => {
  let dir;
  let client;

  before(async () => {
    dir = buildIndex(FIXTURE_DOCS);
    ({ client } = await connect(dir));
  });

  after(async () => {
    await client?.close();
  });

  test("initialises with the server's name and instructions", () => {
    const info = client.getServerVersion();
    assert.equal(info.name, "midashi");
    assert.match(client.getInstructions(), /6 documents, \d+ sections; keyword search/);
    assert.ok(client.getServerCapabilities().tools);
  });

  test("lists the three tools with their arguments", async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(Object.keys(byName).sort(), ["get_document", "list_documents", "search"]);
    const search = byName.search.inputSchema;
    assert.deepEqual(search.required, ["query"]);
    for (const arg of ["query", "mode", "limit", "depth", "path", "previewLines", "tokenBudget"]) {
      assert.ok(search.properties[arg], `search takes ${arg}`);
    }
    assert.deepEqual(byName.get_document.inputSchema.required, ["path"]);
    assert.ok(byName.get_document.inputSchema.properties.sectionId);
    assert.ok(byName.list_documents.inputSchema.properties.path);
    assert.equal(byName.search.annotations?.readOnlyHint, true);
    assert.match(byName.search.description, /get_document/);
  });

  test("search quotes sections as the CLI does, with the same hits", async () => {
    const result = await client.callTool({ name: "search", arguments: { query: "cursor paging", previewLines: 2 } });
    assert.ok(!result.isError);
    const out = text(result);
    const first = result.structuredContent.results[0];
    assert.equal(first.path, "en/pagination.md");
    assert.equal(first.heading, "Cursor-based paging");
    // The quoted block: breadcrumb, metadata with the section's size, where the words
    // matched when that is past the preview (the excerpt), fenced preview, id.
    const pastPreview = first.excerpt_highlights.length > 0 && first.excerpt_line > first.end_line - first.more_lines;
    assert.ok(pastPreview, "two preview lines hold the heading only: the match is past them");
    const block = [
      `1. en/pagination.md > ${first.heading_path.join(" > ")}`,
      `Level: H3 | Section: ${first.section_number} | Line: ${first.start_line}-${first.end_line} | Score: SCORE | Tokens: ${first.section_tokens}`,
      `Matched at line ${first.excerpt_line}: ${first.excerpt}`,
      "```markdown",
      first.preview,
    ].join("\n");
    // The score to two decimals (Rust rounds a tie such as 8.625 to even, JS's toFixed up).
    const shown = /Score: (\d+\.\d\d) \|/.exec(out);
    assert.ok(shown && Math.abs(Number(shown[1]) - first.score) <= 0.005 + 1e-9, out);
    assert.ok(out.includes(block.replace("SCORE", shown[1])), out);
    assert.ok(out.includes(`id: ${first.id}\n`));
    assert.match(out, /only the first 2 lines of its section/);
    assert.match(out, /call get_document with its path and sectionId/);
    assert.ok(first.tokens > 0 && first.section_tokens > 0);
    assert.equal(result.structuredContent.token_counter, "estimate");

    // Same hits, same order as `build-index search --mode keyword --json`.
    const { stdout } = await execFileAsync(buildIndexBin(), ["search", dir, "cursor paging", "--json", "--mode", "keyword", "--preview-lines", "2"]);
    const cli = JSON.parse(stdout);
    assert.deepEqual(
      result.structuredContent.results.map((h) => h.id),
      cli.results.map((h) => h.id),
    );
    assert.equal(result.structuredContent.total, cli.total);
  });

  test("summaries come before previews", async () => {
    const result = await client.callTool({ name: "search", arguments: { query: "install", path: "en/" } });
    const out = text(result);
    // (The preview holds a code fence, so the quote's fence is longer.)
    const at = out.search(/Summary: Install the library and run your first search\.\n`{3,}markdown\n/);
    assert.ok(at > 0, out);
    assert.match(out.slice(0, at), /\n1\. en\/getting-started\.md > [^\n]+\nLevel: [^\n]+\n$/);
  });

  test("Japanese queries find Japanese sections, fetched whole by id", async () => {
    const result = await client.callTool({ name: "search", arguments: { query: "算出プロパティ", limit: 3 } });
    const first = result.structuredContent.results[0];
    assert.equal(first.path, "ja/reactivity.md");
    assert.equal(first.heading, "算出プロパティ");
    assert.ok(text(result).includes("1. ja/reactivity.md > リアクティビティー"));

    const section = await client.callTool({ name: "get_document", arguments: { path: first.path, sectionId: first.id } });
    assert.ok(!section.isError);
    const whole = text(section);
    assert.ok(whole.includes("## 算出プロパティ {#computed-properties}"));
    assert.ok(whole.includes("### 算出プロパティとメソッドの比較"), "subsections are part of the section");
    assert.ok(!whole.includes("## ウォッチャー"), "the next section is not");
    assert.ok(whole.endsWith(`id: ${first.id}\n`));
    assert.equal(section.structuredContent.id, first.id);
    assert.ok(section.structuredContent.tokens > 0);

    // By heading anchor: the same section.
    const byAnchor = await client.callTool({ name: "get_document", arguments: { path: first.path, sectionId: "computed-properties" } });
    assert.equal(text(byAnchor), whole);
  });

  test("a whole document", async () => {
    const doc = await client.callTool({ name: "get_document", arguments: { path: "en/pagination.md" } });
    const out = text(doc);
    assert.ok(out.startsWith("en/pagination.md — Pagination\n"));
    assert.ok(out.includes("Pagination has its own configuration block"));
    assert.equal(doc.structuredContent.sections.length, 5);
  });

  test("list_documents lists documents under a prefix", async () => {
    const result = await client.callTool({ name: "list_documents", arguments: { path: "ja/" } });
    const out = text(result);
    assert.ok(out.startsWith('3 documents under "ja/" (6 in the index)\n'), out);
    assert.match(out, /- ja\/reactivity\.md — リアクティビティー \(\d+ sections\)/);
    assert.deepEqual(result.structuredContent.documents.map((d) => d.path).sort(), ["ja/getting-started.md", "ja/pagination.md", "ja/reactivity.md"]);
    for (const d of result.structuredContent.documents) assert.ok(d.sections >= 1);
    const all = await client.callTool({ name: "list_documents", arguments: {} });
    assert.equal(all.structuredContent.total, 6);
  });

  test("a token budget caps the answer at whole results", async () => {
    const full = await client.callTool({ name: "search", arguments: { query: "install", limit: 10 } });
    const tokens = full.structuredContent.results.map((h) => h.tokens);
    assert.ok(tokens.length >= 3, JSON.stringify(tokens));
    const budget = tokens[0] + tokens[1] + Math.floor(tokens[2] / 2);
    const capped = await client.callTool({ name: "search", arguments: { query: "install", limit: 10, tokenBudget: budget } });
    assert.equal(capped.structuredContent.results.length, 2);
    assert.equal(capped.structuredContent.tokens, tokens[0] + tokens[1]);
    assert.ok(capped.structuredContent.tokens <= budget);
    assert.equal(capped.structuredContent.left_out, tokens.length - 2);
    assert.match(text(capped), new RegExp(`of a ${budget}-token budget`));
    assert.match(text(capped), /more results did not fit in the token budget/);
  });

  test("mistakes are answered with clear errors and the server keeps answering", async () => {
    const unknownId = await client.callTool({ name: "get_document", arguments: { path: "en/pagination.md", sectionId: "0123456789abcdef" } });
    assert.equal(unknownId.isError, true);
    assert.match(text(unknownId), /no section "0123456789abcdef" in en\/pagination\.md/);

    const unknownPath = await client.callTool({ name: "get_document", arguments: { path: "nope.md" } });
    assert.equal(unknownPath.isError, true);
    assert.match(text(unknownPath), /no document "nope\.md".*list_documents/);

    // A blank query is no mistake: an empty answer.
    const empty = await client.callTool({ name: "search", arguments: { query: "   " } });
    assert.ok(!empty.isError);
    assert.match(text(empty), /^0 results/);

    const badLimit = await client.callTool({ name: "search", arguments: { query: "page", limit: 0 } });
    assert.equal(badLimit.isError, true);
    assert.match(text(badLimit), /limit: 0 is not between 1 and 1000/);

    const semantic = await client.callTool({ name: "search", arguments: { query: "page", mode: "semantic" } });
    assert.equal(semantic.isError, true);
    assert.match(text(semantic), /no vectors/);

    // Arguments of the wrong shape: rmcp answers with the deserialiser's message.
    const wrongType = await client.callTool({ name: "search", arguments: { query: "page", limit: "ten" } });
    assert.equal(wrongType.isError, true);
    assert.match(text(wrongType), /invalid type: string "ten"/);
    const wrongName = await client.callTool({ name: "search", arguments: { query: "page", preview_lines: 3 } });
    assert.equal(wrongName.isError, true);
    assert.match(text(wrongName), /unknown field `preview_lines`, expected one of .*`previewLines`/);
    // An unknown tool is a protocol error.
    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), (e) => e.code === -32602);

    // Still alive and answering.
    const after = await client.callTool({ name: "search", arguments: { query: "offset", limit: 1 } });
    assert.ok(!after.isError);
    assert.equal(after.structuredContent.results.length, 1);
  });
});

test("a folder that is not an index: a clear error and exit code 2", async () => {
  const empty = tempDir("midashi-not-an-index-");
  await assert.rejects(execFileAsync(buildIndexBin(), ["mcp", empty]), (e) => {
    assert.equal(e.code, 2);
    assert.match(String(e.stderr), /no Midashi index here/);
    assert.equal(String(e.stdout), "", "nothing on the protocol channel");
    return true;
  });
});

test("a request holding a lone surrogate escape (a string cut inside an emoji) is answered; one over the size limit is refused", async () => {
  const dir = buildIndex(FIXTURE_DOCS);
  const { spawn } = await import("node:child_process");
  const child = spawn(buildIndexBin(), ["mcp", dir], { stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, MIDASHI_MODEL: join(tmpdir(), "midashi-no-model") } });
  const replies = [];
  let buffer = "";
  child.stdout.on("data", (d) => {
    buffer += d;
    let i;
    while ((i = buffer.indexOf("\n")) >= 0) {
      replies.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
  });
  const send = (line) => child.stdin.write(line + "\n");
  const reply = async (id) => {
    for (let t = 0; t < 200; t++) {
      const r = replies.find((x) => x.id === id);
      if (r) return r;
      await new Promise((res) => setTimeout(res, 25));
    }
    throw new Error(`no reply to request ${id}: ${JSON.stringify(replies)}`);
  };
  try {
    send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } }));
    await reply(1);
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    // What JSON.stringify writes for "offset" followed by half of an emoji.
    const cut = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search", arguments: { query: "offset \ud83d" } } });
    assert.ok(cut.includes("\\ud83d"), cut);
    send(cut);
    const r = await reply(2);
    assert.equal(r.result.isError, false, JSON.stringify(r));
    assert.ok(r.result.structuredContent.results.length > 0, JSON.stringify(r));

    // A request over --max-request-bytes (1 MB by default), sent in one line: an error that
    // says why, with its id, and the server goes on.
    send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "search", arguments: { query: "x ".repeat(1_500_000) } } }));
    const refused = await reply(3);
    assert.match(refused.error?.message ?? "", /request over 1000000 bytes .*--max-request-bytes/, JSON.stringify(refused));
    send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }));
    assert.equal((await reply(4)).result.tools.length, 3);

    // A line that is not JSON (cut short, or nested past any parser's depth): a parse error,
    // as JSON-RPC says, never silence; the server goes on.
    send('{"jsonrpc":"2.0","id":5,"method":"tools/li');
    send("[".repeat(100_000));
    for (let t = 0; t < 200 && replies.filter((r) => r.id === null).length < 2; t++) {
      await new Promise((res) => setTimeout(res, 25));
    }
    const parseErrors = replies.filter((r) => r.id === null);
    assert.equal(parseErrors.length, 2, JSON.stringify(replies.slice(-3)));
    for (const e of parseErrors) assert.equal(e.error?.code, -32700, JSON.stringify(e));
    send(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/list" }));
    assert.equal((await reply(6)).result.tools.length, 3);
  } finally {
    child.kill();
  }
});
