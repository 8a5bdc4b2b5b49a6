// The words the widget shows, in en, ja, zh-CN, zh-TW, ko, de, fr, es, pt-BR and ru — one
// object per language, for translators to edit or add to: English and Japanese here, the
// others each in strings/<tag>.ts, a module a page fetches only when it speaks that language
// (all ten in one bundle were ~4 KB gzip of every visitor's first query; one language is
// ~0.5). The language comes from the element's `lang` attribute, else the nearest
// ancestor's `lang` (usually `<html lang>`); any string can be overridden through the
// element's `strings` property.

/** Every string the widget shows. Functions take what they interpolate. */
export interface Strings {
  /** Text of the button that opens the search box. */
  button: string;
  /** Placeholder of the search input. */
  placeholder: string;
  /** Accessible name of the dialog. */
  dialogLabel: string;
  /** Accessible name of the result list. */
  resultsLabel: string;
  /** Accessible name of the close button. */
  close: string;
  /** While the index is loading. */
  loading: string;
  /** The index could not be loaded or the query failed. */
  error: (message: string) => string;
  /** Live-region announcement of the result count; `exact === false`: at least `n` (a large
   * site's common word, counted without ranking every match). */
  count: (n: number, exact?: boolean) => string;
  /** No result for the query. */
  noResults: (query: string) => string;
  /** Lead-in of the "did you mean" suggestions. */
  didYouMean: string;
  /** Shown while the semantic module loads (keyword results are already there). */
  semanticLoading: string;
  /** Shown once semantic results are merged in. */
  semanticReady: string;
  /** What is loading and why (`question` or `weak`), with its size in MB when known. */
  semanticWhy: (reason: "question" | "weak" | undefined, mb: number | undefined) => string;
  /** Stops the semantic download. */
  semanticCancel: string;
  /** Asks for semantic search (the `on-demand` policy, or a query that did not start it). */
  semanticOffer: string;
  /** Heading of the recent searches. */
  recent: string;
  /** Button that forgets recent searches. */
  clearRecent: string;
  /** Footer hints. */
  hintNavigate: string;
  hintOpen: string;
  hintClose: string;
  /** The button that copies the selected result's section as Markdown. */
  copyMarkdown: string;
  /** Said once a section is on the clipboard. */
  copied: (heading: string) => string;
  /** Said when it could not be copied, with why. */
  copyFailed: (why: string) => string;
  /** Lead-in of the other versions a result exists in (a versioned site). */
  alsoIn: string;
  /** The last option when more results than shown match: loads the next page. */
  moreResults: (remaining: number) => string;
  /** Accessible name of the filter chips. */
  filters: string;
  /** Names of the facets a result list can be narrowed by. */
  facet: { category: string; tags: string; version: string; lang: string };
}

/** English. */
export const en: Strings = {
  button: "Search",
  placeholder: "Search the docs",
  dialogLabel: "Search the documentation",
  resultsLabel: "Search results",
  close: "Close search",
  loading: "Loading the search index…",
  error: (m) => `Search is unavailable: ${m}`,
  count: (n, exact) => (exact === false ? `${n}+ results` : n === 1 ? "1 result" : `${n} results`),
  noResults: (q) => `No results for “${q}”.`,
  didYouMean: "Did you mean:",
  semanticLoading: "Semantic results loading…",
  semanticReady: "Semantic results included.",
  semanticWhy: (r, mb) =>
    `${r === "question" ? "Your query reads as a question: " : r === "weak" ? "Few keyword matches: " : ""}loading semantic search${mb ? ` (${mb} MB)` : ""}…`,
  semanticCancel: "Cancel",
  semanticOffer: "Search by meaning",
  recent: "Recent searches",
  clearRecent: "Clear",
  hintNavigate: "to navigate",
  hintOpen: "to open",
  hintClose: "to close",
  copyMarkdown: "Copy as Markdown",
  copied: (heading) => `Copied “${heading}” as Markdown`,
  copyFailed: (why) => `Could not copy: ${why}`,
  alsoIn: "Also in",
  moreResults: (n) => (n === 1 ? "Show 1 more result" : `Show more results (${n} more)`),
  filters: "Filters",
  facet: { category: "Section", tags: "Tag", version: "Version", lang: "Language" },
};

/** Japanese. */
export const ja: Strings = {
  button: "検索",
  placeholder: "ドキュメントを検索",
  dialogLabel: "ドキュメントを検索",
  resultsLabel: "検索結果",
  close: "検索を閉じる",
  loading: "検索インデックスを読み込んでいます…",
  error: (m) => `検索を利用できません: ${m}`,
  count: (n, exact) => `${n} 件${exact === false ? "以上" : ""}`,
  noResults: (q) => `「${q}」に一致する結果はありません。`,
  didYouMean: "もしかして:",
  semanticLoading: "意味検索の結果を読み込み中…",
  semanticReady: "意味検索の結果を含みます。",
  semanticWhy: (r, mb) =>
    `${r === "question" ? "質問のようなので" : r === "weak" ? "キーワードの一致が少ないため" : ""}意味検索を読み込んでいます${mb ? `（${mb} MB）` : ""}…`,
  semanticCancel: "キャンセル",
  semanticOffer: "意味で検索",
  recent: "最近の検索",
  clearRecent: "消去",
  hintNavigate: "で移動",
  hintOpen: "で開く",
  hintClose: "で閉じる",
  copyMarkdown: "Markdown でコピー",
  copied: (heading) => `「${heading}」を Markdown でコピーしました`,
  copyFailed: (why) => `コピーできませんでした: ${why}`,
  alsoIn: "他のバージョン",
  moreResults: (n) => `さらに表示（残り ${n} 件）`,
  filters: "絞り込み",
  facet: { category: "セクション", tags: "タグ", version: "バージョン", lang: "言語" },
};

/** The translations by language tag that are loaded: English and Japanese from the start,
 * each other one once [`loadStrings`] has fetched it. A page may add its own
 * (`translations.nl = { ...en, button: "Zoeken", … }`) before the element is defined. */
export const translations: Record<string, Strings> = { en, ja };

/** The translations fetched when a page asks for them. Each `import()` is written out, so
 * that bundlers (esbuild for the site bundle, an app's Vite or webpack) see the files. */
const later: Record<string, () => Promise<{ strings: Strings }>> = {
  "zh-CN": () => import("./strings/zh-CN.js"),
  "zh-TW": () => import("./strings/zh-TW.js"),
  ko: () => import("./strings/ko.js"),
  de: () => import("./strings/de.js"),
  fr: () => import("./strings/fr.js"),
  es: () => import("./strings/es.js"),
  "pt-BR": () => import("./strings/pt-BR.js"),
  ru: () => import("./strings/ru.js"),
};

/** Every language the widget speaks, by tag. */
export const languages: readonly string[] = ["en", "ja", ...Object.keys(later)];

/**
 * The translation's tag for a BCP 47 language tag: the exact tag (`pt-BR`), else its script
 * or region for Chinese (`zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO` → Traditional; other `zh*` →
 * Simplified), else its primary language (`de-AT` → `de`, `pt-PT` → `pt-BR`), else English.
 */
export function languageFor(lang: string | null | undefined): string {
  const tag = (lang ?? "").trim().toLowerCase().replace(/_/g, "-");
  // The shipped languages and any a page added to `translations` itself.
  const known = [...languages, ...Object.keys(translations)];
  const exact = known.find((k) => k.toLowerCase() === tag);
  if (exact) return exact;
  const [primary = "", ...rest] = tag.split("-");
  if (primary === "zh") return rest.some((p) => ["hant", "tw", "hk", "mo"].includes(p)) ? "zh-TW" : "zh-CN";
  if (primary === "pt") return "pt-BR";
  return known.find((k) => k.toLowerCase() === primary) ?? "en";
}

/** The strings for a language tag ([`languageFor`]), if loaded; English until then. */
export function stringsFor(lang: string | null | undefined): Strings {
  return translations[languageFor(lang)] ?? en;
}

/** Whether the strings for a language tag are settled: loaded (English and Japanese always
 * are), or their fetch failed (English stands in then). */
export function hasStrings(lang: string | null | undefined): boolean {
  const tag = languageFor(lang);
  return tag in translations || failed.has(tag);
}

const loading = new Map<string, Promise<Strings>>();
const failed = new Set<string>();

/** The strings for a language tag, fetched once when not loaded yet; English if the fetch
 * fails (a page whose server lacks the file still gets a working box). */
export function loadStrings(lang: string | null | undefined): Promise<Strings> {
  const tag = languageFor(lang);
  const have = translations[tag];
  if (have) return Promise.resolve(have);
  let pending = loading.get(tag);
  if (!pending) {
    const load = later[tag];
    pending = load
      ? load().then(
          (m) => (translations[tag] = m.strings),
          () => {
            failed.add(tag);
            return en;
          },
        )
      : Promise.resolve(en);
    loading.set(tag, pending);
  }
  return pending;
}
