// The widget's strings in French (fr): fetched only by a page in that language
// (see ../strings.ts).
import type { Strings } from "../strings.js";

/** French. */
export const strings: Strings = {
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
