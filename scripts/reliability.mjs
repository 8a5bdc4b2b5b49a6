// The reliability probe: an index folder damaged every way bad luck and bad actors damage one,
// and abusive input, through every interface, with one invariant — any bytes and any input
// end in the intact index's answer or a typed error, within a time bound and a memory bound.
//
//   node scripts/reliability.mjs [--docs <folder>] [--timeout-s 20] [--max-rss-mb 1536]
//
// (npm run reliability; bench/results/*-reliability-*.md are its reports.)
//
// Probes, per file of the index (every kind; up to three of each many-file kind):
//   cut      truncated at 0, 1, 20, 21 bytes, half, all but one
//   flip     one bit flipped in the header's kind and length, mid-payload, in the last byte
//   swap     another file of the same index put in its place
//   build    the file of the same kind from a build of slightly edited docs, under this name
//   special  a FIFO, a link to /dev/zero, a link out of the folder, a sparse 1 GB file, a folder
// each searched through the CLI (`build-index search`) and the JS API in Node, a fresh process
// per probe; then abusive options and queries through both, garbage lines to the MCP server
// over stdio, and idle and half-sent requests to it over HTTP.
//
// Outcomes: same (the intact index's answer), typed (an error with a code or `error:` message),
// and the failures: WRONG (another answer without an error), HANG (past the time bound),
// MEMORY (past the memory bound), CRASH (a panic, a trap, an untyped error, no answer).
// Prints a table of counts and exits 1 if any failure occurred.

import { spawn, execFileSync } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { parseArgs } from "node:util";
import { headingQueries } from "../bench/lib/corpus-queries.mjs";
import { buildIndexBin, packageUrl, ROOT, tempDir } from "../tests/support/indexes.mjs";

const { values: opts } = parseArgs({
  options: {
    docs: { type: "string", default: path.join(ROOT, "docs") },
    "timeout-s": { type: "string", default: "20" },
    "max-rss-mb": { type: "string", default: "1536" },
  },
});
const TIMEOUT_MS = Number(opts["timeout-s"]) * 1000;
const MAX_RSS_KB = Number(opts["max-rss-mb"]) * 1024;
const BIN = buildIndexBin();
const PACKAGE = packageUrl();

/** Runs a process with the time and memory bounds; resolves with what happened. */
function bounded(cmd, args, { input, env } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    let peakKb = 0;
    let why;
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    child.stdin.on("error", () => {});
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
    const poll = setInterval(() => {
      try {
        const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (rss) peakKb = Math.max(peakKb, Number(rss[1]));
        if (peakKb > MAX_RSS_KB && !why) {
          why = "MEMORY";
          child.kill("SIGKILL");
        }
      } catch {
        // Gone already.
      }
    }, 20);
    const timer = setTimeout(() => {
      why ??= "HANG";
      child.kill("SIGKILL");
    }, TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, peakKb, why });
    });
  });
}

/** A response without what differs between two runs of the same query. */
function untimed(json) {
  return JSON.stringify(json, (k, v) => (k === "took_ms" || k === "tookMs" ? undefined : v));
}

// --- The CLI ---------------------------------------------------------------------------------

async function cliAnswers(dir, queries, extra = []) {
  const out = [];
  for (const q of queries) {
    const r = await bounded(BIN, ["search", dir, q, "--json", "--mode", "keyword", ...extra]);
    if (r.why) out.push({ outcome: r.why, detail: q });
    else if (r.code === 0) {
      try {
        out.push({ outcome: "answer", value: untimed(JSON.parse(r.stdout)), detail: q });
      } catch {
        out.push({ outcome: "CRASH", detail: `unparseable output for ${q}` });
      }
    } else if (r.code === 2 && r.stderr.startsWith("error: ") && !/panicked/.test(r.stderr)) {
      out.push({ outcome: "typed", detail: r.stderr.split("\n")[0] });
    } else {
      out.push({ outcome: "CRASH", detail: `exit ${r.code ?? r.signal}: ${r.stderr.slice(0, 300)}` });
    }
  }
  return out;
}

// --- The JS API in Node ------------------------------------------------------------------------

/** A child that loads `dir` and runs each query (or each options object), one JSON line each. */
const NODE_CHILD = `
const { Midashi, MidashiError } = await import(process.env.PACKAGE);
const { dir, queries, options } = JSON.parse(process.env.PROBE);
const line = (o) => process.stdout.write(JSON.stringify(o) + "\\n");
const typed = (e) => e instanceof MidashiError && e.code !== "INTERNAL";
let idx;
try {
  idx = await Midashi.load(dir, { worker: false });
} catch (e) {
  // One outcome per query, as the CLI's, which loads the folder for each.
  for (const _ of queries) line(typed(e) ? { outcome: "typed", detail: e.code + ": " + e.message } : { outcome: "CRASH", detail: String(e?.stack ?? e) });
  process.exit(0);
}
const revived = (o) => (o === "__getter" ? { get limit() { throw new Error("boom"); } } : new Proxy({}, { ownKeys() { throw new Error("boom"); } }));
for (const [i, q] of queries.entries()) {
  const query = q === "__megabyte" ? "a ".repeat(500000) : q === "__null" ? null : q === "__number" ? 42 : q;
  try {
    // Options as given (spreading them here would run a getter in the probe, not in midashi).
    const given = options?.[i];
    const r = await idx.search(query, typeof given === "string" ? revived(given) : { mode: "keyword", ...(given ?? {}) });
    line({ outcome: "answer", value: JSON.stringify(r, (k, v) => (k === "tookMs" ? undefined : v)), detail: String(q).slice(0, 40) });
  } catch (e) {
    line(typed(e) ? { outcome: "typed", detail: e.code + ": " + e.message.slice(0, 200) } : { outcome: "CRASH", detail: String(e?.stack ?? e) });
  }
}
idx.close();
`;

async function nodeAnswers(dir, queries, options) {
  const r = await bounded(process.execPath, ["--input-type=module", "-e", NODE_CHILD], {
    env: { PACKAGE, PROBE: JSON.stringify({ dir, queries, options }) },
  });
  if (r.why) return [{ outcome: r.why, detail: dir }];
  const lines = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  if (r.code !== 0 || lines.length === 0) return [{ outcome: "CRASH", detail: `exit ${r.code ?? r.signal}: ${r.stderr.slice(0, 300)}` }];
  return lines;
}

// --- Damaged folders -------------------------------------------------------------------------

/** The probes of one file: [kind of probe, name, how to make it in a copy]. */
function probesOf(dir, older, name, names) {
  const bytes = readFileSync(path.join(dir, name));
  const n = bytes.length;
  const write = (b) => (p) => writeFileSync(p, b);
  const out = [];
  for (const len of new Set([0, 1, 20, 21, Math.floor(n / 2), n - 1].filter((l) => l >= 0 && l < n))) {
    out.push(["cut", `${name} cut to ${len}`, write(bytes.subarray(0, len))]);
  }
  for (const at of new Set([4, 10, 21 + Math.floor((n - 21) / 2), n - 1].filter((a) => a >= 0 && a < n))) {
    const b = Buffer.from(bytes);
    b[at] ^= 0x10;
    out.push(["flip", `${name} bit at ${at}`, write(b)]);
  }
  const i = names.indexOf(name);
  for (const other of [1, 2, 3].map((k) => names[(i + k) % names.length]).filter((o) => o !== name)) {
    out.push(["swap", `${other} as ${name}`, write(readFileSync(path.join(dir, other)))]);
  }
  const stem = name.split(".")[0];
  const theirs = readdirSync(older).filter((o) => o.split(".")[0] === stem && !readFileSync(path.join(older, o)).equals(bytes));
  if (theirs.length) out.push(["build", `an older ${stem} as ${name}`, write(readFileSync(path.join(older, theirs[0])))]);
  // A copy of the file outside the folder (in the work folder, removed at the end).
  const outside = path.join(path.dirname(dir), `outside-${name}`);
  writeFileSync(outside, bytes);
  out.push(
    ["special", `${name} a FIFO`, (p) => execFileSync("mkfifo", [p])],
    ["special", `${name} a link to /dev/zero`, (p) => symlinkSync("/dev/zero", p)],
    ["special", `${name} a link out of the folder`, (p) => symlinkSync(outside, p)],
    ["special", `${name} a sparse 1 GB file`, (p) => { writeFileSync(p, ""); truncateSync(p, 2 ** 30); }],
    ["special", `${name} a folder`, (p) => mkdirSync(p)],
  );
  return out;
}

/** Up to three files of each kind: every kind is probed, a many-file kind not file by file. */
function probedFiles(names) {
  const byKind = new Map();
  for (const n of names) {
    const kind = n.split(".")[0];
    if (!byKind.has(kind)) byKind.set(kind, []);
    byKind.get(kind).push(n);
  }
  return [...byKind.values()].flatMap((list) => [list[0], list[Math.floor(list.length / 2)], list[list.length - 1]].filter((v, i, a) => a.indexOf(v) === i));
}

// --- The run ---------------------------------------------------------------------------------

const counts = new Map();
const failures = [];
function count(group, iface, result, expected) {
  let outcome = result.outcome;
  if (outcome === "answer") outcome = expected === undefined || result.value === expected ? (expected === undefined ? "answered" : "same") : "WRONG";
  const key = `${group}\t${iface}`;
  const row = counts.get(key) ?? {};
  row[outcome] = (row[outcome] ?? 0) + 1;
  counts.set(key, row);
  if (/^[A-Z]+$/.test(outcome)) failures.push(`${outcome} ${iface} ${group}: ${result.detail ?? ""}`);
}

const work = tempDir("midashi-reliability-");
const docs = path.join(work, "docs");
cpSync(opts.docs, docs, { recursive: true });
const intact = path.join(work, "intact");
execFileSync(BIN, [docs, "--out", intact, "--quiet", "--keyword-only"]);
// The older build: the same docs with a sentence more on a few pages.
const pages = readdirSync(docs, { recursive: true }).filter((f) => String(f).endsWith(".md")).sort();
for (const p of pages.filter((_, i) => i % 5 === 0)) appendFileSync(path.join(docs, String(p)), "\nAn older build said this, about search and its index.\n");
const older = path.join(work, "older");
execFileSync(BIN, [docs, "--out", older, "--quiet", "--keyword-only"]);

const queries = [...headingQueries(opts.docs, 4), "search index", "検索"];
const cliBase = (await cliAnswers(intact, queries)).map((r) => r.value);
const nodeBase = (await nodeAnswers(intact, queries)).map((r) => r.value);
if (cliBase.some((v) => v === undefined) || nodeBase.some((v) => v === undefined)) throw new Error("the intact index does not answer every query");

const names = readdirSync(intact).sort();
let probes = 0;
for (const name of probedFiles(names)) {
  for (const [group, label, make] of probesOf(intact, older, name, names)) {
    const copy = path.join(work, `probe-${probes++}`);
    cpSync(intact, copy, { recursive: true });
    rmSync(path.join(copy, name), { recursive: true, force: true });
    make(path.join(copy, name));
    (await cliAnswers(copy, queries)).forEach((r, i) => count(group, "cli", { ...r, detail: `${label}: ${r.detail}` }, cliBase[i]));
    (await nodeAnswers(copy, queries)).forEach((r, i) => count(group, "node", { ...r, detail: `${label}: ${r.detail}` }, nodeBase[i]));
    rmSync(copy, { recursive: true, force: true });
  }
}

// Abusive options and queries: an answer or a typed error (no answer to compare with).
const cliAbuse = [
  ["--limit", "0"], ["--limit", "-1"], ["--limit", "99999999999"], ["--offset", "18446744073709551615"],
  ["--min-score", "NaN"], ["--min-score", "inf"], ["--rrf-k", "NaN"], ["--rrf-k", "-5"],
  ["--fusion", "linear", "--keyword-weight=-inf"], ["--depth", "99"], ["--preview-lines", "4294967296"], ["--mode", "nonsense"],
];
for (const args of cliAbuse) (await cliAnswers(intact, ["search"], args)).forEach((r) => count("options", "cli", { ...r, detail: args.join(" ") }));
for (const q of ["", " ", "a ".repeat(60000), "\u0001\uffff\ud7ff", "*".repeat(5000), "\"unclosed phrase"]) {
  (await cliAnswers(intact, [q])).forEach((r) => count("queries", "cli", { ...r, detail: JSON.stringify(q.slice(0, 20)) }));
}
const nodeOptions = [
  { limit: NaN }, { limit: -1 }, { limit: 1e12 }, { limit: "10" }, { offset: Infinity }, { minScore: NaN }, { minScore: Infinity },
  { mode: "nonsense" }, { rrfK: -Infinity }, { depth: [99] }, { tags: "x" }, "__getter", "__proxy",
];
(await nodeAnswers(intact, nodeOptions.map(() => "search"), nodeOptions)).forEach((r, i) => count("options", "node", { ...r, detail: JSON.stringify(nodeOptions[i]) }));
const nodeQueries = ["", " ", "__megabyte", "__null", "__number", "\u0000\uffff", "*".repeat(5000)];
(await nodeAnswers(intact, nodeQueries)).forEach((r, i) => count("queries", "node", { ...r, detail: nodeQueries[i] }));

// MCP over stdio: every garbage line answered, and the server still answers after them.
{
  const BAD_UTF8 = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
  const garbage = ['{"jsonrpc":"2.0","id":9,"method":"tools/li', BAD_UTF8, "[".repeat(100000), "x".repeat(2_000_000), "{}", "[]", "null", '{"jsonrpc":"2.0","id":10}'];
  const server = spawn(BIN, ["mcp", intact], { stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, MIDASHI_MODEL: path.join(work, "no-model") } });
  const replies = [];
  let buffer = "";
  server.stdout.setEncoding("utf8").on("data", (d) => {
    buffer += d;
    let at;
    while ((at = buffer.indexOf("\n")) >= 0) {
      replies.push(JSON.parse(buffer.slice(0, at)));
      buffer = buffer.slice(at + 1);
    }
  });
  const send = (line) => server.stdin.write(Buffer.concat([Buffer.isBuffer(line) ? line : Buffer.from(line), Buffer.from("\n")]));
  const waitFor = async (test) => {
    for (let t = 0; t < TIMEOUT_MS / 50 && !test(); t++) await new Promise((r) => setTimeout(r, 50));
    return test();
  };
  send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "0" } } }));
  await waitFor(() => replies.some((x) => x.id === 1));
  send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  for (const [i, g] of garbage.entries()) {
    const errorsBefore = replies.filter((x) => x.error).length;
    send(g);
    send(JSON.stringify({ jsonrpc: "2.0", id: 100 + i, method: "tools/list" }));
    const listed = await waitFor(() => replies.some((x) => x.id === 100 + i && x.result?.tools?.length === 3));
    const shown = JSON.stringify(Buffer.isBuffer(g) ? "(invalid UTF-8)" : g.slice(0, 20));
    count("mcp stdio", "mcp", { outcome: listed ? "answered" : "HANG", detail: `tools/list after ${shown}` });
    const answered = replies.filter((x) => x.error).length > errorsBefore;
    count("mcp stdio", "mcp", { outcome: answered ? "typed" : "HANG", detail: `an error answer to ${shown}` });
  }
  server.kill();
}

// MCP over HTTP: idle connections from one client lock no one out; a half-sent request is
// dropped within the timeouts.
{
  const server = spawn(BIN, ["mcp", intact, "--http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, MIDASHI_MODEL: path.join(work, "no-model") } });
  let err = "";
  const url = await new Promise((resolve, reject) => {
    server.stderr.setEncoding("utf8").on("data", (d) => {
      err += d;
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(err);
      if (m) resolve(m[1]);
    });
    server.on("exit", () => reject(new Error(err)));
  });
  const { port } = new URL(url);
  const sockets = [];
  for (let i = 0; i < 1100; i++) {
    const s = net.connect({ host: "127.0.0.1", port: Number(port), localAddress: "127.0.0.2" });
    s.on("error", () => {});
    sockets.push(s);
  }
  const half = net.connect({ host: "127.0.0.1", port: Number(port) });
  half.on("error", () => {});
  // Read what comes (a 408), or the socket never sees its end.
  half.resume();
  half.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":");
  const halfClosed = new Promise((resolve) => half.on("close", () => resolve(true)));
  await new Promise((r) => setTimeout(r, 500));
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "0" } } });
  const started = Date.now();
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body, signal: AbortSignal.timeout(TIMEOUT_MS) }).catch((e) => ({ status: String(e) }));
  count("mcp http", "mcp", { outcome: res.status === 200 ? "answered" : "HANG", detail: `a request beside 1,100 idle connections: ${res.status} in ${Date.now() - started} ms` });
  const closed = await Promise.race([halfClosed, new Promise((r) => setTimeout(() => r(false), 45_000))]);
  count("mcp http", "mcp", { outcome: closed ? "answered" : "HANG", detail: "a half-sent body is dropped within 45 s" });
  for (const s of sockets) s.destroy();
  server.kill();
}

// --- Report ----------------------------------------------------------------------------------

const outcomes = ["same", "answered", "typed", "WRONG", "HANG", "MEMORY", "CRASH"];
console.log(`\nReliability probe of ${path.relative(ROOT, opts.docs) || opts.docs}: ${probes} damaged folders, ${queries.length} queries each; bounds ${TIMEOUT_MS / 1000} s, ${MAX_RSS_KB >> 10} MB\n`);
console.log(`| probe | interface | ${outcomes.join(" | ")} |`);
console.log(`|---|---|${outcomes.map(() => "---:").join("|")}|`);
for (const [key, row] of counts) {
  const [group, iface] = key.split("\t");
  console.log(`| ${group} | ${iface} | ${outcomes.map((o) => row[o] ?? 0).join(" | ")} |`);
}
if (failures.length) {
  console.log(`\n${failures.length} failures:`);
  for (const f of failures.slice(0, 50)) console.log(`- ${f}`);
  process.exitCode = 1;
} else {
  console.log("\nNo wrong answer, hang, memory blow-up or crash.");
}
rmSync(work, { recursive: true, force: true });
