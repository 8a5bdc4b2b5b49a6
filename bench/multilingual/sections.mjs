// Every section of a docs folder as a record, named as `build-index eval --docs` judges them
// (`path#anchor`, `path` for a page's top): what bench/multilingual/run.py gives bm25s, so that
// the baseline ranks exactly the sections Midashi ranks. The sections come from Midashi itself
// (build-index, then the JS API's getDocument): one sectioner, no second one to keep in step.
//
//   node bench/multilingual/sections.mjs <docs> <slug> <lang> <out.jsonl>
//
// A record's title is the section's heading path, its text the section's own lines (up to the
// next section's heading), code blocks included.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../lib/data.mjs";
import { buildIndexBin } from "../lib/tools.mjs";

const [docs, slug, lang, out] = process.argv.slice(2);
if (!out) {
  console.error("usage: node bench/multilingual/sections.mjs <docs> <slug> <lang> <out.jsonl>");
  process.exit(2);
}
const index = mkdtempSync(path.join(os.tmpdir(), "midashi-sections-"));
execFileSync(buildIndexBin(), [docs, "--out", index, "--quiet", "--keyword-only", "--layout", "single", "--slug", slug, "--lang", lang], {
  stdio: ["ignore", "ignore", "inherit"],
});
const { Midashi } = await import(pathToFileURL(path.join(ROOT, "web/dist/index.js")).href);
const idx = await Midashi.load(index);

const files = [];
(function walk(d) {
  for (const name of readdirSync(d).sort()) {
    const p = path.join(d, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith(".md")) files.push(path.relative(docs, p).split(path.sep).join("/"));
  }
})(docs);

const lines = [];
for (const file of files) {
  const doc = await idx.getDocument(file);
  if (!doc) continue;
  const source = doc.source.split("\n");
  const sections = doc.sections;
  sections.forEach((s, i) => {
    const end = i + 1 < sections.length ? sections[i + 1].start_line - 1 : source.length;
    const text = source.slice(s.start_line - 1, end).join("\n");
    const id = s.anchor ? `${file}#${s.anchor}` : file;
    lines.push(JSON.stringify({ _id: id, title: s.heading_path.join(" > "), text }));
  });
}
idx.close();
writeFileSync(out, lines.join("\n") + "\n");
console.error(`sections.mjs: ${lines.length} sections of ${files.length} pages -> ${out}`);
