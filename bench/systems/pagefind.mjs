// Pagefind: indexed by its npm package's Node API (the same binary as its CLI; records added
// with addCustomRecord, one per document, `language` set so its segmenter and stemmer for that
// language run), searched through its own pagefind.js in headless Chromium — it does not run
// in Node. Its search has no OR mode: a page must contain every query word (after stemming).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import * as pagefind from "pagefind";
import { readTree } from "../lib/sizes.mjs";

/** Builds a Pagefind bundle of `docs` into `<dir>/pagefind`; returns `dir`. */
export async function buildBundle(docs, lang, dir = mkdtempSync(path.join(os.tmpdir(), "bench-pagefind-"))) {
  const { index } = await pagefind.createIndex({ forceLanguage: lang });
  for (const d of docs) {
    await index.addCustomRecord({ url: `/${encodeURIComponent(d.id)}`, content: `${d.title}\n${d.text}`, language: lang, meta: { title: d.title } });
  }
  await index.writeFiles({ outputPath: path.join(dir, "pagefind") });
  await pagefind.close();
  return dir;
}

/**
 * Page hash → document id, read from the bundle's fragments (gzip'd JSON behind a
 * "pagefind_dcd" signature), so rankings need no per-result fetch.
 */
export function fragmentIds(dir) {
  const fdir = path.join(dir, "pagefind", "fragment");
  const map = new Map();
  for (const f of readdirSync(fdir)) {
    const raw = zlib.gunzipSync(readFileSync(path.join(fdir, f)));
    const json = JSON.parse(raw.subarray(raw.indexOf("{")).toString("utf8"));
    map.set(f.replace(/\.pf_fragment$/, ""), decodeURIComponent(json.url.slice(1)));
  }
  return map;
}

/** The bundle's files (already gzip'd by Pagefind, as served). */
export function bundleFiles(dir) {
  return readTree(path.join(dir, "pagefind")).map((f) => ({ ...f, precompressed: /\.pf_|\.pagefind$/.test(f.name) }));
}

/** The runtime files a page loads before any index chunk: loader JS, its worker/wasm. */
export function runtimeFiles(dir, lang) {
  const files = bundleFiles(dir);
  // pagefind.js fetches the wasm of the page's language, or the generic one when there is none.
  const wasm = files.find((f) => f.name === `wasm.${lang}.pagefind`) ?? files.find((f) => f.name === "wasm.unknown.pagefind");
  return [...files.filter((f) => f.name === "pagefind.js"), wasm].filter(Boolean);
}

/** The script run in the page: every query, its ranked hashes and its time (ms). */
export async function searchInPage(page, queries, k = 10) {
  return page.evaluate(
    async ([queries, k]) => {
      const pf = await import("/pagefind/pagefind.js");
      await pf.init();
      const out = [];
      for (const q of queries) {
        const t = performance.now();
        const r = await pf.search(q);
        out.push({ ids: r.results.slice(0, k).map((x) => x.id), ms: performance.now() - t });
      }
      return out;
    },
    [queries, k],
  );
}

export function remove(dir) {
  rmSync(dir, { recursive: true, force: true });
}

export default {
  name: "Pagefind",
  packages: ["pagefind"],
  settings: {
    en: "Node API createIndex({ forceLanguage: 'en' }), addCustomRecord per document (title + text, language en: its English stemmer), queried with pagefind.js search() in Chromium; all query words required (no OR option)",
    ja: "as en with language ja (the extended binary's Japanese segmenter)",
    zh: "as en with language zh (the extended binary's Chinese segmenter)",
    ko: "as en with language ko",
  },
};
