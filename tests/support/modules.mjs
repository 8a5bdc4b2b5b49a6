// The wasm modules, as web/wasm-modules.json lists them: the one list the tests read.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Every module: `{ name, crate, out, features, build, job }`. */
export const MODULES = JSON.parse(readFileSync(path.join(ROOT, "web/wasm-modules.json"), "utf8")).modules;

/** A module by name. */
export function wasmModule(name) {
  const m = MODULES.find((x) => x.name === name);
  if (!m) throw new Error(`web/wasm-modules.json names no module ${name}`);
  return m;
}

/** The `_bg.wasm` files of the search engine's modules (crates/midashi-wasm), under web/dist. */
export const ENGINE_WASM = MODULES.filter((m) => m.crate === "midashi-wasm").map((m) => `${m.out}_bg.wasm`);
