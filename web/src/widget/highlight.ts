// Highlights as DOM: the engine gives `[start, end)` ranges in UTF-16 code units into the
// preview; they become <mark> elements around text nodes. Nothing from the index is ever
// parsed as HTML, so a preview that contains `<script>` is shown as those characters.

/**
 * Appends `text` to `parent`, wrapping the `ranges` in `<mark>`. Ranges may come unsorted,
 * overlapping or out of bounds (a stale index, a bug elsewhere): they are clamped and merged
 * rather than trusted, and a range never splits a surrogate pair.
 */
export function appendHighlighted(parent: Node, text: string, ranges: readonly (readonly [number, number])[], doc: Document = document): void {
  const merged = normalizeRanges(text, ranges);
  let at = 0;
  for (const [start, end] of merged) {
    if (start > at) parent.appendChild(doc.createTextNode(text.slice(at, start)));
    const mark = doc.createElement("mark");
    mark.textContent = text.slice(start, end);
    parent.appendChild(mark);
    at = end;
  }
  if (at < text.length) parent.appendChild(doc.createTextNode(text.slice(at)));
}

/** Sorted, clamped, merged, non-empty ranges on code-point boundaries. */
export function normalizeRanges(text: string, ranges: readonly (readonly [number, number])[]): [number, number][] {
  const len = text.length;
  const snap = (i: number): number => {
    let x = Math.max(0, Math.min(len, Math.trunc(i)));
    // Inside a surrogate pair: move to the pair's start.
    if (x > 0 && x < len && isLow(text.charCodeAt(x)) && isHigh(text.charCodeAt(x - 1))) x -= 1;
    return x;
  };
  const sorted = ranges
    .filter((r) => Array.isArray(r) && Number.isFinite(r[0]) && Number.isFinite(r[1]))
    .map(([s, e]) => [snap(s), snap(e)] as [number, number])
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
