// "Copy as Markdown": a result's section, as midashi-core quotes it for pasting
// (answer::quote::section_markdown), onto the clipboard.

/**
 * Writes `text` (still being fetched) to the clipboard. The write starts inside the click
 * or key press, with the text as a promise (`ClipboardItem`): Safari refuses a write made
 * after an `await`, since the user gesture has ended by then. Without `ClipboardItem`, or if
 * it fails, the text is awaited and written with `writeText`, then with a hidden textarea and
 * `execCommand("copy")` (pages not in a secure context have no Clipboard API), which takes
 * the focus: the caller gives it back.
 */
export async function copyText(text: Promise<string>): Promise<void> {
  const clipboard = globalThis.navigator?.clipboard;
  const Item = (globalThis as { ClipboardItem?: typeof ClipboardItem }).ClipboardItem;
  if (clipboard?.write && Item) {
    try {
      const blob = text.then((t) => new Blob([t], { type: "text/plain" }));
      await clipboard.write([new Item({ "text/plain": blob })]);
      return;
    } catch (e) {
      // A failed fetch is the caller's to report, not a reason to try another way.
      await text;
      void e;
    }
  }
  const value = await text;
  if (clipboard?.writeText) {
    try {
      await clipboard.writeText(value);
      return;
    } catch {
      // Not allowed here (no focus, no permission): the textarea below may still work.
    }
  }
  const area = document.createElement("textarea");
  area.value = value;
  area.setAttribute("readonly", "");
  area.style.cssText = "position:fixed;top:0;left:0;opacity:0;pointer-events:none";
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("the browser refused to copy");
}

/** A result's section quoted as Markdown with a link to it (fetched; rejects when gone). */
export function quoteSection(source: { quoteSection?: (id: string, o: { link: string; indexes?: string[] }) => Promise<string | null> }, hit: { id: string; index?: string }, link: string): Promise<string> {
  if (!source.quoteSection) return Promise.reject(new Error("this engine cannot quote sections"));
  return source.quoteSection(hit.id, { link, indexes: hit.index ? [hit.index] : undefined }).then((t) => {
    if (t === null) throw new Error("the section is no longer in the index");
    return t;
  });
}
