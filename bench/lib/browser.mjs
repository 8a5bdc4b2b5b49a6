// Headless Chromium for what only runs in a page (Pagefind's search, the Midashi widget), with
// every network response recorded: the tests' launcher and static server, reused.

import { sizesOf } from "./sizes.mjs";

import { chromium } from "playwright-core";

export { serve } from "../../tests/browser/helpers.mjs";

/** Debian's Chromium, headless; each `newContext()` of the browser is a fresh profile and cache. */
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
}

/**
 * Records the responses of `page`: `log` collects `{ url, bytes, gzip }` (body bytes as
 * received, and what they would be served gzip'd — Pagefind's files are gzip already, so
 * gzip never makes them larger here: the smaller of the two counts).
 */
export function recordResponses(page, { fromDisk } = {}) {
  const log = [];
  const pending = new Set();
  page.on("response", (r) => {
    const pathname = new URL(r.url()).pathname;
    const record = (b) => {
      const s = sizesOf(b);
      log.push({ url: pathname, bytes: b.length, gzip: Math.min(b.length, s.gzip), brotli: Math.min(b.length, s.brotli) });
    };
    const p = r
      .body()
      .then(record)
      // Chromium keeps at most ~10 MB of a response body for the DevTools protocol: a larger
      // file (a big site's index) is read from the served folder instead of going uncounted.
      .catch(() => {
        const b = fromDisk?.(pathname);
        if (b) record(b);
      })
      .finally(() => pending.delete(p));
    pending.add(p);
  });
  return {
    log,
    /** Waits until every body seen so far has been read. */
    async settle() {
      while (pending.size) await Promise.all([...pending]);
    },
  };
}

/** Sums `log` entries (from index `from`). */
export function sumLog(log, from = 0) {
  const part = log.slice(from);
  return {
    requests: part.length,
    bytes: part.reduce((a, e) => a + e.bytes, 0),
    gzip: part.reduce((a, e) => a + e.gzip, 0),
    brotli: part.reduce((a, e) => a + e.brotli, 0),
  };
}
