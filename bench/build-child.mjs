// One index build in its own process, so /usr/bin/time sees only this system's time and memory:
// read the corpus's Markdown files as whole-page records, index them, write the serialised
// index to <out>. Prints `{ docs, indexMs, bytes }`.
//
//   node bench/build-child.mjs <system> <corpus> <lang> <out>
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadCorpus } from "./lib/data.mjs";
import { NODE_SYSTEMS } from "./systems/index.mjs";
import { buildBundle } from "./systems/pagefind.mjs";

const [system, corpus, lang, out] = process.argv.slice(2);
const docs = loadCorpus(corpus);
const started = performance.now();
let bytes = 0;
if (system === "pagefind") {
  await buildBundle(docs, lang, out);
} else {
  const sys = NODE_SYSTEMS[system];
  const engine = await sys.build(docs, lang);
  const files = await sys.serialize(engine);
  mkdirSync(out, { recursive: true });
  for (const f of files) {
    writeFileSync(path.join(out, f.name), f.bytes);
    bytes += f.bytes.length;
  }
}
console.log(JSON.stringify({ docs: docs.length, indexMs: performance.now() - started, bytes }));
