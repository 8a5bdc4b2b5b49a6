// The words the widget shows, in en, ja, zh-CN, zh-TW, ko, de, fr, es, pt-BR and ru — one
// object per language in this file, for translators to edit or add to. The language comes
// from the element's `lang` attribute, else the nearest ancestor's `lang` (usually
// `<html lang>`); any string can be overridden through the element's `strings` property.

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

/** Russian plural: 1 результат, 2 результата, 5 результатов (21 → one, 11–14 → many). */
function ru3(n: number, one: string, few: string, many: string): string {
  const d = n % 10;
  const dd = n % 100;
  if (d === 1 && dd !== 11) return one;
  if (d >= 2 && d <= 4 && (dd < 12 || dd > 14)) return few;
  return many;
}

/** Simplified Chinese. */
export const zhCN: Strings = {
  button: "搜索",
  placeholder: "搜索文档",
  dialogLabel: "搜索文档",
  resultsLabel: "搜索结果",
  close: "关闭搜索",
  loading: "正在加载搜索索引…",
  error: (m) => `搜索不可用：${m}`,
  count: (n, exact) => `${n}${exact === false ? "+" : ""} 个结果`,
  noResults: (q) => `没有与“${q}”匹配的结果。`,
  didYouMean: "您是不是要找：",
  semanticLoading: "正在加载语义搜索结果…",
  semanticReady: "已包含语义搜索结果。",
  semanticWhy: (r, mb) =>
    `${r === "question" ? "您的查询像一个问题，" : r === "weak" ? "关键词匹配较少，" : ""}正在加载语义搜索${mb ? `（${mb} MB）` : ""}…`,
  semanticCancel: "取消",
  semanticOffer: "按语义搜索",
  recent: "最近搜索",
  clearRecent: "清除",
  hintNavigate: "切换",
  hintOpen: "打开",
  hintClose: "关闭",
  copyMarkdown: "复制为 Markdown",
  copied: (heading) => `已将“${heading}”复制为 Markdown`,
  copyFailed: (why) => `无法复制：${why}`,
  alsoIn: "其他版本",
  moreResults: (n) => `显示更多结果（还有 ${n} 个）`,
  filters: "筛选",
  facet: { category: "栏目", tags: "标签", version: "版本", lang: "语言" },
};

/** Traditional Chinese. */
export const zhTW: Strings = {
  button: "搜尋",
  placeholder: "搜尋文件",
  dialogLabel: "搜尋文件",
  resultsLabel: "搜尋結果",
  close: "關閉搜尋",
  loading: "正在載入搜尋索引…",
  error: (m) => `無法使用搜尋：${m}`,
  count: (n, exact) => `${n}${exact === false ? "+" : ""} 筆結果`,
  noResults: (q) => `找不到與「${q}」相符的結果。`,
  didYouMean: "您是不是要找：",
  semanticLoading: "正在載入語意搜尋結果…",
  semanticReady: "已包含語意搜尋結果。",
  semanticWhy: (r, mb) =>
    `${r === "question" ? "您的查詢像是一個問題，" : r === "weak" ? "關鍵字相符的結果較少，" : ""}正在載入語意搜尋${mb ? `（${mb} MB）` : ""}…`,
  semanticCancel: "取消",
  semanticOffer: "依語意搜尋",
  recent: "最近的搜尋",
  clearRecent: "清除",
  hintNavigate: "切換",
  hintOpen: "開啟",
  hintClose: "關閉",
  copyMarkdown: "複製為 Markdown",
  copied: (heading) => `已將「${heading}」複製為 Markdown`,
  copyFailed: (why) => `無法複製：${why}`,
  alsoIn: "其他版本",
  moreResults: (n) => `顯示更多結果（還有 ${n} 筆）`,
  filters: "篩選",
  facet: { category: "單元", tags: "標籤", version: "版本", lang: "語言" },
};

/** Korean. */
export const ko: Strings = {
  button: "검색",
  placeholder: "문서 검색",
  dialogLabel: "문서 검색",
  resultsLabel: "검색 결과",
  close: "검색 닫기",
  loading: "검색 색인을 불러오는 중…",
  error: (m) => `검색을 사용할 수 없습니다: ${m}`,
  count: (n, exact) => `결과 ${n}개${exact === false ? " 이상" : ""}`,
  noResults: (q) => `“${q}”에 대한 결과가 없습니다.`,
  didYouMean: "이것을 찾으셨나요:",
  semanticLoading: "의미 검색 결과를 불러오는 중…",
  semanticReady: "의미 검색 결과가 포함되었습니다.",
  semanticWhy: (r, mb) =>
    `${r === "question" ? "질문 형태의 검색어라서 " : r === "weak" ? "키워드 일치가 적어서 " : ""}의미 검색을 불러오는 중${mb ? ` (${mb} MB)` : ""}…`,
  semanticCancel: "취소",
  semanticOffer: "의미로 검색",
  recent: "최근 검색",
  clearRecent: "지우기",
  hintNavigate: "이동",
  hintOpen: "열기",
  hintClose: "닫기",
  copyMarkdown: "Markdown으로 복사",
  copied: (heading) => `“${heading}”을(를) Markdown으로 복사했습니다`,
  copyFailed: (why) => `복사할 수 없습니다: ${why}`,
  alsoIn: "다른 버전",
  moreResults: (n) => `결과 더 보기 (${n}개 더)`,
  filters: "필터",
  facet: { category: "섹션", tags: "태그", version: "버전", lang: "언어" },
};

/** German. */
export const de: Strings = {
  button: "Suche",
  placeholder: "Dokumentation durchsuchen",
  dialogLabel: "Dokumentation durchsuchen",
  resultsLabel: "Suchergebnisse",
  close: "Suche schließen",
  loading: "Suchindex wird geladen …",
  error: (m) => `Die Suche ist nicht verfügbar: ${m}`,
  count: (n, exact) => (exact === false ? `${n}+ Ergebnisse` : n === 1 ? "1 Ergebnis" : `${n} Ergebnisse`),
  noResults: (q) => `Keine Ergebnisse für „${q}“.`,
  didYouMean: "Meinten Sie:",
  semanticLoading: "Semantische Ergebnisse werden geladen …",
  semanticReady: "Semantische Ergebnisse sind enthalten.",
  semanticWhy: (r, mb) =>
    `${r === "question" ? "Ihre Suche klingt nach einer Frage: " : r === "weak" ? "Wenige Treffer für die Suchwörter: " : ""}semantische Suche wird geladen${mb ? ` (${mb} MB)` : ""} …`,
  semanticCancel: "Abbrechen",
  semanticOffer: "Nach Bedeutung suchen",
  recent: "Letzte Suchen",
  clearRecent: "Löschen",
  hintNavigate: "navigieren",
  hintOpen: "öffnen",
  hintClose: "schließen",
  copyMarkdown: "Als Markdown kopieren",
  copied: (heading) => `„${heading}“ als Markdown kopiert`,
  copyFailed: (why) => `Kopieren nicht möglich: ${why}`,
  alsoIn: "Auch in",
  moreResults: (n) => (n === 1 ? "1 weiteres Ergebnis anzeigen" : `Weitere Ergebnisse anzeigen (${n} weitere)`),
  filters: "Filter",
  facet: { category: "Bereich", tags: "Schlagwort", version: "Version", lang: "Sprache" },
};

/** French. */
export const fr: Strings = {
  button: "Rechercher",
  placeholder: "Rechercher dans la documentation",
  dialogLabel: "Rechercher dans la documentation",
  resultsLabel: "Résultats de recherche",
  close: "Fermer la recherche",
  loading: "Chargement de l’index de recherche…",
  error: (m) => `La recherche est indisponible : ${m}`,
  count: (n, exact) => (exact === false ? `${n}+ résultats` : n <= 1 ? `${n} résultat` : `${n} résultats`),
  noResults: (q) => `Aucun résultat pour « ${q} ».`,
  didYouMean: "Vouliez-vous dire :",
  semanticLoading: "Chargement des résultats sémantiques…",
  semanticReady: "Résultats sémantiques inclus.",
  semanticWhy: (r, mb) =>
    `${r === "question" ? "Votre recherche ressemble à une question : " : r === "weak" ? "Peu de correspondances par mots-clés : " : ""}chargement de la recherche sémantique${mb ? ` (${mb} Mo)` : ""}…`,
  semanticCancel: "Annuler",
  semanticOffer: "Rechercher par le sens",
  recent: "Recherches récentes",
  clearRecent: "Effacer",
  hintNavigate: "pour naviguer",
  hintOpen: "pour ouvrir",
  hintClose: "pour fermer",
  copyMarkdown: "Copier en Markdown",
  copied: (heading) => `« ${heading} » copié en Markdown`,
  copyFailed: (why) => `Copie impossible : ${why}`,
  alsoIn: "Aussi dans",
  moreResults: (n) => (n === 1 ? "Afficher 1 résultat de plus" : `Afficher plus de résultats (${n} de plus)`),
  filters: "Filtres",
  facet: { category: "Rubrique", tags: "Étiquette", version: "Version", lang: "Langue" },
};

/** Spanish. */
export const es: Strings = {
  button: "Buscar",
  placeholder: "Buscar en la documentación",
  dialogLabel: "Buscar en la documentación",
  resultsLabel: "Resultados de búsqueda",
  close: "Cerrar la búsqueda",
  loading: "Cargando el índice de búsqueda…",
  error: (m) => `La búsqueda no está disponible: ${m}`,
  count: (n, exact) => (exact === false ? `${n}+ resultados` : n === 1 ? "1 resultado" : `${n} resultados`),
  noResults: (q) => `No hay resultados para «${q}».`,
  didYouMean: "¿Quisiste decir?:",
  semanticLoading: "Cargando resultados semánticos…",
  semanticReady: "Resultados semánticos incluidos.",
  semanticWhy: (r, mb) =>
    `${r === "question" ? "Tu búsqueda parece una pregunta: " : r === "weak" ? "Pocas coincidencias por palabras clave: " : ""}cargando la búsqueda semántica${mb ? ` (${mb} MB)` : ""}…`,
  semanticCancel: "Cancelar",
  semanticOffer: "Buscar por significado",
  recent: "Búsquedas recientes",
  clearRecent: "Borrar",
  hintNavigate: "para moverte",
  hintOpen: "para abrir",
  hintClose: "para cerrar",
  copyMarkdown: "Copiar como Markdown",
  copied: (heading) => `«${heading}» copiado como Markdown`,
  copyFailed: (why) => `No se pudo copiar: ${why}`,
  alsoIn: "También en",
  moreResults: (n) => (n === 1 ? "Mostrar 1 resultado más" : `Mostrar más resultados (${n} más)`),
  filters: "Filtros",
  facet: { category: "Sección", tags: "Etiqueta", version: "Versión", lang: "Idioma" },
};

/** Brazilian Portuguese. */
export const ptBR: Strings = {
  button: "Pesquisar",
  placeholder: "Pesquisar na documentação",
  dialogLabel: "Pesquisar na documentação",
  resultsLabel: "Resultados da pesquisa",
  close: "Fechar a pesquisa",
  loading: "Carregando o índice de pesquisa…",
  error: (m) => `A pesquisa não está disponível: ${m}`,
  count: (n, exact) => (exact === false ? `${n}+ resultados` : n === 1 ? "1 resultado" : `${n} resultados`),
  noResults: (q) => `Nenhum resultado para “${q}”.`,
  didYouMean: "Você quis dizer:",
  semanticLoading: "Carregando resultados semânticos…",
  semanticReady: "Resultados semânticos incluídos.",
  semanticWhy: (r, mb) =>
    `${r === "question" ? "Sua pesquisa parece uma pergunta: " : r === "weak" ? "Poucas correspondências por palavra-chave: " : ""}carregando a pesquisa semântica${mb ? ` (${mb} MB)` : ""}…`,
  semanticCancel: "Cancelar",
  semanticOffer: "Pesquisar pelo significado",
  recent: "Pesquisas recentes",
  clearRecent: "Limpar",
  hintNavigate: "para navegar",
  hintOpen: "para abrir",
  hintClose: "para fechar",
  copyMarkdown: "Copiar como Markdown",
  copied: (heading) => `“${heading}” copiado como Markdown`,
  copyFailed: (why) => `Não foi possível copiar: ${why}`,
  alsoIn: "Também em",
  moreResults: (n) => (n === 1 ? "Mostrar mais 1 resultado" : `Mostrar mais resultados (mais ${n})`),
  filters: "Filtros",
  facet: { category: "Seção", tags: "Tag", version: "Versão", lang: "Idioma" },
};

/** Russian. */
export const ru: Strings = {
  button: "Поиск",
  placeholder: "Поиск по документации",
  dialogLabel: "Поиск по документации",
  resultsLabel: "Результаты поиска",
  close: "Закрыть поиск",
  loading: "Загрузка поискового индекса…",
  error: (m) => `Поиск недоступен: ${m}`,
  count: (n, exact) => `${n}${exact === false ? "+" : ""} ${ru3(n, "результат", "результата", "результатов")}`,
  noResults: (q) => `По запросу «${q}» ничего не найдено.`,
  didYouMean: "Возможно, вы имели в виду:",
  semanticLoading: "Загрузка смысловых результатов…",
  semanticReady: "Смысловые результаты добавлены.",
  semanticWhy: (r, mb) =>
    `${r === "question" ? "Запрос похож на вопрос: " : r === "weak" ? "Мало совпадений по словам: " : ""}загружается смысловой поиск${mb ? ` (${mb} МБ)` : ""}…`,
  semanticCancel: "Отмена",
  semanticOffer: "Искать по смыслу",
  recent: "Недавние запросы",
  clearRecent: "Очистить",
  hintNavigate: "перемещение",
  hintOpen: "открыть",
  hintClose: "закрыть",
  copyMarkdown: "Копировать как Markdown",
  copied: (heading) => `«${heading}» скопировано как Markdown`,
  copyFailed: (why) => `Не удалось скопировать: ${why}`,
  alsoIn: "Также в",
  moreResults: (n) => `Показать ещё (${n} ${ru3(n, "результат", "результата", "результатов")})`,
  filters: "Фильтры",
  facet: { category: "Раздел", tags: "Тег", version: "Версия", lang: "Язык" },
};

/** Every translation by its language tag: add one here (and to `stringsFor`'s matching). */
export const translations: Record<string, Strings> = {
  en,
  ja,
  "zh-CN": zhCN,
  "zh-TW": zhTW,
  ko,
  de,
  fr,
  es,
  "pt-BR": ptBR,
  ru,
};

/**
 * The strings for a BCP 47 language tag: the exact tag (`pt-BR`), else its script or region
 * for Chinese (`zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO` → Traditional; other `zh*` → Simplified),
 * else its primary language (`de-AT` → `de`, `pt-PT` → `pt-BR`), else English.
 */
export function stringsFor(lang: string | null | undefined): Strings {
  const tag = (lang ?? "").trim().toLowerCase().replace(/_/g, "-");
  const exact = Object.keys(translations).find((k) => k.toLowerCase() === tag);
  if (exact) return translations[exact]!;
  const [primary, ...rest] = tag.split("-");
  if (primary === "zh") return rest.some((p) => ["hant", "tw", "hk", "mo"].includes(p)) ? zhTW : zhCN;
  if (primary === "pt") return ptBR;
  return translations[primary ?? ""] ?? en;
}
