// Bundles the <midashi-search> widget for `build-index --site` (and anyone who wants one file):
//
//   node scripts/build-widget.mjs        (after `npm run build:web` and scripts/build-wasm.sh)
//
// writes web/dist/bundle/:
//   midashi.js       ES module: the widget + the midashi package; expects worker.js,
//                    wasm/ and strings/ next to itself (import.meta.url)
//   strings/<tag>.js the widget's words in a language besides English and Japanese
//   webmcp.js        the WebMCP tools, for a browser that has WebMCP
//   worker.js        the engine's Web Worker, self-contained
//   embed-worker.js  the semantic module's Web Worker (loads embed/ next to itself lazily)
//   midashi-file.js  classic script for pages opened from file:// (no modules, no workers,
//                    no fetch there): the widget + the full engine's wasm-bindgen glue,
//                    reading the index and that module from search/midashi-inline.js
import { build } from "esbuild";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const web = join(root, "web");
const out = join(web, "dist", "bundle");
// midashi-file.js opens the single-file copy of the index a file:// page is given, which only
// the full engine opens (web/wasm-modules.json): its glue.
const { modules } = JSON.parse(readFileSync(join(web, "wasm-modules.json"), "utf8"));
const glue = join(web, "dist", `${modules.find((m) => m.name === "full").out}.js`);
mkdirSync(out, { recursive: true });

const common = {
  bundle: true,
  minify: true,
  sourcemap: true,
  target: "es2022",
  legalComments: "none",
  logLevel: "warning",
};

// The widget always runs its engines in Web Workers (worker.js, embed-worker.js): the hosts
// that `{ worker: false }` runs on the page's thread are left out of midashi.js (~3 KB gzip
// of every first query), replaced by a stub that says what to use instead.
const workerOnly = {
  name: "worker-only",
  setup(b) {
    b.onResolve({ filter: /^\.\/(embed-)?host\.js$/ }, (args) =>
      args.importer.endsWith(join("src", "index.ts")) ? { path: args.path, namespace: "worker-only" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "worker-only" }, (args) => ({
      contents: `import { MidashiError } from "./errors.js";
const fail = () => { throw new MidashiError("INTERNAL", "this browser has no Web Workers, which the <midashi-search> bundle runs its engine in; use the midashi npm package with { worker: false } instead"); };
export class ${args.path.includes("embed") ? "EmbedHost" : "Host"} { constructor() { fail(); } }`,
      resolveDir: join(web, "src"),
      loader: "js",
    }));
  },
};
// Modules a page fetches only when it needs them, kept out of midashi.js, which keeps their
// `import("./…")` as written (resolved next to itself): the widget's strings in languages
// other than English and Japanese (bundle/strings/<tag>.js, for a page in that language),
// and the WebMCP tools (bundle/webmcp.js, for a browser that has WebMCP).
const translations = readdirSync(join(web, "src/widget/strings")).filter((f) => f.endsWith(".ts"));
const apart = {
  name: "apart",
  setup(b) {
    b.onResolve({ filter: /^\.\/(strings\/[A-Za-z-]+|webmcp)\.js$/ }, (args) => {
      const from = args.importer;
      const ok = args.path === "./webmcp.js" ? from.endsWith(join("widget", "agents.ts")) : from.endsWith(join("widget", "strings.ts"));
      return ok ? { path: args.path, external: true } : undefined;
    });
  },
};
await build({ ...common, entryPoints: [join(web, "src/widget/index.ts")], format: "esm", outfile: join(out, "midashi.js"), plugins: [workerOnly, apart] });
rmSync(join(out, "strings"), { recursive: true, force: true });
await build({ ...common, entryPoints: translations.map((f) => join(web, "src/widget/strings", f)), format: "esm", outdir: join(out, "strings") });
await build({ ...common, entryPoints: [join(web, "src/widget/webmcp.ts")], format: "esm", outfile: join(out, "webmcp.js") });
await build({ ...common, entryPoints: [join(web, "src/worker.ts")], format: "esm", outfile: join(out, "worker.js") });
await build({ ...common, entryPoints: [join(web, "src/embed-worker.ts")], format: "esm", outfile: join(out, "embed-worker.js") });
// The package's own worker.js and embed-worker.js (what index.js points at with
// `new URL("./worker.js", import.meta.url)`) are the same self-contained bundles, replacing
// tsc's output: an app's bundler emits such a URL's file as it is, without following its
// imports, so a worker that imported ./host.js would 404 in every bundled app.
await build({ ...common, entryPoints: [join(web, "src/worker.ts")], format: "esm", outfile: join(web, "dist", "worker.js") });
await build({ ...common, entryPoints: [join(web, "src/embed-worker.ts")], format: "esm", outfile: join(web, "dist", "embed-worker.js") });

if (!existsSync(glue)) {
  console.error(`build-widget: ${glue} is missing; build the wasm first (scripts/build-wasm.sh dev|release)`);
  process.exit(1);
}
await build({
  ...common,
  stdin: {
    contents: `import * as glue from ${JSON.stringify(glue)};\nimport { defineInline } from ${JSON.stringify(join(web, "src/widget/file.ts"))};\ndefineInline(glue);\n`,
    resolveDir: web,
    sourcefile: "midashi-file-entry.js",
    loader: "js",
  },
  format: "iife",
  outfile: join(out, "midashi-file.js"),
  // The glue's default wasm URL uses import.meta.url, which a classic script lacks; the
  // module is always passed in explicitly here, so that default is never evaluated.
  logOverride: { "empty-import-meta": "silent" },
});
console.log(`build-widget: wrote ${out}/{midashi.js,worker.js,embed-worker.js,midashi-file.js}`);
