// Shared by the Node tests, the browser test and the scripts: where things are, the native
// build-index binary (built once, release, so the parity runs over thousands of queries stay
// quick), and index folders built from fixtures and evaluation sets.

import { execFileSync, execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual, promisify } from "node:util";
import { ENGINE_WASM } from "./modules.mjs";

const execFileAsync = promisify(execFile);

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const DIST = path.join(ROOT, "web/dist");
export const FIXTURE_DOCS = path.join(ROOT, "tests/fixtures/docs");
/** The shared data folder beside the repository (MIDASHI_SHARED overrides it). */
/**
 * The embedding cache of the tests that build with a model. Its files are per model and docs
 * folder and hold vectors and tables by a hash of their text, so builds of the same docs in
 * different tests (the encoder's leg and the static table's) share one encoder pass instead
 * of making one each.
 */
export const EMBED_CACHE = path.join(ROOT, ".cache", "test-embeddings");
export const SHARED = process.env.MIDASHI_SHARED ?? path.resolve(ROOT, "../shared");
/** Own target dir: the wasm and native builds of this package must not fight others' builds. */
export const TARGET_DIR = process.env.CARGO_TARGET_DIR ?? path.join(ROOT, "target-wasm");

/** The package entry point, refusing to run tests against a missing build. */
export function packageUrl() {
  const index = path.join(DIST, "index.js");
  const wasm = ENGINE_WASM.map((f) => path.join(DIST, f));
  for (const f of [index, ...wasm]) {
    if (!existsSync(f)) {
      throw new Error(`${path.relative(ROOT, f)} is missing: run \`npm run build:wasm\` (or build:wasm:dev) and \`npm run build:web\` first`);
    }
  }
  return pathToFileURL(index).href;
}

/** Imports the built package. */
export async function importMidashi() {
  return import(packageUrl());
}

let binary;
/** The build-index binary (MIDASHI_BUILD_INDEX, or built here with cargo --release). */
export function buildIndexBin() {
  if (binary) return binary;
  if (process.env.MIDASHI_BUILD_INDEX) return (binary = process.env.MIDASHI_BUILD_INDEX);
  execFileSync("cargo", ["build", "--quiet", "--release", "-p", "build-index"], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, CARGO_TARGET_DIR: TARGET_DIR },
  });
  return (binary = path.join(TARGET_DIR, "release/build-index"));
}

/** A fresh temporary folder. */
export function tempDir(name = "midashi-test-") {
  return mkdtempSync(path.join(os.tmpdir(), name));
}

/** Builds an index of `input` (a docs folder or a .jsonl file) into `out`; returns `out`. */
export function buildIndex(input, out = tempDir("midashi-index-"), extra = []) {
  // Keyword-only: these tests are about the keyword engine, and embedding a corpus would
  // only make them slow (the semantic leg has its own tests).
  execFileSync(buildIndexBin(), [input, "--out", out, "--quiet", "--keyword-only", ...extra], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  return out;
}

/**
 * An index of an evaluation set's corpus (`_id`, `title`, `text` records), built once per
 * process into target-wasm/test-indexes/ (records are what build-index reads directly).
 */
export function buildEvalIndex(set) {
  const out = path.join(TARGET_DIR, "test-indexes", set);
  mkdirSync(out, { recursive: true });
  // Rebuilding is cheap next to a parity run and builds are deterministic; doing it every
  // time means the index always comes from the current build-index.
  return buildIndex(path.join(SHARED, "eval", set, "corpus.jsonl"), out);
}

/** The queries of an evaluation set: `[{ id, text }]`. */
export function evalQueries(set) {
  return readFileSync(path.join(SHARED, "eval", set, "queries.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      const q = JSON.parse(l);
      return { id: q._id, text: q.text };
    });
}

/** `build-index search <dir> <query> --json --limit <n>`: the native answer. */
export async function cliSearch(dir, query, limit = 10) {
  try {
    const { stdout } = await execFileAsync(buildIndexBin(), ["search", dir, query, "--json", "--mode", "keyword", "--limit", String(limit)], {
      maxBuffer: 64 << 20,
    });
    return { ok: true, value: JSON.parse(stdout) };
  } catch (e) {
    // The CLI refuses some queries (e.g. empty after trimming); parity then means the JS
    // side refuses them too.
    return { ok: false, stderr: String(e.stderr ?? e.message) };
  }
}

/** Runs `f` over `items` with at most `n` at a time (the CLI calls use both cores). */
export async function mapLimit(items, n, f) {
  const out = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i], i);
    }
  });
  await Promise.all(workers);
  return out;
}

/**
 * Compares one JS answer with the CLI's for the same query. Returns a list of differences
 * (empty when they agree): same total, mode and suggestions; same hits in the same order,
 * every field equal, scores equal as f32 (the CLI prints f32 shortest, JS holds the f32 as a
 * double) and within 1e-6 relative.
 */
export function compareWithCli(js, cli) {
  const diffs = [];
  if (js.total !== cli.total) diffs.push(`total ${js.total} vs ${cli.total}`);
  if (js.mode !== cli.mode) diffs.push(`mode ${js.mode} vs ${cli.mode}`);
  if (JSON.stringify(js.suggestions) !== JSON.stringify(cli.suggestions)) {
    diffs.push(`suggestions ${JSON.stringify(js.suggestions)} vs ${JSON.stringify(cli.suggestions)}`);
  }
  if (js.results.length !== cli.results.length) diffs.push(`${js.results.length} vs ${cli.results.length} results`);
  const n = Math.min(js.results.length, cli.results.length);
  for (let i = 0; i < n; i++) {
    const a = js.results[i];
    const b = cli.results[i];
    if (a.id !== b.id) {
      diffs.push(`#${i + 1}: id ${a.id} vs ${b.id}`);
      continue;
    }
    const tol = 1e-6 * Math.max(1, Math.abs(b.score));
    if (Math.fround(a.score) !== Math.fround(b.score) || Math.abs(a.score - b.score) > tol) {
      diffs.push(`#${i + 1}: score ${a.score} vs ${b.score}`);
    }
    const { score: _a, ...restA } = a;
    const { score: _b, ...restB } = b;
    if (!isDeepStrictEqual(restA, restB)) diffs.push(`#${i + 1} (${a.id}): fields differ`);
  }
  return diffs;
}

/** Copies index folder `dir` with `file`'s bytes passed through `transform`; returns the copy. */
export function copyIndexWith(dir, file, transform) {
  const out = tempDir("midashi-broken-");
  for (const name of readdirSync(dir)) {
    const bytes = readFileSync(path.join(dir, name));
    writeFileSync(path.join(out, name), name === file ? transform(Buffer.from(bytes)) : bytes);
  }
  return out;
}

/**
 * A response without its excerpts: a sharded result's excerpt is drawn from the lines its card
 * holds (the section's first five), a single file's from the whole section, so they differ
 * when the matched words lie deeper. Every other field must be equal.
 */
export function withoutExcerpts(response) {
  return {
    ...response,
    results: response.results.map(({ excerpt: _e, excerpt_highlights: _h, excerpt_line: _l, ...hit }) => hit),
  };
}
