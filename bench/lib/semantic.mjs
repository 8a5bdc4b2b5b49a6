// The semantic legs (`--semantic`): Midashi semantic and hybrid through the JS API in Node, and
// Orama's vector and hybrid search given exactly the same vectors.
//
// The documents' vectors are Midashi's own (its index built with all-MiniLM-L6-v2, exported by
// `build-index vectors`: the mean of each record's passage vectors, dequantised from the int8
// the index holds, at unit length — Orama holds one vector per document);
// the queries are embedded once by `build-index vectors --queries` with the model the index
// ships. Both engines then search with the same query vector, so what is compared is retrieval
// and fusion, not embedding; encoding cost is measured apart (`npm run bench:embed`, and the
// native `build-index eval` row, which includes it).

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { create, insertMultiple, search } from "@orama/orama";
import { createTokenizer } from "@orama/tokenizers/japanese";
import { stopwords } from "@orama/stopwords/english";
import { ROOT } from "./data.mjs";
import { latencySummary, meanScores, timedRuns } from "./metrics.mjs";
import { buildIndexBin } from "./tools.mjs";

const log = (...a) => console.error("[semantic]", ...a);
const MODEL = path.join(ROOT, "models/all-MiniLM-L6-v2");

function readVectors(file) {
  const out = new Map();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const { id, vector } = JSON.parse(line);
    out.set(id, vector);
  }
  return out;
}

/** Midashi and Orama, semantic and hybrid, on one set. */
export async function measureSemantic(set, queries) {
  if (!existsSync(MODEL)) return [{ system: "semantic legs", set: set.name, skipped: "no model at models/all-MiniLM-L6-v2 (scripts/fetch-model.sh)" }];
  const work = mkdtempSync(path.join(os.tmpdir(), "bench-semantic-"));
  try {
    const records = path.join(work, "records.jsonl");
    writeFileSync(records, set.docs.map((d) => JSON.stringify({ _id: d.id, title: d.title, text: d.text })).join("\n") + "\n");
    const dir = path.join(work, "midashi");
    log(set.name, "build-index with embeddings (cached after the first run)");
    execFileSync(buildIndexBin(), [records, "--out", dir, "--model", MODEL, "--quiet"], { stdio: ["ignore", "ignore", "inherit"] });
    const qfile = path.join(work, "queries.jsonl");
    writeFileSync(qfile, queries.map((q) => JSON.stringify({ _id: q.id, text: q.text })).join("\n") + "\n");
    execFileSync(buildIndexBin(), ["vectors", dir, "--out", path.join(work, "docs.vec.jsonl")]);
    execFileSync(buildIndexBin(), ["vectors", dir, "--queries", qfile, "--out", path.join(work, "queries.vec.jsonl")]);
    const docVectors = readVectors(path.join(work, "docs.vec.jsonl"));
    const queryVectors = readVectors(path.join(work, "queries.vec.jsonl"));
    const rows = [];

    // Midashi through the npm package (the wasm engine), vectors loaded, query vectors given.
    const { Midashi } = await import(pathToFileURL(path.join(ROOT, "web/dist/index.js")).href);
    const idx = await Midashi.load(dir);
    await idx.loadVectors();
    for (const mode of ["semantic", "hybrid"]) {
      log(set.name, `midashi ${mode}`);
      const { runs, ms } = await timedRuns(queries, async (q) => {
        const r = await idx.search(q.text, { limit: 10, prefix: false, group: false, mode, queryVector: Float32Array.from(queryVectors.get(q.id)), supersede: false, cache: false });
        return r.results.map((h) => h.path);
      });
      rows.push({ system: `Midashi ${mode}`, key: `midashi-${mode}`, set: set.name, ...meanScores(runs, set.qrels), latencyMs: latencySummary(ms), queries: queries.length, where: "node" });
    }
    idx.close();

    // Orama: the same documents and vectors; its documented vector/hybrid modes.
    const dims = docVectors.values().next().value.length;
    const db = create({
      schema: { id: "string", title: "string", text: "string", embedding: `vector[${dims}]` },
      components: { tokenizer: set.lang === "ja" ? createTokenizer() : { language: "english", stemming: true, stopWords: stopwords } },
    });
    await insertMultiple(
      db,
      set.docs.filter((d) => docVectors.has(d.id)).map((d) => ({ ...d, embedding: docVectors.get(d.id) })),
      1000,
    );
    const orama = {
      semantic: (q) => ({ mode: "vector", vector: { value: queryVectors.get(q.id), property: "embedding" }, similarity: 0, limit: 10 }),
      hybrid: (q) => ({
        mode: "hybrid",
        term: q.text,
        properties: ["title", "text"],
        boost: { title: 2 },
        threshold: 1,
        vector: { value: queryVectors.get(q.id), property: "embedding" },
        similarity: 0,
        limit: 10,
      }),
    };
    for (const mode of ["semantic", "hybrid"]) {
      log(set.name, `orama ${mode}`);
      const { runs, ms } = await timedRuns(queries, async (q) => {
        const r = await search(db, orama[mode](q));
        return r.hits.map((h) => String(h.document.id));
      });
      rows.push({ system: `Orama ${mode}`, key: `orama-${mode}`, set: set.name, ...meanScores(runs, set.qrels), latencyMs: latencySummary(ms), queries: queries.length, where: "node" });
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Settings of the semantic legs, for the report. */
export const SEMANTIC_SETTINGS = {
  midashi:
    "all-MiniLM-L6-v2 (int8 weights), index built with the model; JS API search with mode semantic | hybrid (RRF, k 60, equal weights), limit 10, prefix: false, group: false, queryVector = the query embedded by build-index (same model)",
  orama:
    "the same documents with Midashi's vectors (the mean of a record's passages, dequantised) in a vector[384] property; mode 'vector' and mode 'hybrid' (its default 0.5/0.5 weights over max-normalised BM25 and cosine), similarity 0 (its default 0.8 would drop most relevant MiniLM matches), text side as in its keyword row (title boost 2, threshold 1)",
};
