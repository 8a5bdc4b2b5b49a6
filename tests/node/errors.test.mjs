// Every way loading or searching can fail ends in a rejected promise with a MidashiError whose
// code says what happened (and whose message says what to do) — never a hang, a wrong answer
// or an unhandled rejection. Files are damaged the ways real deployments damage them: cut
// short, bit-flipped, of another format version, replaced by an HTML page, served from a
// server that drops the connection.

import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, cpSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { buildIndex, copyIndexWith, DIST, FIXTURE_DOCS, importMidashi, tempDir } from "../support/indexes.mjs";
import { startServer } from "../support/server.mjs";

const unhandled = [];
const onUnhandled = (reason) => unhandled.push(reason);
process.on("unhandledRejection", onUnhandled);

let Midashi;
let MidashiError;
let dir;
let files; // kind → file name
let server;

/** Header layout (crates/midashi-core/src/format/mod.rs): magic 0..4, kind 4, major 5..7 (LE), minor 7..9, length 9..17, CRC 17..21. */
const HEADER_LEN = 21;

before(async () => {
  ({ Midashi, MidashiError } = await importMidashi());
  // The single-file layout: its two keyword files are read at load, so every fault shows
  // in `load`. The default, sharded, layout's faults are tried in the last describe below.
  dir = buildIndex(FIXTURE_DOCS, undefined, ["--layout", "single"]);
  const idx = await Midashi.load(dir);
  files = Object.fromEntries(idx.manifest.files.map((f) => [f.kind, f.name]));
  idx.close();
  server = await startServer({
    mounts: [{ prefix: "/ok/", dir }],
    faults: {
      "/reset/midashi-entry.bin": "reset",
      "/server-error/midashi-entry.bin": 500,
      "/html/midashi-entry.bin": (_req, res) => {
        // An SPA fallback: every unknown path answers 200 with the app's HTML.
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<!doctype html><title>Docs</title><p>Page not found</p>");
      },
    },
  });
});

after(async () => {
  await server?.close();
  process.off("unhandledRejection", onUnhandled);
});

/** Asserts that `promise` rejects with a MidashiError of `code` whose message mentions `mention`. */
async function rejectsWith(promise, code, mention) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof MidashiError, `a MidashiError, got ${e?.constructor?.name}: ${e?.message}`);
    assert.equal(e.code, code, `code ${e.code} (${e.message})`);
    assert.ok(e.message.length > 20, "the message says what to do");
    if (mention) assert.match(e.message, mention);
    return true;
  });
}

describe("loading", () => {
  test("NOT_FOUND: no such folder on disk", async () => {
    await rejectsWith(Midashi.load(path.join(tempDir(), "nothing-here")), "NOT_FOUND", /build-index/);
  });

  test("NOT_FOUND: HTTP 404 for the entry file", async () => {
    await rejectsWith(Midashi.load(`${server.url}/nowhere/`), "NOT_FOUND", /404/);
  });

  test("NOT_FOUND: HTTP 404 for a file the entry names", async () => {
    const partial = tempDir();
    copyFileSync(path.join(dir, "midashi-entry.bin"), path.join(partial, "midashi-entry.bin"));
    copyFileSync(path.join(dir, files.Sections), path.join(partial, files.Sections));
    const s = await startServer({ mounts: [{ prefix: "/", dir: partial }] });
    try {
      await rejectsWith(Midashi.load(`${s.url}/`), "NOT_FOUND", new RegExp(files.Terms.replace(/\./g, "\\.")));
    } finally {
      await s.close();
    }
  });

  test("NETWORK: nothing listens on the port", async () => {
    const s = await startServer({ mounts: [] });
    const url = `${s.url}/search/`;
    await s.close();
    await rejectsWith(Midashi.load(url), "NETWORK");
  });

  test("NETWORK: the server drops the connection", async () => {
    await rejectsWith(Midashi.load(`${server.url}/reset/`), "NETWORK");
  });

  test("NETWORK: HTTP 500", async () => {
    await rejectsWith(Midashi.load(`${server.url}/server-error/`), "NETWORK", /500/);
  });

  test("NETWORK: a download that breaks off midway", async () => {
    const s = await startServer({ mounts: [{ prefix: "/", dir }], faults: { [`/${files.Terms}`]: "cut" } });
    try {
      await rejectsWith(Midashi.load(`${s.url}/`), "NETWORK");
    } finally {
      await s.close();
    }
  });

  test("NETWORK after `timeout`: a server that accepts and never answers, or stops mid-body (#27)", async () => {
    const s = await startServer({
      mounts: [{ prefix: "/", dir }],
      faults: {
        "/silent/midashi-entry.bin": () => undefined,
        [`/${files.Terms}`]: (_req, res) => {
          res.writeHead(200, { "content-type": "application/octet-stream", "content-length": "100000" });
          res.write(new Uint8Array(1000));
        },
      },
    });
    try {
      for (const url of [`${s.url}/silent/`, `${s.url}/`]) {
        const started = Date.now();
        await rejectsWith(Midashi.load(url, { timeout: 400 }), "NETWORK", /sent nothing for 0\.4 s.*`timeout` option/);
        assert.ok(Date.now() - started < 10_000, "failed after the stall, not the platform's limit");
      }
      await rejectsWith(Midashi.load(`${s.url}/`, { timeout: -1 }), "INVALID_OPTION", /timeout/);
      // A slow server that keeps sending is not a stall: the index loads.
      const slow = await startServer({
        mounts: [{ prefix: "/", dir }],
        faults: {
          [`/${files.Terms}`]: (_req, res) => {
            const bytes = readFileSync(path.join(dir, files.Terms));
            res.writeHead(200, { "content-type": "application/octet-stream" });
            let at = 0;
            const step = Math.ceil(bytes.length / 6);
            const timer = setInterval(() => {
              res.write(bytes.subarray(at, at + step));
              at += step;
              if (at >= bytes.length) {
                clearInterval(timer);
                res.end();
              }
            }, 150);
          },
        },
      });
      try {
        const idx = await Midashi.load(`${slow.url}/`, { timeout: 400 });
        assert.ok((await idx.search("install")).results.length > 0);
        idx.close();
      } finally {
        await slow.close();
      }
    } finally {
      await s.close();
    }
  });

  test("NOT_AN_INDEX: an HTML page where the entry file should be", async () => {
    await rejectsWith(Midashi.load(`${server.url}/html/`), "NOT_AN_INDEX", /build-index/);
  });

  test("TRUNCATED: a file cut short", async () => {
    for (const kind of ["Terms", "Sections"]) {
      const copy = copyIndexWith(dir, files[kind], (b) => b.subarray(0, Math.floor(b.length * 0.6)));
      await rejectsWith(Midashi.load(copy), "TRUNCATED", /fetch it again|rebuild/);
    }
    const entryCut = copyIndexWith(dir, "midashi-entry.bin", (b) => b.subarray(0, HEADER_LEN + 3));
    await rejectsWith(Midashi.load(entryCut), "TRUNCATED");
  });

  test("CORRUPTED: one flipped bit in any payload", async () => {
    for (const name of ["midashi-entry.bin", files.Terms, files.Sections]) {
      const copy = copyIndexWith(dir, name, (b) => {
        const c = Buffer.from(b);
        const at = HEADER_LEN + Math.floor((c.length - HEADER_LEN) / 2);
        c[at] ^= 0x10;
        return c;
      });
      await rejectsWith(Midashi.load(copy), "CORRUPTED", /corrupted/);
    }
  });

  test("FORMAT_VERSION: an index of another format major", async () => {
    const patch = (b) => {
      const c = Buffer.from(b);
      c.writeUInt16LE(c.readUInt16LE(5) + 1, 5);
      return c;
    };
    const entry = copyIndexWith(dir, "midashi-entry.bin", patch);
    await rejectsWith(Midashi.load(entry), "FORMAT_VERSION", /rebuild the index/);
    const terms = copyIndexWith(dir, files.Terms, patch);
    await rejectsWith(Midashi.load(terms), "FORMAT_VERSION");
  });

  test("WRONG_FILE_KIND: files of one index swapped", async () => {
    const copy = copyIndexWith(dir, files.Terms, () => readFileSync(path.join(dir, files.Sections)));
    await rejectsWith(Midashi.load(copy), "WRONG_FILE_KIND", /rebuild/);
  });
});

describe("the wasm module", () => {
  /** A copy of dist/wasm/ where `wasm` (bytes) or the glue is replaced. */
  function assetsWith({ wasm, glue }) {
    const out = tempDir("midashi-assets-");
    const src = path.join(DIST, "wasm");
    cpSync(src, out, { recursive: true });
    if (wasm) writeFileSync(path.join(out, "midashi_wasm_bg.wasm"), wasm);
    if (glue) writeFileSync(path.join(out, "midashi_wasm.js"), glue);
    return {
      wasmUrl: pathToFileURL(path.join(out, "midashi_wasm_bg.wasm")).href,
      glueUrl: pathToFileURL(path.join(out, "midashi_wasm.js")).href,
    };
  }

  test("VERSION_MISMATCH: a module reporting another version", async () => {
    const real = readFileSync(path.join(DIST, "wasm/midashi_wasm.js"), "utf8");
    // The real glue and module, but version() says 9.9.9: what an old cached module does.
    // A release glue is minified (`export{…,Y as version}`), a dev one is not.
    const local = /export\s*\{[^}]*?([\w$]+) as version\b/.exec(real)?.[1];
    if (!local) assert.match(real, /export function version\(\)/);
    const glue = local
      ? real.replace(/([\w$]+) as version\b/, "fakeVersion as version") +
        `\nfunction fakeVersion() { return { ...${local}(), version: '9.9.9' }; }\n`
      : real.replace(/export function version\(\)/, "function realVersion()") +
        "\nexport function version() { return { ...realVersion(), version: '9.9.9' }; }\n";
    await rejectsWith(Midashi.load(dir, assetsWith({ glue })), "VERSION_MISMATCH", /9\.9\.9/);
  });

  test("VERSION_MISMATCH: a module whose imports the glue does not provide", async () => {
    // (module (import "wbg" "__wbg_from_another_build" (func))): valid wasm, wrong build.
    const name = Buffer.from("__wbg_from_another_build");
    const imp = Buffer.concat([Buffer.from([1, 3]), Buffer.from("wbg"), Buffer.from([name.length]), name, Buffer.from([0, 0])]);
    const wasm = Buffer.concat([
      Buffer.from([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]),
      Buffer.from([1, 4, 1, 0x60, 0, 0]),
      Buffer.from([2, imp.length]),
      imp,
    ]);
    await rejectsWith(Midashi.load(dir, assetsWith({ wasm })), "VERSION_MISMATCH", /different builds/);
  });

  test("CORRUPTED: bytes that are not a wasm module", async () => {
    await rejectsWith(Midashi.load(dir, assetsWith({ wasm: Buffer.from("<html>not found</html>") })), "CORRUPTED", /WebAssembly/);
  });

  test("NOT_FOUND: the module is missing", async () => {
    await rejectsWith(Midashi.load(dir, { wasmUrl: path.join(tempDir(), "missing.wasm") }), "NOT_FOUND", /wasm/);
  });

  test("INTERNAL: a trap inside the module, then a fresh instance answers", async () => {
    const idx = await Midashi.load(dir, { cacheSize: 0 });
    const before = await idx.search("watchers");
    await rejectsWith(idx.panicForTests(), "INTERNAL", /bug/);
    const again = await idx.search("watchers");
    assert.deepEqual(again.results, before.results, "the re-instantiated engine answers the same");
    // Twice in a row: recovery is not a one-off.
    await rejectsWith(idx.panicForTests(), "INTERNAL");
    assert.equal((await idx.getDocument("en/pagination.md")).title, "Pagination");
    idx.close();
  });
});

describe("queries", () => {
  let idx;
  before(async () => {
    idx = await Midashi.load(dir);
  });
  after(() => idx.close());

  test("a blank query is an empty answer, in every mode, not an error", async () => {
    for (const mode of ["auto", "keyword", "semantic", "hybrid"]) {
      for (const q of ["", "   \n"]) {
        const r = await idx.search(q, { mode });
        assert.equal(r.total, 0, `${mode} ${JSON.stringify(q)}`);
        assert.deepEqual(r.results, []);
        assert.deepEqual(r.suggestions, []);
      }
    }
    // Options are still checked.
    await rejectsWith(idx.search("", { limit: 0 }), "INVALID_OPTION");
  });

  test("QUERY_TOO_LONG", async () => {
    await rejectsWith(idx.search("word ".repeat(2000)), "QUERY_TOO_LONG", /shorten/);
  });

  test("INVALID_OPTION: an unknown option, a bad value", async () => {
    await rejectsWith(idx.search("watchers", { limt: 5 }), "INVALID_OPTION", /limt/);
    await rejectsWith(idx.search("watchers", { limit: 0 }), "INVALID_OPTION", /limit/);
    await rejectsWith(idx.search("watchers", { mode: "fast" }), "INVALID_OPTION", /mode/);
    // Each option's type, named in the message.
    await rejectsWith(idx.search("watchers", { limit: 2.5 }), "INVALID_OPTION", /`limit` must be a whole number/);
    await rejectsWith(idx.search("watchers", { offset: -1 }), "INVALID_OPTION", /`offset`/);
    await rejectsWith(idx.search("watchers", { previewLines: "3" }), "INVALID_OPTION", /`previewLines`/);
    await rejectsWith(idx.search("watchers", { tags: "api" }), "INVALID_OPTION", /`tags` must be a list of strings/);
    await rejectsWith(idx.search("watchers", { depth: [1, 300] }), "INVALID_OPTION", /`depth`/);
    // NaN and infinities are refused, not taken to mean "no results" or "the default".
    await rejectsWith(idx.search("watchers", { minScore: NaN }), "INVALID_OPTION", /min_score: NaN is not a finite number/);
    await rejectsWith(idx.search("watchers", { minScore: Infinity }), "INVALID_OPTION", /min_score/);
    await rejectsWith(idx.search("watchers", { fusion: { method: "rrf", k: NaN, keyword_weight: 1, semantic_weight: 1 } }), "INVALID_OPTION", /rrf_k/);
    await rejectsWith(idx.search("watchers", { fusion: { method: "linear", keyword_weight: -1, semantic_weight: 1 } }), "INVALID_OPTION", /keyword_weight/);
    // A depth no section has: said, not an empty answer.
    await rejectsWith(idx.search("watchers", { depth: [2, 9] }), "INVALID_OPTION", /depth: 9 is not a depth/);
    await rejectsWith(idx.search("watchers", { prefix: "yes" }), "INVALID_OPTION", /`prefix` must be true or false/);
    await rejectsWith(idx.search("watchers", { path: 3 }), "INVALID_OPTION", /`path` must be a string or null/);
    await rejectsWith(idx.search("watchers", { preferLang: ["ja"] }), "INVALID_OPTION", /`preferLang` must be a string or null/);
    await rejectsWith(idx.search("watchers", { minScore: "high" }), "INVALID_OPTION", /`minScore`/);
    await rejectsWith(idx.search("watchers", { fusion: { method: "max" } }), "INVALID_OPTION", /fusion\.method/);
    await rejectsWith(idx.search("watchers", { fusion: { method: "rrf", k: 60 } }), "INVALID_OPTION", /fusion\.keyword_weight/);
  });

  test("INVALID_OPTION, not INTERNAL: arguments of the wrong type from JS (#27 item 4)", async () => {
    for (const q of [null, undefined, 123, {}, [], 10n]) {
      await rejectsWith(idx.search(q), "INVALID_OPTION", /the query must be a string/);
    }
    await rejectsWith(idx.search("watchers", "fast"), "INVALID_OPTION", /options must be an object/);
    await rejectsWith(idx.search("watchers", [5]), "INVALID_OPTION", /options must be an object/);
    await rejectsWith(idx.search("watchers", { limit: 10n }), "INVALID_OPTION", /`limit` must be .* not the BigInt 10n/);
    await rejectsWith(idx.search("watchers", { limit: 1e12 }), "INVALID_OPTION", /`limit` is too large: 1000000000000/);
    await rejectsWith(idx.search("watchers", { indexes: "default" }), "INVALID_OPTION", /`indexes` must be a list of index names/);
    await rejectsWith(idx.search("watchers", { supersede: "no" }), "INVALID_OPTION", /`supersede` must be true or false/);
    await rejectsWith(idx.search("watchers", { cache: 1 }), "INVALID_OPTION", /`cache` must be true or false/);
    await rejectsWith(idx.search("watchers", { waitForSemantic: "yes" }), "INVALID_OPTION", /`waitForSemantic`/);
    await rejectsWith(idx.search("watchers", { queryVector: [0.1, 0.2] }), "INVALID_OPTION", /`queryVector` must be a Float32Array/);
    await rejectsWith(idx.getSection(null), "INVALID_OPTION", /the section .* must be a string/);
    await rejectsWith(idx.getSection("x", "all"), "INVALID_OPTION", /options must be an object/);
    await rejectsWith(idx.getDocument(42), "INVALID_OPTION", /the document's path must be a string/);
    await rejectsWith(idx.suggest(null), "INVALID_OPTION", /the prefix must be a string/);
    await rejectsWith(idx.suggest("wat", { limit: -1 }), "INVALID_OPTION", /`limit` must be a whole number/);
    await rejectsWith(idx.loadVectors({ indexes: 1 }), "INVALID_OPTION", /`indexes`/);
    // Options that throw when read (a getter, a Proxy, a revoked Proxy): INVALID_OPTION, the
    // caller's exception as its cause.
    const boom = new Error("boom");
    const getter = { get limit() { throw boom; } };
    const proxy = new Proxy({}, { ownKeys() { throw boom; } });
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    for (const bad of [getter, proxy, revoked.proxy]) {
      await rejectsWith(idx.search("watchers", bad), "INVALID_OPTION", /options could not be read/);
      await rejectsWith(idx.getSection("x", bad), "INVALID_OPTION", /could not be read/);
    }
    // A getter that works is read once.
    let reads = 0;
    assert.ok((await idx.search("watchers", { get limit() { reads++; return 3; } })).results.length <= 3);
    assert.equal(reads, 1);
    // `null` options are no options.
    assert.ok((await idx.search("watchers", null)).total > 0);
    // And the engine was never in trouble: it answers as before, from the same instance.
    assert.ok((await idx.search("watchers", { supersede: false })).total > 0);
    assert.deepEqual(await idx.suggest("wat", 3), await idx.suggest("wat", { limit: 3 }));
  });

  test("every option of the right type is taken, and takes effect", async () => {
    const base = await idx.search("the", { prefix: false });
    assert.ok(base.total > 2, "enough results to page through");
    const all = {
      limit: 2,
      offset: 1,
      mode: "keyword",
      fusion: { method: "linear", keyword_weight: 0.5, semantic_weight: 0.5 },
      path: null,
      category: null,
      tags: [],
      depth: [],
      lang: null,
      version: null,
      minScore: null,
      previewLines: 1,
      prefix: false,
      fuzzy: true,
      group: true,
      collapseVersions: true,
    };
    const r = await idx.search("the", all);
    assert.deepEqual(r.results.map((h) => h.id), base.results.slice(1, 3).map((h) => h.id));
    assert.ok(r.results.every((h) => h.preview.split("\n").length === 1));
    // undefined is an option left out; null is "none" where an option may be none.
    const same = await idx.search("the", { prefix: false, limit: undefined, path: null });
    assert.deepEqual(same.results.map((h) => h.id), base.results.map((h) => h.id));
    const high = await idx.search("the", { prefix: false, minScore: 1e9 });
    assert.equal(high.results.length, 0);
  });

  test("SEMANTIC_UNAVAILABLE: semantic mode without a model or vectors", async () => {
    await rejectsWith(idx.search("watchers", { mode: "semantic" }), "SEMANTIC_UNAVAILABLE");
    await rejectsWith(idx.loadVectors(), "SEMANTIC_UNAVAILABLE", /vectors/);
  });

  test("UNKNOWN_INDEX", async () => {
    await rejectsWith(idx.search("watchers", { indexes: ["fr"] }), "UNKNOWN_INDEX", /default/);
  });

  test("CLOSED: every call after close()", async () => {
    const other = await Midashi.load(dir);
    other.close();
    await rejectsWith(other.search("watchers"), "CLOSED");
    await rejectsWith(other.getSection("0000000000000000"), "CLOSED");
    await rejectsWith(other.getDocument("en/pagination.md"), "CLOSED");
    await rejectsWith(other.suggest("wat"), "CLOSED");
  });

  test("a failed query leaves the index usable", async () => {
    await rejectsWith(idx.search("x".repeat(5000)), "QUERY_TOO_LONG");
    assert.ok((await idx.search("watchers")).results.length > 0);
  });
});

test("no unhandled rejections along the way", async () => {
  // Let pending microtasks and socket callbacks run.
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(unhandled, []);
});

describe("errors of the default (sharded) layout", () => {
  let sharded;
  let names;
  before(async () => {
    sharded = buildIndex(FIXTURE_DOCS);
    names = readdirSync(sharded);
    assert.ok(names.some((n) => n.startsWith("directory.")), "the default build is sharded");
  });
  const corrupt = (b) => {
    const c = Buffer.from(b);
    c[HEADER_LEN + Math.floor((c.length - HEADER_LEN) / 2)] ^= 0x10;
    return c;
  };
  const cut = (b) => b.subarray(0, Math.floor(b.length * 0.6));

  test("the directory, read at load: TRUNCATED, CORRUPTED, WRONG_FILE_KIND, SIZE_MISMATCH", async () => {
    const directory = names.find((n) => n.startsWith("directory."));
    await rejectsWith(Midashi.load(copyIndexWith(sharded, directory, cut)), "TRUNCATED", /fetch it again|rebuild/);
    await rejectsWith(Midashi.load(copyIndexWith(sharded, directory, corrupt)), "CORRUPTED", /corrupted/);
    // Another kind's file in its place: a smaller one is read and named by its frame, a
    // larger one refused by its size before it is read.
    const size = (n) => readFileSync(path.join(sharded, n)).length;
    const others = names.filter((n) => n !== directory && n !== "midashi-entry.bin");
    const smaller = others.find((n) => size(n) < size(directory));
    const larger = others.find((n) => size(n) > size(directory));
    assert.ok(smaller && larger, names.join(" "));
    const swapped = (n) => copyIndexWith(sharded, directory, () => readFileSync(path.join(sharded, n)));
    await rejectsWith(Midashi.load(swapped(smaller)), "WRONG_FILE_KIND", /rebuild/);
    await rejectsWith(Midashi.load(swapped(larger)), "SIZE_MISMATCH", /copy or build the index again/);
  });

  test("a shard or card read by a query: the query fails with a typed error, the index stays usable", async () => {
    for (const prefix of ["shard.", "card."]) {
      for (const [how, code] of [
        [cut, "TRUNCATED"],
        [corrupt, "CORRUPTED"],
      ]) {
        // Every file of the kind damaged: whichever the query reads is one of them.
        let copy = sharded;
        for (const n of names.filter((n) => n.startsWith(prefix))) copy = copyIndexWith(copy, n, how);
        const idx = await Midashi.load(copy);
        try {
          await rejectsWith(idx.search("computed properties"), code);
          // The entry and directory are intact: a later query fails the same way, typed, no trap.
          await rejectsWith(idx.search("pagination"), code);
        } finally {
          idx.close();
        }
      }
    }
  });

  test("a shard, card or bundle of another build under this one's name: refused, not served", async () => {
    // The same docs with one sentence more: every card and a few shards differ.
    const docs = tempDir("midashi-docs-");
    cpSync(FIXTURE_DOCS, docs, { recursive: true });
    const page = readdirSync(path.join(docs, "en")).find((n) => n.endsWith(".md"));
    appendFileSync(path.join(docs, "en", page), "\nComputed properties are cached, as a later build says.\n");
    const older = buildIndex(docs);
    const olderNames = readdirSync(older);
    for (const prefix of ["card.", "shard.", "bundle."]) {
      // Each file of the kind replaced by the older build's file in the same place (cards and
      // bundles by position, shards by name), where the bytes differ.
      const ours = names.filter((n) => n.startsWith(prefix)).sort();
      const theirs = olderNames.filter((n) => n.startsWith(prefix)).sort();
      const copy = tempDir("midashi-mixed-");
      cpSync(sharded, copy, { recursive: true });
      let swapped = 0;
      ours.forEach((n, i) => {
        const from = prefix === "shard." ? (theirs.includes(n) ? n : undefined) : theirs[i];
        if (!from) return;
        const bytes = readFileSync(path.join(older, from));
        if (bytes.equals(readFileSync(path.join(sharded, n)))) return;
        writeFileSync(path.join(copy, n), bytes);
        swapped++;
      });
      // Shards whose group changed have new names: the older build's ones under them.
      if (prefix === "shard." && swapped === 0) {
        const fresh = ours.filter((n) => !theirs.includes(n));
        const stale = theirs.filter((n) => !ours.includes(n));
        fresh.forEach((n, i) => {
          if (stale[i] === undefined) return;
          copyFileSync(path.join(older, stale[i]), path.join(copy, n));
          swapped++;
        });
      }
      assert.ok(swapped > 0, `some ${prefix} file differs between the builds`);
      const idx = await Midashi.load(copy);
      try {
        const asks = prefix === "bundle." ? () => idx.getDocument(`en/${page}`) : () => idx.search("computed properties");
        await rejectsWith(asks(), "MALFORMED", /another build/);
      } finally {
        idx.close();
      }
    }
  });

  test("NOT_A_FILE and SIZE_MISMATCH: FIFOs, devices, links out of the folder, wrong sizes", async () => {
    const directory = names.find((n) => n.startsWith("directory."));
    const shards = names.filter((n) => n.startsWith("shard."));
    const outside = tempDir("midashi-outside-");
    writeFileSync(path.join(outside, "secret.bin"), readFileSync(path.join(sharded, shards[0])));
    const withFile = (name, make) => {
      const copy = tempDir("midashi-special-");
      cpSync(sharded, copy, { recursive: true });
      for (const n of Array.isArray(name) ? name : [name]) {
        rmSync(path.join(copy, n));
        make(path.join(copy, n));
      }
      return copy;
    };
    // At load: the entry a FIFO (it would block a read for ever), the directory a device.
    const fifo = (p) => execFileSync("mkfifo", [p]);
    await rejectsWith(Midashi.load(withFile("midashi-entry.bin", fifo)), "NOT_A_FILE", /FIFO/);
    // A device is reached only through a link, which leaves the folder.
    await rejectsWith(Midashi.load(withFile(directory, (p) => symlinkSync("/dev/zero", p))), "NOT_A_FILE", /outside the folder/);
    await rejectsWith(Midashi.load(copyIndexWith(sharded, directory, (b) => Buffer.concat([b, Buffer.from([0])]))), "SIZE_MISMATCH", /expects/);
    // By a query: shards linked out of the folder, to /dev/urandom, or sparse giants.
    for (const [make, code, mention] of [
      [(p) => symlinkSync(path.join(outside, "secret.bin"), p), "NOT_A_FILE", /outside the folder/],
      [(p) => symlinkSync("/dev/urandom", p), "NOT_A_FILE", /outside the folder/],
      [fifo, "NOT_A_FILE", /FIFO/],
      [(p) => { writeFileSync(p, ""); truncateSync(p, 2 ** 30); }, "SIZE_MISMATCH", /at most/],
    ]) {
      const idx = await Midashi.load(withFile(shards, make));
      try {
        await rejectsWith(idx.search("computed properties"), code, mention);
      } finally {
        idx.close();
      }
    }
  });
});
