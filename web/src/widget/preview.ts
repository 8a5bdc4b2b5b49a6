// What a result shows: its breadcrumbs, its heading, why it matched (the excerpt with the
// query's words marked) and its versions.

import type { SearchHit } from "../types.js";
import { el } from "./dom.js";
import { appendHighlighted } from "./highlight.js";
import type { Strings } from "./strings.js";

/**
 * The preview without its own heading line (the heading is shown above it), with the
 * highlights that fell on the heading moved onto the heading text.
 */
export function splitPreview(hit: Pick<SearchHit, "preview" | "highlights" | "heading" | "depth">): {
  preview: string;
  highlights: [number, number][];
  headingHighlights: [number, number][];
} {
  const { preview, highlights, heading } = hit;
  const unchanged = { preview, highlights: [...highlights], headingHighlights: [] };
  const m = /^(#{1,6})[ \t]+/.exec(preview);
  if (!m) return unchanged;
  const nl = preview.indexOf("\n");
  const lineEnd = nl < 0 ? preview.length : nl;
  const cut = nl < 0 ? preview.length : nl + 1;
  const prefix = m[0].length;
  const isHeadingLine = preview.slice(prefix, lineEnd).startsWith(heading);
  // A document's preview may start with any heading; only its title's line is redundant.
  if (hit.depth === 0 && !isHeadingLine) return unchanged;
  const headingHighlights: [number, number][] = [];
  if (isHeadingLine) {
    for (const [s, e] of highlights) {
      if (e > prefix && s < prefix + heading.length) {
        headingHighlights.push([Math.max(0, s - prefix), Math.min(heading.length, e - prefix)]);
      }
    }
  }
  // Blank lines between the heading and the text go too; highlights shift with the cut.
  const blank = /^(?:[ \t]*\n)*/.exec(preview.slice(cut))?.[0].length ?? 0;
  const start = cut + blank;
  const rest: [number, number][] = [];
  for (const [s, e] of highlights) if (e > start) rest.push([Math.max(0, s - start), e - start]);
  return { preview: preview.slice(start), highlights: rest, headingHighlights };
}

/** Fills a result's option: breadcrumbs below the document title, heading, excerpt, versions. */
export function appendHit(option: HTMLElement, hit: SearchHit, strings: Strings): void {
  // The group shows the document title: breadcrumbs start below it.
  const crumbs = hit.heading_path.slice(1, -1);
  if (crumbs.length) option.append(el("div", "crumbs", crumbs.join(" › ")));
  const { preview, highlights, headingHighlights } = splitPreview(hit);
  const heading = el("div", "heading");
  appendHighlighted(heading, hit.heading || hit.title || hit.path, headingHighlights);
  option.append(heading);
  // The excerpt shows why it matched (the words marked, wherever in the section they
  // are); a hit from an engine without excerpts falls back to its first lines.
  const shown = typeof hit.excerpt === "string" ? { text: hit.excerpt, marks: hit.excerpt_highlights ?? [] } : { text: preview, marks: highlights };
  if (shown.text.trim()) {
    const p = el("div", "preview");
    appendHighlighted(p, shown.text, shown.marks);
    option.append(p);
  }
  if (hit.version) {
    // The version shown, then the others as plain text: the option itself is the one
    // link (the listbox pattern has no nested interactive elements).
    const others = (hit.other_versions ?? []).map((v) => v.version);
    const line = el("div", "versions", hit.version);
    if (others.length) line.append(el("span", "also", ` · ${strings.alsoIn} ${others.join(", ")}`));
    option.append(line);
  }
}
