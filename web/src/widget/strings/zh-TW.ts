// The widget's strings in Traditional Chinese (zh-TW): fetched only by a page in that language
// (see ../strings.ts).
import type { Strings } from "../strings.js";

/** Traditional Chinese. */
export const strings: Strings = {
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
