// The AWS documentation QA set (github.com/siagholami/aws-documentation, CC BY 4.0) as
// Midashi's documentation development set: real docs pages that no test or tuning has seen,
// and 100 questions people asked about them, each with the page and the words that answer it.
//
//   node bench/aws-docs/make.mjs <checkout> [--out target/eval/aws-docs] [--sample 2000]
//
// <checkout>: a working copy of the repository (documents/, QA_true.csv) or its bare git
// directory (read with `git archive`). Writes under --out:
//   pages/          the guides' Markdown (documents/<guide>/doc_source/<page>.md as
//                   <guide>/<page>.md, the ids QA_true.csv names): a docs folder for
//                   `build-index eval --docs`
//   questions/      queries.jsonl and qrels/test.tsv judging sections (`page#anchor`), for
//                   `build-index eval questions --docs pages`: results grouped as visitors see
//   beir-sections/  every section as a record (id `page#anchor`, title its heading path, text
//                   its own lines: the sections Midashi makes, listed through the JS API), the
//                   same section judgments
//   beir-pages/     every page as a record, judged by page (all 100 questions)
//   beir-2k/        a fixed sample of --sample pages that holds every judged page
// A question is judged at section level when its answer's words are found in one section of
// its page (Markdown escapes, links and emphasis removed on both sides; else the section
// holding most of the answer's sentences, or of its words when they come from a table or a
// list); the others are judged by page only.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { ROOT } from "../lib/data.mjs";
import { buildIndexBin } from "../lib/tools.mjs";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: "string", default: path.join(ROOT, "target/eval/aws-docs") },
    sample: { type: "string", default: "2000" },
  },
});
const log = (...a) => console.error("[aws-docs]", ...a);
if (positionals.length !== 1) {
  console.error("usage: node bench/aws-docs/make.mjs <checkout of siagholami/aws-documentation> [--out dir] [--sample N]");
  process.exit(2);
}

// The repository's files: from a working copy, or extracted from a bare git directory.
let repo = path.resolve(positionals[0]);
if (!existsSync(path.join(repo, "documents"))) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "aws-docs-"));
  log(`extracting ${repo} (git archive of the guides' Markdown) into ${tmp}`);
  execFileSync("bash", ["-c", `git --git-dir="$0" archive HEAD -- ':(glob)documents/*/doc_source/**/*.md' QA_true.csv | tar -x -C "$1"`, repo, tmp]);
  repo = tmp;
}

/** RFC 4180 rows (quoted fields may hold commas, quotes and line breaks). */
function csvRows(text) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(field), (field = "");
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field), rows.push(row), (row = []), (field = "");
    } else field += c;
  }
  if (field || row.length) row.push(field), rows.push(row);
  return rows.filter((r) => r.some((f) => f.trim()));
}

// Pages: every guide's doc_source Markdown.
const out = path.resolve(args.out);
rmSync(out, { recursive: true, force: true });
const pagesDir = path.join(out, "pages");
const docs = path.join(repo, "documents");
let pageCount = 0;
for (const guide of readdirSync(docs).sort()) {
  const source = path.join(docs, guide, "doc_source");
  if (!existsSync(source) || !statSync(source).isDirectory()) continue;
  (function walk(dir, rel) {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p, path.join(rel, name));
      else if (name.endsWith(".md")) {
        const to = path.join(pagesDir, guide, rel, name);
        mkdirSync(path.dirname(to), { recursive: true });
        writeFileSync(to, readFileSync(p));
        pageCount++;
      }
    }
  })(source, "");
}
log(`${pageCount} pages -> ${pagesDir}`);

// Every section, as Midashi makes them (one sectioner: the one being measured).
const indexDir = mkdtempSync(path.join(os.tmpdir(), "aws-docs-index-"));
execFileSync(buildIndexBin(), [pagesDir, "--out", indexDir, "--quiet", "--keyword-only", "--layout", "single", "--no-llms"], {
  stdio: ["ignore", "ignore", "inherit"],
});
const { Midashi } = await import(pathToFileURL(path.join(ROOT, "web/dist/index.js")).href);
const idx = await Midashi.load(indexDir);
const sectionsOf = new Map(); // page -> [{ id, title, text }]
const pageText = new Map();
const files = [];
(function walk(d) {
  for (const name of readdirSync(d).sort()) {
    const p = path.join(d, name);
    if (statSync(p).isDirectory()) walk(p);
    else files.push(path.relative(pagesDir, p).split(path.sep).join("/"));
  }
})(pagesDir);
for (const file of files) {
  const doc = await idx.getDocument(file);
  if (!doc) continue;
  const source = doc.source.split("\n");
  pageText.set(file, { title: doc.title ?? doc.sections[0]?.heading ?? file, text: doc.source });
  sectionsOf.set(
    file,
    doc.sections.map((s, i) => {
      const end = i + 1 < doc.sections.length ? doc.sections[i + 1].start_line - 1 : source.length;
      return {
        _id: s.anchor ? `${file}#${s.anchor}` : file,
        title: s.heading_path.join(" > "),
        text: source.slice(s.start_line - 1, end).join("\n"),
      };
    }),
  );
}
idx.close();
rmSync(indexDir, { recursive: true, force: true });
const sectionCount = [...sectionsOf.values()].reduce((n, s) => n + s.length, 0);
log(`${sectionCount} sections`);

/** Text as a reader sees it: no Markdown escapes, anchors, link targets, emphasis; one space. */
function plain(md) {
  return md
    .replace(/<a name="[^"]*"><\/a>/g, " ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, "$1")
    .replace(/[*`_]+/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

// Questions and judgments.
const rows = csvRows(readFileSync(path.join(repo, "QA_true.csv"), "utf8").replace(/^\uFEFF/, ""));
const header = rows.shift().map((h) => h.trim());
const col = (name) => header.indexOf(name);
const questions = [];
const unknownPages = [];
for (const [i, r] of rows.entries()) {
  const page = r[col("Document_True")].trim();
  const query = { _id: `aws-${String(i + 1).padStart(3, "0")}`, text: r[col("Question")].trim() };
  if (!sectionsOf.has(page)) {
    unknownPages.push(page);
    continue;
  }
  const answer = plain(r[col("Answer_True")]);
  const sections = sectionsOf.get(page).map((s) => ({ id: s._id, text: plain(`${s.title}\n${s.text}`) }));
  let judged = sections.filter((s) => answer && s.text.includes(answer)).map((s) => s.id);
  if (judged.length !== 1) {
    // The answer quoted from several places: the section holding most of its sentences.
    const parts = answer.split(/(?<=[.:;])\s+/).filter((p) => p.length >= 25);
    const scored = sections
      .map((s) => ({ id: s.id, n: parts.filter((p) => s.text.includes(p)).length }))
      .filter((s) => s.n > 0)
      .sort((a, b) => b.n - a.n);
    judged = scored.length && (scored.length === 1 || scored[0].n > scored[1].n) ? [scored[0].id] : [];
  }
  if (judged.length !== 1) {
    // Answers taken from a table or a list ("General Purpose SSD Provisioned IOPS Magnetic"):
    // the one section holding the most of the answer's words, if it holds 80 % of them.
    const words = [...new Set(answer.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1))];
    const covered = sections
      .map((s) => {
        const own = new Set(s.text.split(/[^\p{L}\p{N}]+/u));
        return { id: s.id, share: words.filter((w) => own.has(w)).length / Math.max(1, words.length) };
      })
      .sort((a, b) => b.share - a.share);
    const [best, second] = covered;
    judged = words.length >= 2 && best && best.share >= 0.8 && (!second || best.share > second.share) ? [best.id] : [];
  }
  // A page of one section: that section, whatever the answer's wording.
  if (judged.length !== 1 && sections.length === 1) judged = [sections[0].id];
  questions.push({ query, page, section: judged[0] });
}
if (unknownPages.length) log(`pages named by questions but not in the corpus: ${unknownPages.join(", ")}`);
const bySection = questions.filter((q) => q.section);
log(`${questions.length} questions; ${bySection.length} judged at section level`);

const jsonl = (items) => items.map((x) => JSON.stringify(x)).join("\n") + "\n";
function writeSet(dir, corpus, judged) {
  mkdirSync(path.join(dir, "qrels"), { recursive: true });
  if (corpus) writeFileSync(path.join(dir, "corpus.jsonl"), jsonl(corpus));
  writeFileSync(path.join(dir, "queries.jsonl"), jsonl(judged.map((j) => j.query)));
  writeFileSync(path.join(dir, "qrels/test.tsv"), "query-id\tcorpus-id\tscore\n" + judged.map((j) => `${j.query._id}\t${j.id}\t1`).join("\n") + "\n");
}
const sectionJudged = bySection.map((q) => ({ query: q.query, id: q.section }));
const pageJudged = questions.map((q) => ({ query: q.query, id: q.page }));
writeSet(path.join(out, "questions"), null, sectionJudged);
writeSet(path.join(out, "beir-sections"), [...sectionsOf.values()].flat(), sectionJudged);
const pageRecords = [...pageText].map(([id, p]) => ({ _id: id, title: p.title, text: p.text }));
writeSet(path.join(out, "beir-pages"), pageRecords, pageJudged);

// The 2k sample: every judged page, then pages picked by a fixed hash of their ids.
const judgedPages = new Set(questions.map((q) => q.page));
const hash = (s) => {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.codePointAt(0), 16777619) >>> 0;
  return h;
};
const sampleSize = Number(args.sample);
const rest = pageRecords.filter((p) => !judgedPages.has(p._id)).sort((a, b) => hash(a._id) - hash(b._id) || (a._id < b._id ? -1 : 1));
const sample = [...pageRecords.filter((p) => judgedPages.has(p._id)), ...rest.slice(0, Math.max(0, sampleSize - judgedPages.size))];
writeSet(path.join(out, "beir-2k"), sample, pageJudged);
log(`wrote ${out}: questions/ (${sectionJudged.length}), beir-sections/ (${sectionCount}), beir-pages/ (${pageRecords.length}), beir-2k/ (${sample.length})`);
