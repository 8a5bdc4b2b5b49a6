#!/usr/bin/env node
// `npx midashi …`: the indexer and its subcommands (search, get, mcp, eval, vectors), the
// same program as the native `build-index`. This file only finds that program for this
// platform and runs it with the arguments given; see docs/getting-started/npm.md for why the indexer ships
// as a native binary per platform rather than as WebAssembly.
//
// Where the binary is looked for, in order:
//   $MIDASHI_BINARY                               (a build-index you built yourself)
//   <this package>/native/<platform>-<arch>/      (bundled: linux-x64 in this package)
//   @midashi/cli-<platform>-<arch>                (optional dependency, one per platform)
//
// The embedding models are packages too (@midashi/model-minilm, which this package installs,
// and @midashi/model-e5, which a site in Japanese or another language MiniLM does not cover
// installs beside it): their folders go to the indexer as $MIDASHI_MODEL_PATH, found from the
// project `npx midashi` runs in and from this package.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const platform = `${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "build-index.exe" : "build-index";

function locate() {
  if (process.env.MIDASHI_BINARY) return process.env.MIDASHI_BINARY;
  const bundled = join(pkg, "native", platform, exe);
  if (existsSync(bundled)) return bundled;
  try {
    return createRequire(import.meta.url).resolve(`@midashi/cli-${platform}/${exe}`);
  } catch {
    return undefined;
  }
}

/** The folders of the installed model packages, the project's first. */
function modelPackages() {
  const found = new Set();
  for (const from of [join(process.cwd(), "package.json"), fileURLToPath(import.meta.url)]) {
    const require = createRequire(from);
    for (const name of ["@midashi/model-minilm", "@midashi/model-e5"]) {
      try {
        found.add(dirname(require.resolve(`${name}/package.json`)));
      } catch {
        // Not installed where this looks.
      }
    }
  }
  return [...found];
}

const binary = locate();
if (!binary) {
  console.error(
    `midashi: this installation has no indexer for ${platform}: the package carries one for the ` +
      `platform it was packed on (looked in ${join(pkg, "native", platform)}) and for platforms whose ` +
      `@midashi/cli-${platform} package is installed. Build it from a checkout of Midashi ` +
      `(cargo build --release -p build-index) and set MIDASHI_BINARY to target/release/${exe}.`,
  );
  process.exit(2);
}

// The widget's files (for --site) are this package's dist/.
const env = { MIDASHI_ASSETS: join(pkg, "dist"), ...process.env };
const models = [process.env.MIDASHI_MODEL_PATH, ...modelPackages()].filter(Boolean);
if (models.length > 0) env.MIDASHI_MODEL_PATH = models.join(delimiter);
const child = spawn(binary, process.argv.slice(2), {
  stdio: "inherit",
  env,
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (e) => {
  console.error(`midashi: could not run ${binary}: ${e.message}`);
  process.exit(2);
});
child.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
