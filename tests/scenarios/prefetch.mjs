// Installs every scenario's packages into the scenario cache (harness.mjs `installed` and
// `cargoInstalled`, the same calls and keys the tests use), so the scenarios find them there.
// scripts/test.sh starts it in the background as soon as the set-up is done: the npm
// installs, mostly waiting on the registry, at normal priority (at nice 19 beside the Rust
// build they were starved past their 15-minute limit), then mdBook's `cargo install` at nice
// 19, on the cores the Rust build leaves idle.
//
//   node tests/scenarios/prefetch.mjs
//
// Exits non-zero when an install failed, after trying the others; the scenario that needs it
// then tries again and fails with npm's or cargo's message.

import { setPriority } from "node:os";
import { BUNDLERS, GENERATORS } from "./generators.mjs";
import { installed } from "./harness.mjs";

// The npm installs first: they are quick (mostly the registry), while mdBook's compiling
// once held them back for 25 minutes.
const npm = [
  ...GENERATORS.filter((gen) => !gen.install).map((gen) => [gen.name, () => installed(gen.name, gen.packages)]),
  [BUNDLERS.name, () => installed(BUNDLERS.name, BUNDLERS.packages)],
];
const crates = GENERATORS.filter((gen) => gen.install).map((gen) => [gen.name, () => gen.install()]);
let failed = 0;
for (const [name, install] of npm) attempt(name, install);
// cargo inherits this process's priority.
setPriority(19);
for (const [name, install] of crates) attempt(name, install);
process.exit(failed ? 1 : 0);

function attempt(name, install) {
  const started = Date.now();
  try {
    install();
    console.log(`${name}: installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } catch (e) {
    failed++;
    console.log(`${name}: ${e.message}`);
  }
}
