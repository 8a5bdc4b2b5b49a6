// The keyboard shortcuts that open the search box: the `shortcuts` attribute, parsed.
//
//   <midashi-search shortcuts="mod+k /">   the default: ⌘K / Ctrl+K anywhere, "/" outside fields
//   <midashi-search shortcuts="alt+s">     another key, where a site or browser already uses ⌘K
//   <midashi-search shortcuts="off">       none (the button still opens it)
//
// `mod` is ⌘ on a Mac and Ctrl elsewhere (both are accepted on either). A shortcut without a
// modifier fires only when the reader is not typing in a field.

/** One shortcut: a key and the modifiers it needs. */
export interface Shortcut {
  /** The key, lower-case (`k`, `/`, `f1`). */
  key: string;
  mod: boolean;
  ctrl: boolean;
  meta: boolean;
  alt: boolean;
  shift: boolean;
}

/** What opens the box when the attribute is absent. */
export const DEFAULT_SHORTCUTS = "mod+k /";

/** The attribute's shortcuts; `off`/`none`/empty gives none. Unknown words are skipped. */
export function parseShortcuts(attr: string | null): Shortcut[] {
  const text = (attr ?? DEFAULT_SHORTCUTS).trim().toLowerCase();
  if (text === "" || text === "off" || text === "none") return [];
  const out: Shortcut[] = [];
  for (const word of text.split(/\s+/)) {
    const parts = word.split("+");
    // "mod++" would be a plus key: the last part is the key even when empty before it.
    const key = parts.pop() || (word.endsWith("+") ? "+" : "");
    const s: Shortcut = { key, mod: false, ctrl: false, meta: false, alt: false, shift: false };
    let ok = key !== "";
    for (const p of parts) {
      if (p === "mod" || p === "ctrl" || p === "meta" || p === "alt" || p === "shift") s[p] = true;
      else if (p === "cmd") s.meta = true;
      else if (p === "option") s.alt = true;
      else ok = false;
    }
    if (ok) out.push(s);
  }
  return out;
}

/** Whether `s` has a modifier (then it works while typing in a field too). */
export function hasModifier(s: Shortcut): boolean {
  return s.mod || s.ctrl || s.meta || s.alt;
}

/** Whether the key event is the shortcut. */
export function matches(s: Shortcut, e: KeyboardEvent): boolean {
  if (e.key.toLowerCase() !== s.key) return false;
  const primary = s.mod ? e.metaKey || e.ctrlKey : e.metaKey === s.meta && e.ctrlKey === s.ctrl;
  // Shift is part of typing "/" or "?" on many layouts: it counts only when asked for or
  // for a letter.
  const shiftOk = s.shift ? e.shiftKey : !e.shiftKey || !/^[a-z]$/.test(s.key);
  return primary && e.altKey === s.alt && shiftOk;
}

const NAMES: Record<string, string> = { ctrl: "Control", meta: "Meta", alt: "Alt", shift: "Shift" };

/** The shortcuts as `aria-keyshortcuts` names them (`mod` as both Meta and Control). */
export function ariaShortcuts(list: Shortcut[]): string {
  const one = (s: Shortcut, primary?: "meta" | "ctrl") => {
    const mods = (["ctrl", "meta", "alt", "shift"] as const).filter((m) => s[m] || m === primary).map((m) => NAMES[m]);
    const key = s.key.length === 1 ? s.key.toUpperCase() : s.key[0]?.toUpperCase() + s.key.slice(1);
    return [...mods, key].join("+");
  };
  return list.flatMap((s) => (s.mod ? [one(s, "meta"), one(s, "ctrl")] : [one(s)])).join(" ");
}

/** How the button's key cap shows a shortcut (⌘K on a Mac, Ctrl K elsewhere). */
export function capLabel(s: Shortcut, mac: boolean): string {
  const key = s.key.length === 1 ? s.key.toUpperCase() : s.key;
  if (mac) {
    const mods = [s.ctrl && "⌃", s.alt && "⌥", s.shift && "⇧", (s.meta || s.mod) && "⌘"].filter(Boolean).join("");
    return `${mods}${key}`;
  }
  const mods = [(s.ctrl || s.mod) && "Ctrl", s.alt && "Alt", s.shift && "Shift", s.meta && "Meta"].filter(Boolean);
  return [...mods, key].join(" ");
}

/** Whether a key press lands in something the user types into (then "/" is just a slash). */
function isEditable(target: EventTarget | undefined): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file", "image"].includes(target.type);
  }
  return false;
}

/**
 * What a key press anywhere on the page asks of a closed or open box: `open` it, `select` the
 * query of the open one (a shortcut with a modifier pressed again), or nothing. A plain key
 * is the reader's own while they type in a field, or in the box.
 */
export function shortcutAction(e: KeyboardEvent, shortcuts: Shortcut[], open: boolean): "open" | "select" | undefined {
  const target = e.composedPath()[0];
  for (const s of shortcuts) {
    if (!matches(s, e)) continue;
    if (hasModifier(s)) return open ? "select" : "open";
    if (!open && !isEditable(target) && !e.isComposing) return "open";
  }
  return undefined;
}

/** What a key pressed in the box's input does (`copy`: whether ⌘C / Ctrl+C copies a result). */
export function inputKeyAction(e: KeyboardEvent, copy: boolean): "down" | "up" | "open" | "close" | "copy" | undefined {
  switch (e.key) {
    case "ArrowDown":
      return "down";
    case "ArrowUp":
      return "up";
    case "Enter":
      return "open";
    case "Escape":
      return "close";
    case "c":
    case "C":
      return copy && (e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey ? "copy" : undefined;
    default:
      return undefined;
  }
}
