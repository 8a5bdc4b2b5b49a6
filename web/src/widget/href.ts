// Where a result leads: its URL resolved against the page (or the element's `base`), and
// only ever an http(s) or file URL.

/**
 * Where a result's `url` leads. With `base` the URL is taken relative to it (a leading "/"
 * dropped), so a site that is not at the root of its host, or is opened from file://, still
 * finds its pages. With `htmlLinks`, a URL naming a folder gets `index.html` and one without
 * an extension gets `.html` (static files, no rewrites). Only http(s) and file URLs are
 * followed: a hostile document path can never turn into a `javascript:` link.
 */
export function resolveHref(hitUrl: string, base: string | null, htmlLinks: boolean): string | undefined {
  let url: URL;
  try {
    if (base !== null) {
      const rel = hitUrl.replace(/^\/+/, "");
      // "a:b.html" relative to a folder is a path, not a URL of scheme "a".
      const safe = /^[^/?#]*:/.test(rel) ? `./${rel}` : rel;
      url = new URL(safe, new URL(base, document.baseURI));
    } else {
      url = new URL(hitUrl, document.baseURI);
    }
  } catch {
    return undefined;
  }
  if (!["http:", "https:", "file:"].includes(url.protocol)) return undefined;
  if (htmlLinks) {
    // The site's files are page.html and folder/index.html; no server maps clean URLs to
    // them on file://.
    if (url.pathname.endsWith("/")) url.pathname += "index.html";
    else if (!/\.[A-Za-z0-9]+$/.test(url.pathname.slice(url.pathname.lastIndexOf("/") + 1))) url.pathname += ".html";
  }
  return url.href;
}
