// The events <midashi-search> fires, and their details.

import type { SearchHit, SearchResponse } from "../types.js";

/** Detail of the cancelable `midashi-navigate` event, fired before following a result. */
export interface NavigateDetail {
  hit: SearchHit;
  /** The absolute URL about to be opened. */
  href: string;
  query: string;
}

/** Detail of the `midashi-search` event, fired when a query is sent to the engine. */
export interface SearchEventDetail {
  query: string;
  /** How many queries this element has sent so far (this one included). */
  count: number;
}

/** Detail of the `midashi-results` event, fired when results are shown. */
export interface ResultsEventDetail {
  query: string;
  response: SearchResponse;
}
