// The widget's strings in Korean (ko): fetched only by a page in that language
// (see ../strings.ts).
import type { Strings } from "../strings.js";

/** Korean. */
export const strings: Strings = {
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
