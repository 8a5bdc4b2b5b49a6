// When a typed query goes out, and what waits for the reader to pause.

/** Delay between the last keystroke and the query: enough to skip most intermediate words. */
export const DEBOUNCE_MS = 60;
/**
 * Results per page. A page of results is what the first query waits for, and on a sharded
 * index each shown result fetches its document's bundle (~6 KB gzip): five fill the dialog,
 * and "Show more results" fetches the next five only if the reader asks.
 */
export const DEFAULT_LIMIT = 5;
export const DEFAULT_PREVIEW_LINES = 3;
/**
 * Pause after a page found without ranking every result (a common word on a large site)
 * before its filter chips are counted: counting reads every result, so it waits until the
 * reader stops typing rather than delaying each keystroke's page.
 */
export const COUNT_AFTER_MS = 250;
/**
 * Pause in typing after which a query is settled, and only then may start the semantic
 * download (megabytes) that its answer says would help. Keys come 0.1–0.5 s apart while a
 * word is typed (168,000 typists average 0.24 s: Dhakal et al., CHI 2018); the keyword
 * results are on screen meanwhile, so waiting a second costs the visitor nothing.
 */
export const SETTLE_MS = 1000;
