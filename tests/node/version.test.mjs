// The JS package, the wasm module, the model packages and the Rust workspace are one release: their versions must
// agree, or the wasm/JS mismatch check would refuse a correct deployment.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { importMidashi, ROOT } from "../support/indexes.mjs";

test("package.json, VERSION, the wasm module, the model packages and Cargo agree", async () => {
  const { Midashi } = await importMidashi();
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "web/package.json"), "utf8"));
  const cargo = readFileSync(path.join(ROOT, "Cargo.toml"), "utf8");
  const workspaceVersion = /\[workspace\.package\][^[]*?\nversion = "([^"]+)"/.exec(cargo)?.[1];
  assert.equal(Midashi.version, pkg.version);
  assert.equal(workspaceVersion, pkg.version);
  // The model packages are released with it, and the optional dependency names that release.
  for (const name of ["model-minilm", "model-e5"]) {
    const model = JSON.parse(readFileSync(path.join(ROOT, "packages", name, "package.json"), "utf8"));
    assert.equal(model.version, pkg.version, model.name);
  }
  assert.equal(pkg.optionalDependencies["@midashi/model-minilm"], pkg.version);
});
