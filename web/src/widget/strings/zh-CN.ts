// The widget's strings in Simplified Chinese (zh-CN): fetched only by a page in that language
// (see ../strings.ts).
import type { Strings } from "../strings.js";

/** Simplified Chinese. */
export const strings: Strings = {
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
