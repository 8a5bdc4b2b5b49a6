// Build time through the npm package against the native build-index, on the same corpus in
// the same run: what `npx midashi` costs over the binary it runs (issue #20: within 2× for a
// keyword-only build), and what a build with embeddings costs.
//
//   node bench/npx-build.mjs [--corpus ../shared/corpora/rust-book] [--runs 5] [--embed-runs 1] [--model DIR]
//
// Needs the packed tarball installed by the scenario tests (.cache/scenarios/user, from
// `npm run test:scenarios`) and a native build (target/npm/build-index, from
// scripts/build-npm-native.sh, else target/release/build-index).

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../tests/browser/helpers.mjs";
import { pathWithoutRust, userProject } from "../tests/scenarios/harness.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const corpus = opt("--corpus", join(ROOT, "..", "shared", "corpora", "rust-book"));
const runs = Number(opt("--runs", "5"));
const model = opt("--model", join(ROOT, "models", "all-MiniLM-L6-v2"));

const native = [join(ROOT, "target", "npm", "build-index"), join(ROOT, "target", "release", "build-index")].find(existsSync);
if (!native) throw new Error("no release build-index: run scripts/build-npm-native.sh first");
const npx = join(userProject(), "node_modules", ".bin", "midashi");

/** Median wall time of `n` builds; `extra` gives each run's own options (a fresh cache). */
function time(cmd, extra, env = {}, n = runs) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const out = mkdtempSync(join(tmpdir(), "midashi-npx-bench-"));
    const t0 = process.hrtime.bigint();
    execFileSync(cmd, [corpus, "--out", out, "--quiet", ...extra()], { stdio: "ignore", env: { ...process.env, ...env } });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    rmSync(out, { recursive: true, force: true });
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const noRust = { PATH: pathWithoutRust() };
const kwNative = time(native, () => ["--keyword-only"]);
const kwNpx = time(npx, () => ["--keyword-only"], noRust);
console.log(`corpus ${corpus}, median of ${runs}`);
console.log(`keyword-only  native ${kwNative.toFixed(0)} ms   npx midashi ${kwNpx.toFixed(0)} ms   ratio ${(kwNpx / kwNative).toFixed(2)}×`);
if (existsSync(join(model, "midashi-model.json"))) {
  // A fresh embedding cache each run: the cost of a first build.
  const cache = () => ["--model", model, "--cache-dir", mkdtempSync(join(tmpdir(), "midashi-npx-cache-"))];
  const embedRuns = Number(opt("--embed-runs", "1"));
  const emNative = time(native, cache, {}, embedRuns);
  const emNpx = time(npx, cache, noRust, embedRuns);
  console.log(`with embeddings (cold cache, ${embedRuns} run)  native ${emNative.toFixed(0)} ms   npx midashi ${emNpx.toFixed(0)} ms   ratio ${(emNpx / emNative).toFixed(2)}×`);
} else {
  console.log(`with embeddings: no model at ${model} (scripts/fetch-model.sh)`);
}
