// Build time and peak memory per system per Markdown corpus, each build in its own process
// under /usr/bin/time, with a timeout. Midashi reads the Markdown itself (sections, keyword
// only); the JS libraries and Pagefind get each page as one record (they have no Markdown
// reader), read and indexed in a child Node process.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { NODE_SYSTEMS } from "../systems/index.mjs";
import { corpusDir, ROOT } from "./data.mjs";
import { readTree, sizesOfFiles } from "./sizes.mjs";
import { buildIndexBin, timed } from "./tools.mjs";

const log = (...a) => console.error("[build]", ...a);
const SLUGS = { "rust-book": "mdbook", "vue-docs-ja": "vitepress", "powershell-docs": "github" };

const MODEL = path.join(ROOT, "models/all-MiniLM-L6-v2");
// powershell-docs' ~69k sections take about 6 minutes to embed on 2 cores; the harness is long
// enough already, so that build runs only when asked for (--embed-large).
const LARGE = new Set(["powershell-docs"]);

/**
 * Every system on every corpus. With `semantic` (and the model present), also Midashi with
 * embeddings, cold: a fresh embedding cache, so every section is encoded.
 */
export async function measureBuilds(corpora, { timeoutMs, only, semantic = false, embedLarge = false, embedTimeoutMs = 3600_000 }) {
  const rows = [];
  const withEmbeddings = semantic && existsSync(MODEL) ? ["midashi-embed"] : [];
  const keys = ["midashi", ...withEmbeddings, ...Object.keys(NODE_SYSTEMS).filter((k) => k !== "midashi" && NODE_SYSTEMS[k].bundleEntry), "pagefind"].filter(
    (k) => !only || only.includes(k) || (k === "midashi-embed" && only.includes("midashi")),
  );
  for (const corpus of corpora) {
    for (const key of keys) {
      if (key === "midashi-embed" && LARGE.has(corpus.name) && !embedLarge) {
        rows.push({ corpus: corpus.name, key, system: "Midashi + embeddings", failed: "not run in this harness (about 6 min on 2 cores: --embed-large runs it; npm run bench:large -- --semantic measures it with the incremental rebuild)" });
        continue;
      }
      const out = mkdtempSync(path.join(os.tmpdir(), `bench-build-${key}-`));
      log(corpus.name, key);
      const slug = ["--slug", SLUGS[corpus.name] ?? "github"];
      const r =
        key === "midashi"
          ? await timed(buildIndexBin(), [corpusDir(corpus.name), "--out", out, "--quiet", "--keyword-only", ...slug], { timeoutMs })
          : key === "midashi-embed"
            ? await timed(buildIndexBin(), [corpusDir(corpus.name), "--out", out, "--quiet", "--model", MODEL, "--cache-dir", path.join(out, ".cold-cache"), ...slug], { timeoutMs: embedTimeoutMs })
            : await timed(process.execPath, [path.join(ROOT, "bench/build-child.mjs"), key, corpus.name, corpus.lang, out], { timeoutMs });
      if (key === "midashi-embed") rmSync(path.join(out, ".cold-cache"), { recursive: true, force: true });
      const name = key === "pagefind" ? "Pagefind" : key === "midashi-embed" ? "Midashi + embeddings" : NODE_SYSTEMS[key].name;
      const row = { corpus: corpus.name, key, system: name };
      if (r.ok) {
        const files = key === "pagefind" ? readTree(path.join(out, "pagefind")).filter((f) => /\.pf_/.test(f.name)).map((f) => ({ ...f, precompressed: true })) : readTree(out);
        Object.assign(row, { seconds: r.seconds, peakRssMiB: r.peakRssKiB / 1024, index: sizesOfFiles(files) });
        if (!key.startsWith("midashi")) row.child = JSON.parse(r.stdout.trim().split("\n").pop());
      } else {
        Object.assign(row, { failed: r.timedOut ? `timed out after ${timeoutMs / 1000} s` : r.stderr.trim().split("\n").slice(-3).join(" ") });
      }
      rows.push(row);
      rmSync(out, { recursive: true, force: true });
    }
  }
  return rows;
}
