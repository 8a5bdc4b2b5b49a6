// Orama: BM25 (its default) over title and text, its English tokenizer with stemming on and
// the English stop words of @orama/stopwords (which its docs recommend; none by default);
// threshold 1 (keep documents matching any query term: OR). Japanese: @orama/tokenizers'
// Japanese tokenizer (Intl.Segmenter). Saved and restored with Orama's own save()/load().
import { create, insertMultiple, load, save, search } from "@orama/orama";
import { createTokenizer } from "@orama/tokenizers/japanese";
import { createTokenizer as createMandarinTokenizer } from "@orama/tokenizers/mandarin";
import { stopwords } from "@orama/stopwords/english";

function db(lang) {
  return create({
    schema: { id: "string", title: "string", text: "string" },
    // Korean has no tokenizer in Orama or @orama/tokenizers: the Intl.Segmenter one it ships.
    components: {
      tokenizer:
        lang === "zh" ? createMandarinTokenizer() : lang === "ja" || lang === "ko" ? createTokenizer() : { language: "english", stemming: true, stopWords: stopwords },
    },
  });
}

export default {
  name: "Orama",
  packages: ["@orama/orama", "@orama/tokenizers", "@orama/stopwords"],
  settings: {
    en: "schema title + text (boost title 2), tokenizer language english with stemming and @orama/stopwords English stop words (Orama removes none by default), BM25 (default), threshold 1 (OR), exact terms (tolerance 0)",
    ja: "@orama/tokenizers/japanese createTokenizer() (Intl.Segmenter words), otherwise as en",
    zh: "@orama/tokenizers/mandarin createTokenizer(), otherwise as en",
    ko: "no Korean tokenizer in Orama: @orama/tokenizers/japanese createTokenizer() (Intl.Segmenter words; Hangul splits at spaces), otherwise as en",
  },
  async build(docs, lang) {
    const d = db(lang);
    await insertMultiple(d, docs, 1000);
    return d;
  },
  async search(d, q, k) {
    const r = await search(d, { term: q, properties: ["title", "text"], boost: { title: 2 }, threshold: 1, limit: k });
    return r.hits.map((h) => String(h.document.id));
  },
  serialize(d) {
    return [{ name: "index.json", bytes: Buffer.from(JSON.stringify(save(d))) }];
  },
  load(files, lang) {
    const d = db(lang);
    load(d, JSON.parse(files[0].bytes.toString("utf8")));
    return d;
  },
  bundleEntry: (lang) =>
    `export { create, load, search } from "@orama/orama";` + (lang === "ja" ? "" : ` export { stopwords } from "@orama/stopwords/english";`) + (lang === "ja" ? ` export { createTokenizer } from "@orama/tokenizers/japanese";` : ""),
};
