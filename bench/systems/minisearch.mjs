// MiniSearch: BM25+ over title and text. No stemmer of its own (its docs say to plug one in via
// processTerm); OR is its default combineWith, set explicitly. Japanese: the tokenizer its docs
// suggest for languages without spaces, Intl.Segmenter words.
import MiniSearch from "minisearch";

// Chinese and Korean the same way, with the segmenter of their language.
const segmenters = {};
const tokenizer = (lang) => {
  const s = (segmenters[lang] ??= new Intl.Segmenter(lang, { granularity: "word" }));
  return (text) => [...s.segment(text)].filter((x) => x.isWordLike).map((x) => x.segment);
};
const CJK = ["ja", "zh", "ko"];

function options(lang) {
  const cjk = CJK.includes(lang) ? { tokenize: tokenizer(lang) } : {};
  return {
    fields: ["title", "text"],
    storeFields: [],
    ...cjk,
    searchOptions: { combineWith: "OR", boost: { title: 2 }, ...cjk },
  };
}

export default {
  name: "MiniSearch",
  packages: ["minisearch"],
  settings: {
    en: "fields title (boost 2) + text, default tokenizer and lower-casing, combineWith OR, no stemming (none built in), exact terms (no fuzzy/prefix)",
    ja: "as en, tokenize = Intl.Segmenter('ja') words (index and query)",
    zh: "as en, tokenize = Intl.Segmenter('zh') words (index and query)",
    ko: "as en, tokenize = Intl.Segmenter('ko') words (index and query)",
  },
  build(docs, lang) {
    const ms = new MiniSearch(options(lang));
    ms.addAll(docs);
    return ms;
  },
  search(ms, q, k) {
    return ms.search(q).slice(0, k).map((r) => String(r.id));
  },
  serialize(ms) {
    return [{ name: "index.json", bytes: Buffer.from(JSON.stringify(ms)) }];
  },
  load(files, lang) {
    return MiniSearch.loadJSON(files[0].bytes.toString("utf8"), options(lang));
  },
  bundleEntry: () => `export { default } from "minisearch";`,
};
