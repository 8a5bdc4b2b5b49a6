// The native tools the harness runs: Midashi's build-index (release build in
// $CARGO_TARGET_DIR, or $MIDASHI_BUILD_INDEX) and Pagefind's binary from its npm package;
// and `/usr/bin/time` to read a process's wall time and peak memory.

import { execFile, execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./data.mjs";

/** The machine a run measures on, as the dated results record it. */
export function machine() {
  return { cpus: os.cpus().length, model: os.cpus()[0]?.model, memGiB: Math.round(os.totalmem() / 2 ** 30) };
}

/** The build-index binary, refusing to run against a missing build. */
export function buildIndexBin() {
  const candidates = [
    process.env.MIDASHI_BUILD_INDEX,
    process.env.CARGO_TARGET_DIR && path.join(process.env.CARGO_TARGET_DIR, "release/build-index"),
    path.join(ROOT, "target/release/build-index"),
  ].filter(Boolean);
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`no build-index binary (looked at ${candidates.join(", ")}): run \`cargo build --release -p build-index\``);
  // A release binary found by looking (not named by MIDASHI_BUILD_INDEX) that is older than
  // the indexer's sources measures another indexer: a run once reported a previous format's
  // bytes as today's.
  if (found !== process.env.MIDASHI_BUILD_INDEX) {
    const newest = newestSource();
    if (newest && statSync(found).mtimeMs < newest.mtimeMs) {
      throw new Error(`${found} is older than ${path.relative(ROOT, newest.file)}: run \`cargo build --release -p build-index\`, or name a binary with MIDASHI_BUILD_INDEX`);
    }
  }
  return found;
}

/** The most recently changed Rust source of the indexer (its crates and build-index). */
function newestSource() {
  let newest;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".rs")) {
        const mtimeMs = statSync(p).mtimeMs;
        if (!newest || mtimeMs > newest.mtimeMs) newest = { file: p, mtimeMs };
      }
    }
  };
  for (const dir of [path.join(ROOT, "build-index/src"), ...readdirSync(path.join(ROOT, "crates")).map((c) => path.join(ROOT, "crates", c, "src"))]) {
    if (existsSync(dir)) walk(dir);
  }
  return newest;
}

/** Pagefind's binary as its npm package installs it (the extended build: CJK segmentation). */
export function pagefindBin() {
  const pkg = path.join(ROOT, "node_modules/@pagefind/linux-x64");
  for (const name of ["pagefind_extended", "pagefind"]) {
    const p = path.join(pkg, "bin", name);
    if (existsSync(p)) return p;
  }
  throw new Error("Pagefind's binary is missing from @pagefind/linux-x64");
}

/** A package's installed version (read from node_modules: some packages do not export package.json). */
export function versionOf(pkg) {
  return JSON.parse(readFileSync(path.join(ROOT, "node_modules", pkg, "package.json"), "utf8")).version;
}

/** build-index's version line. */
export function buildIndexVersion() {
  return execFileSync(buildIndexBin(), ["--version"], { encoding: "utf8" }).trim();
}

/**
 * Runs a command under `/usr/bin/time` with a timeout: resolves with wall seconds, peak RSS
 * (KiB, of the process and the children it waited for), the exit code, and stdout.
 */
export function timed(cmd, args, { timeoutMs = 300_000, cwd = ROOT, env = process.env } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    execFile("/usr/bin/time", ["-f", "__TIME__ %e %M", cmd, ...args], { cwd, env, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 256 << 20 }, (err, stdout, stderr) => {
      const wallMs = performance.now() - started;
      const m = /__TIME__ ([\d.]+) (\d+)/.exec(stderr);
      if (err && (err.killed || err.signal)) return resolve({ ok: false, timedOut: true, wallMs, stderr: stderr.slice(-2000) });
      resolve({ ok: !err, wallMs, seconds: m ? Number(m[1]) : wallMs / 1000, peakRssKiB: m ? Number(m[2]) : null, stdout, stderr: err ? stderr.slice(-2000) : "" });
    });
  });
}
