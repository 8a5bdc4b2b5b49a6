// The widget's strings in German (de): fetched only by a page in that language
// (see ../strings.ts).
import type { Strings } from "../strings.js";

/** German. */
export const strings: Strings = {
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
