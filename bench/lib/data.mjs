// Where the benchmark's inputs come from: the BEIR evaluation folders and the Markdown corpora
// of ../shared (MIDASHI_SHARED overrides), read the same way for every system.

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const SHARED = process.env.MIDASHI_SHARED ?? path.resolve(ROOT, "../shared");

/** The evaluation sets and the language each system is configured for. */
export const EVAL_SETS = [
  { name: "scifact", lang: "en" },
  { name: "jsquad-valid", lang: "ja" },
];

/** The Markdown corpora whose build time and memory are measured, with their generators' anchor style. */
export const CORPORA = [
  { name: "rust-book", lang: "en", slug: "mdbook" },
  { name: "vue-docs-ja", lang: "ja", slug: "vitepress" },
  { name: "powershell-docs", lang: "en", slug: "github" },
];

function jsonl(file) {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

/**
 * A BEIR folder: `docs` ({ id, title, text }), `queries` ({ id, text }, only the judged ones,
 * in file order) and `qrels` (query id → Map(doc id → grade)).
 */
export function loadEvalSet(name) {
  const dir = path.join(SHARED, "eval", name);
  const docs = jsonl(path.join(dir, "corpus.jsonl")).map((r) => ({ id: String(r._id), title: r.title ?? "", text: r.text ?? "" }));
  const qrels = new Map();
  const lines = readFileSync(path.join(dir, "qrels", "test.tsv"), "utf8").split("\n").slice(1);
  for (const line of lines) {
    const [qid, did, score] = line.split("\t");
    if (!did) continue;
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid).set(did, Number(score));
  }
  const queries = jsonl(path.join(dir, "queries.jsonl"))
    .map((q) => ({ id: String(q._id), text: q.text }))
    .filter((q) => qrels.has(q.id));
  return { name, dir, corpusFile: path.join(dir, "corpus.jsonl"), docs, queries, qrels };
}

/** Every-n-th sample of `n` items, spread over the whole list (for --quick). */
export function spread(items, n) {
  if (!n || items.length <= n) return items;
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]);
}

/** All `*.md` files under `dir`, sorted, as relative paths. */
export function markdownFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".md")) out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

/**
 * A Markdown corpus as whole-page records for the JS libraries and Pagefind's custom records
 * (they have no Markdown reader): id = path, title = the first `# ` heading, text = the source.
 */
export function loadCorpus(name) {
  const dir = path.join(SHARED, "corpora", name);
  return markdownFiles(dir).map((rel) => {
    const text = readFileSync(path.join(dir, rel), "utf8");
    const title = /^#\s+(.+)$/m.exec(text)?.[1] ?? rel;
    return { id: rel, title, text };
  });
}

export function corpusDir(name) {
  return path.join(SHARED, "corpora", name);
}
