// Installs every scenario's packages into the scenario cache (harness.mjs `installed` and
// `cargoInstalled`, the same calls and keys the tests use), so the scenarios find them there.
// scripts/test.sh starts it in the background, niced, as soon as the set-up is done: the
// installs are mostly waiting on the registry (and mdBook's `cargo install` takes only the
// cores the Rust build leaves idle), which used to be minutes of the scenarios step.
//
//   node tests/scenarios/prefetch.mjs
//
// Exits non-zero when an install failed, after trying the others; the scenario that needs it
// then tries again and fails with npm's or cargo's message.

import { BUNDLERS, GENERATORS } from "./generators.mjs";
import { installed } from "./harness.mjs";

// The npm installs first: they are quick (mostly the registry), while mdBook's compiling at
// nice 19 beside the Rust build once held them back for 25 minutes.
const installs = [
  ...GENERATORS.filter((gen) => !gen.install).map((gen) => [gen.name, () => installed(gen.name, gen.packages)]),
  [BUNDLERS.name, () => installed(BUNDLERS.name, BUNDLERS.packages)],
  ...GENERATORS.filter((gen) => gen.install).map((gen) => [gen.name, () => gen.install()]),
];
let failed = 0;
for (const [name, install] of installs) {
  const started = Date.now();
  try {
    install();
    console.log(`${name}: installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } catch (e) {
    failed++;
    console.log(`${name}: ${e.message}`);
  }
}
process.exit(failed ? 1 : 0);
