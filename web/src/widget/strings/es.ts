// The widget's strings in Spanish (es): fetched only by a page in that language
// (see ../strings.ts).
import type { Strings } from "../strings.js";

/** Spanish. */
export const strings: Strings = {
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
