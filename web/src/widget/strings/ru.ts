// The widget's strings in Russian (ru): fetched only by a page in that language
// (see ../strings.ts).
import type { Strings } from "../strings.js";

/** Russian plural: 1 результат, 2 результата, 5 результатов (21 → one, 11–14 → many). */
function ru3(n: number, one: string, few: string, many: string): string {
  const d = n % 10;
  const dd = n % 100;
  if (d === 1 && dd !== 11) return one;
  if (d >= 2 && d <= 4 && (dd < 12 || dd > 14)) return few;
  return many;
}

/** Russian. */
export const strings: Strings = {
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
