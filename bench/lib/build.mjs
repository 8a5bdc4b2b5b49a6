// Build time and peak memory per system per Markdown corpus, each build in its own process
// under /usr/bin/time, with a timeout. Midashi reads the Markdown itself (sections, keyword
// only); the JS libraries and Pagefind get each page as one record (they have no Markdown
// reader), read and indexed in a child Node process.

import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { NODE_SYSTEMS } from "../systems/index.mjs";
import { corpusDir, ROOT } from "./data.mjs";
import { readTree, sizesOfFiles } from "./sizes.mjs";
import { buildIndexBin, timed } from "./tools.mjs";

const log = (...a) => console.error("[build]", ...a);
const SLUGS = { "rust-book": "mdbook", "vue-docs-ja": "vitepress", "powershell-docs": "github" };

/** Every system on every corpus. */
export async function measureBuilds(corpora, { timeoutMs, only }) {
  const rows = [];
  const keys = ["midashi", ...Object.keys(NODE_SYSTEMS).filter((k) => k !== "midashi"), "pagefind"].filter((k) => !only || only.includes(k));
  for (const corpus of corpora) {
    for (const key of keys) {
      const out = mkdtempSync(path.join(os.tmpdir(), `bench-build-${key}-`));
      log(corpus.name, key);
      const r =
        key === "midashi"
          ? await timed(buildIndexBin(), [corpusDir(corpus.name), "--out", out, "--quiet", "--keyword-only", "--slug", SLUGS[corpus.name] ?? "github"], { timeoutMs })
          : await timed(process.execPath, [path.join(ROOT, "bench/build-child.mjs"), key, corpus.name, corpus.lang, out], { timeoutMs });
      const row = { corpus: corpus.name, key, system: key === "pagefind" ? "Pagefind" : NODE_SYSTEMS[key].name };
      if (r.ok) {
        const files = key === "pagefind" ? readTree(path.join(out, "pagefind")).filter((f) => /\.pf_/.test(f.name)).map((f) => ({ ...f, precompressed: true })) : readTree(out);
        Object.assign(row, { seconds: r.seconds, peakRssMiB: r.peakRssKiB / 1024, index: sizesOfFiles(files) });
        if (key !== "midashi") row.child = JSON.parse(r.stdout.trim().split("\n").pop());
      } else {
        Object.assign(row, { failed: r.timedOut ? `timed out after ${timeoutMs / 1000} s` : r.stderr.trim().split("\n").slice(-3).join(" ") });
      }
      rows.push(row);
      rmSync(out, { recursive: true, force: true });
    }
  }
  return rows;
}
