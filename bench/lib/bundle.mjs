// JS bytes a page would ship for a library: esbuild bundles a one-line entry that imports
// exactly what the harness uses (minified, ES2022, no source map), so every library is
// measured the same way whatever layout its package has.

import { build } from "esbuild";
import { ROOT } from "./data.mjs";

/** Minified bundle bytes of `entry` (ES module source resolved from the repository root). */
export async function bundleBytes(entry) {
  const out = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  return Buffer.from(out.outputFiles[0].contents);
}
