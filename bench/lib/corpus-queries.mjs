// Queries for a docs corpus the benchmark has no hand-written set for (a held-out corpus):
// section headings, as readers type what they look for, picked evenly across the corpus in
// file order so the same corpus always gets the same queries.

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Markdown files under `dir`, relative paths in sorted order. */
export function markdownFiles(dir) {
  const out = [];
  const walk = (rel) => {
    const entries = readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith(".") || e.name === "node_modules") continue;
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else if (/\.(md|markdown|mdx)$/i.test(e.name)) out.push(p);
    }
  };
  walk("");
  return out;
}

/** A heading as a reader would type it: no Markdown, no `{#anchor}`, 1–5 words. */
function asQuery(heading) {
  const text = heading
    .replace(/\{#[^}]*\}\s*$/, "")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, " ")
    .replace(/[`*_~#\\]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  const words = text.split(" ").filter(Boolean);
  if (words.length === 0 || words.length > 5 || text.length < 3) return undefined;
  return text;
}

/** `n` distinct H2/H3 headings of the corpus, spread evenly over its files. */
export function headingQueries(dir, n) {
  const headings = [];
  for (const rel of markdownFiles(dir)) {
    let fence = false;
    for (const line of readFileSync(path.join(dir, rel), "utf8").split("\n")) {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      const m = !fence && /^#{2,3}\s+(.+?)\s*#*\s*$/.exec(line);
      const q = m && asQuery(m[1]);
      if (q) headings.push(q);
    }
  }
  const distinct = [...new Set(headings)];
  if (distinct.length <= n) return distinct;
  const step = distinct.length / n;
  return Array.from({ length: n }, (_, i) => distinct[Math.floor(i * step + step / 2)]);
}
