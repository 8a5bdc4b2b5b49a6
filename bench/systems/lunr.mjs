// Lunr: BM25 over title and text with its default English pipeline (trimmer, stop words,
// Porter stemmer). Query terms are added as optional clauses (OR, as Lunr's query strings
// are) through the query API, so punctuation in questions is never parsed as Lunr syntax.
// Japanese: lunr-languages' lunr.ja (TinySegmenter, Japanese stop words and trimmer).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const lunr = require("lunr");
require("lunr-languages/lunr.stemmer.support")(lunr);
require("lunr-languages/tinyseg")(lunr);
require("lunr-languages/lunr.ja")(lunr);
// Korean: lunr.ko (Korean trimmer and stop words). Chinese is not measured: lunr.zh needs
// nodejieba, a native module.
require("lunr-languages/lunr.ko")(lunr);

function tokens(q, lang) {
  const t = lang === "ja" ? lunr.ja.tokenizer(q) : lunr.tokenizer(q);
  return t.map((x) => x.toString()).filter(Boolean);
}

function run(idx, q, k, lang) {
  const terms = tokens(q, lang);
  if (!terms.length) return [];
  return idx
    .query((query) => {
      for (const t of terms) query.term(t, { presence: lunr.Query.presence.OPTIONAL });
    })
    .slice(0, k)
    .map((r) => r.ref);
}

export default {
  name: "Lunr",
  packages: ["lunr", "lunr-languages"],
  settings: {
    en: "fields title (boost 2) + text, default English pipeline (trimmer, stop words, Porter stemmer), query terms optional (OR) via idx.query",
    ja: "lunr-languages lunr.ja (TinySegmenter tokenizer, Japanese stop words), query tokenised by lunr.ja.tokenizer, terms optional (OR)",
    ko: "lunr-languages lunr.ko (Korean trimmer and stop words, default tokenizer), terms optional (OR)",
  },
  build(docs, lang) {
    return lunr(function () {
      if (lang === "ja") this.use(lunr.ja);
      if (lang === "ko") this.use(lunr.ko);
      this.ref("id");
      this.field("title", { boost: 2 });
      this.field("text");
      for (const d of docs) this.add(d);
    });
  },
  search(idx, q, k, lang) {
    return run(idx, q, k, lang);
  },
  serialize(idx) {
    return [{ name: "index.json", bytes: Buffer.from(JSON.stringify(idx)) }];
  },
  load(files) {
    return lunr.Index.load(JSON.parse(files[0].bytes.toString("utf8")));
  },
  bundleEntry: (lang) =>
    lang === "ja"
      ? `import lunr from "lunr"; import s from "lunr-languages/lunr.stemmer.support"; import t from "lunr-languages/tinyseg"; import j from "lunr-languages/lunr.ja"; s(lunr); t(lunr); j(lunr); export default lunr;`
      : `export { default } from "lunr";`,
};
