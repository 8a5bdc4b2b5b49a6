// FlexSearch 0.8: one Index over "title\ntext" (its Document index with merge: true ranked
// clearly worse on both sets), queries with suggest: true so that documents missing a query
// term still come back (OR). English: encoder LatinBalance + the English language pack
// (stemmer, stop words), default preset; Japanese: Charset.CJK with the "score" preset
// (contextual index). Of the documented presets (default, match, score, contextual), these
// ranked best on the first 100 queries of each set: the peer gets its best showing.
// Documents are added under numeric ids (their order), mapped back to the set's ids after a
// search: FlexSearch with the sets' string ids was ~3× slower (SciFact in Node, p50 0.29 ms
// numeric against 0.86–0.91 with strings), and a site would number its pages. The map ships
// with the index (ids.json), as a site's list of pages would.
import FlexSearch from "flexsearch";
import EnglishPreset from "flexsearch/lang/en";

const { Index, Encoder, Charset } = FlexSearch;

function options(lang) {
  return ["ja", "zh", "ko"].includes(lang) ? { preset: "score", encoder: Charset.CJK } : { encoder: new Encoder(Charset.LatinBalance, EnglishPreset) };
}

export default {
  name: "FlexSearch",
  packages: ["flexsearch"],
  settings: {
    en: "Index over title + text, default preset (tokenize strict, resolution 9), encoder Charset.LatinBalance + English language pack (stemmer, stop words), search suggest: true (OR)",
    ja: "Index over title + text, preset 'score' (resolution 9, context depth 2), encoder Charset.CJK (character split), suggest: true",
    zh: "as ja: preset score, encoder Charset.CJK (its CJK charset), search suggest: true (OR)",
    ko: "as ja: preset score, encoder Charset.CJK, search suggest: true (OR)",
  },
  build(docs, lang) {
    const idx = new Index(options(lang));
    docs.forEach((d, i) => idx.add(i, `${d.title}\n${d.text}`));
    return { idx, ids: docs.map((d) => String(d.id)) };
  },
  search({ idx, ids }, q, k) {
    return idx.search(q, { limit: k, suggest: true }).map((i) => ids[i]);
  },
  async serialize({ idx, ids }) {
    const files = [{ name: "ids.json", bytes: Buffer.from(JSON.stringify(ids)) }];
    await idx.export((key, data) => {
      if (data !== undefined && data !== null) files.push({ name: `${key}.json`, bytes: Buffer.from(typeof data === "string" ? data : JSON.stringify(data)) });
    });
    return files;
  },
  async load(files, lang) {
    const idx = new Index(options(lang));
    let ids = [];
    for (const f of files) {
      if (f.name === "ids.json") ids = JSON.parse(f.bytes.toString("utf8"));
      else await idx.import(f.name.replace(/\.json$/, ""), f.bytes.toString("utf8"));
    }
    return { idx, ids };
  },
  bundleEntry: (lang) => `export { default } from "flexsearch";` + (["ja", "zh", "ko"].includes(lang) ? "" : ` export { default as en } from "flexsearch/lang/en";`),
};
