// The widget's strings in Brazilian Portuguese (pt-BR): fetched only by a page in that language
// (see ../strings.ts).
import type { Strings } from "../strings.js";

/** Brazilian Portuguese. */
export const strings: Strings = {
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
