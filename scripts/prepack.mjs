// The `midashi` package's prepack (web/package.json): `npm pack --workspaces` and `npm publish`
// run it, so a tarball always carries what `npx midashi` and an import need — the compiled JS,
// the wasm modules (the semantic one too), the widget's bundle and the indexer for this platform — built here when
// missing (a release build: minutes on a cold tree), never packed without them.
//
// MIDASHI_PACK_BINARY=<build-index>: pack that binary (stripped) instead of building one, as
// scripts/test.sh does with the build it has just tested.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const web = join(root, "web");
const platform = `${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "build-index.exe" : "build-index";

function run(what, cmd, args) {
  console.error(`midashi prepack: ${what}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit" });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status}`;
    console.error(`midashi prepack: ${what} failed (${why}); the package was not packed.`);
    process.exit(1);
  }
}

const need = (...parts) => !existsSync(join(web, ...parts));

if (need("dist", "wasm", "midashi_keyword_bg.wasm") || need("dist", "wasm", "midashi_wasm_bg.wasm")) {
  run("building the wasm modules (scripts/build-wasm.sh release)", "bash", ["scripts/build-wasm.sh", "release"]);
}
if (need("dist", "embed", "midashi_wasm_embed_bg.wasm")) {
  run("building the semantic module (scripts/build-wasm-embed.sh release)", "bash", ["scripts/build-wasm-embed.sh", "release"]);
}
if (need("dist", "index.js") || need("dist", "bundle", "midashi.js")) {
  run("building the JS package and the widget (npm run build:widget)", "npm", ["run", "--silent", "build:widget"]);
}
if (process.env.MIDASHI_PACK_BINARY) {
  run(`packing ${process.env.MIDASHI_PACK_BINARY}`, "bash", ["scripts/build-npm-native.sh", "--from", process.env.MIDASHI_PACK_BINARY]);
} else if (need("native", platform, exe)) {
  run(`building the indexer for ${platform} (scripts/build-npm-native.sh)`, "bash", ["scripts/build-npm-native.sh"]);
}
