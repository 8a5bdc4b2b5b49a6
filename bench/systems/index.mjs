// The systems measured, by key. Pagefind is driven separately: it only searches in a page.
import flexsearch from "./flexsearch.mjs";
import lunr from "./lunr.mjs";
import midashi, { midashiIds } from "./midashi.mjs";
import minisearch from "./minisearch.mjs";
import orama from "./orama.mjs";
import pagefind from "./pagefind.mjs";

/** Systems searched in Node, in table order. */
export const NODE_SYSTEMS = { midashi, "midashi-ids": midashiIds, minisearch, flexsearch, lunr, orama };
export { pagefind };
