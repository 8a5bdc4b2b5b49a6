// The dialog's DOM: small builders (everything from the index goes in as text, never as
// HTML) and the parts of the dialog, made once per element. The element wires their events.

import { ariaShortcuts, capLabel, type Shortcut } from "./keys.js";
import type { Strings } from "./strings.js";

/** An element with a class and text content. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A small inline SVG icon (built with DOM calls, like everything else). */
export function icon(path: string): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const p = document.createElementNS(ns, "path");
  p.setAttribute("d", path);
  p.setAttribute("fill", "none");
  p.setAttribute("stroke", "currentColor");
  p.setAttribute("stroke-width", "2");
  p.setAttribute("stroke-linecap", "round");
  svg.appendChild(p);
  return svg;
}
const SEARCH_ICON = "M11 4a7 7 0 1 0 0 14a7 7 0 1 0 0-14M21 21l-5-5";

export function isMac(): boolean {
  const nav = globalThis.navigator as (Navigator & { userAgentData?: { platform?: string } }) | undefined;
  const platform = nav?.userAgentData?.platform ?? nav?.platform ?? "";
  return /mac|iphone|ipad/i.test(platform);
}

/** The parts of the search button and its dialog. */
export interface DialogParts {
  trigger: HTMLButtonElement;
  triggerLabel: HTMLSpanElement;
  triggerKbd: HTMLElement;
  backdrop: HTMLDivElement;
  dialog: HTMLDivElement;
  bar: HTMLDivElement;
  input: HTMLInputElement;
  closeButton: HTMLButtonElement;
  status: HTMLDivElement;
  semanticBar: HTMLDivElement;
  body: HTMLDivElement;
  listbox: HTMLDivElement;
  empty: HTMLDivElement;
  recentActions: HTMLDivElement;
  actions: HTMLDivElement;
  copyButton: HTMLButtonElement;
  footer: HTMLDivElement;
}

/** The button and the dialog of element number `uid` (ids must be unique on the page). */
export function buildDialog(uid: number): DialogParts {
  const trigger = el("button", "trigger");
  trigger.type = "button";
  trigger.setAttribute("part", "button");
  trigger.setAttribute("aria-haspopup", "dialog");
  const triggerLabel = el("span", "label");
  const triggerKbd = el("kbd");
  triggerKbd.setAttribute("aria-hidden", "true");
  trigger.append(icon(SEARCH_ICON), triggerLabel, triggerKbd);

  const backdrop = el("div", "backdrop");
  backdrop.hidden = true;
  backdrop.setAttribute("part", "backdrop");
  const dialog = el("div", "dialog");
  dialog.setAttribute("role", "dialog");
  dialog.setAttribute("aria-modal", "true");
  dialog.setAttribute("part", "dialog");

  const bar = el("div", "bar");
  const listId = `midashi-listbox-${uid}`;
  const input = el("input", "input");
  input.type = "text";
  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("aria-controls", listId);
  input.autocomplete = "off";
  input.spellcheck = false;
  input.setAttribute("autocapitalize", "off");
  input.setAttribute("enterkeyhint", "go");
  const closeButton = el("button", "close");
  closeButton.type = "button";
  bar.append(icon(SEARCH_ICON), input, closeButton);

  const status = el("div", "status");
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  // What the semantic leg is doing and why, with Cancel while it downloads and "Search by
  // meaning" when it has not loaded (not a live region: the status above announces).
  const semanticBar = el("div", "semantic-bar");
  semanticBar.hidden = true;

  const body = el("div", "body");
  // The result area scrolls; keyboard users must be able to scroll it too.
  body.tabIndex = 0;
  const listbox = el("div", "listbox");
  listbox.id = listId;
  listbox.setAttribute("role", "listbox");
  listbox.hidden = true;
  const empty = el("div", "empty");
  empty.hidden = true;
  const recentActions = el("div", "recent-actions");
  recentActions.hidden = true;
  body.append(listbox, empty, recentActions);

  // Actions on the selected result, outside the listbox (whose options hold nothing
  // interactive): "Copy as Markdown".
  const actions = el("div", "actions");
  actions.hidden = true;
  const copyButton = el("button", "copy-action");
  copyButton.type = "button";
  copyButton.setAttribute("aria-keyshortcuts", "Meta+C Control+C");
  copyButton.addEventListener("mousedown", (e) => e.preventDefault()); // keep focus in the input
  actions.append(copyButton);

  const footer = el("div", "footer");
  footer.setAttribute("aria-hidden", "true");
  return { trigger, triggerLabel, triggerKbd, backdrop, dialog, bar, input, closeButton, status, semanticBar, body, listbox, empty, recentActions, actions, copyButton, footer };
}

/** What the dialog's words depend on besides the strings. */
export interface LabelOptions {
  lang: string;
  /** The `placeholder` attribute. */
  placeholder: string | null;
  /** The shortcuts that open the box (the `shortcuts` attribute, parsed). */
  shortcuts: Shortcut[];
}

/** Writes the button's and the dialog's words in `s`. */
export function labelDialog(parts: DialogParts, s: Strings, { lang, placeholder, shortcuts }: LabelOptions): void {
  parts.dialog.setAttribute("lang", lang);
  parts.trigger.setAttribute("lang", lang);
  parts.triggerLabel.textContent = s.button;
  const first = shortcuts[0];
  parts.triggerKbd.textContent = first ? capLabel(first, isMac()) : "";
  parts.triggerKbd.hidden = !first;
  if (shortcuts.length) parts.trigger.setAttribute("aria-keyshortcuts", ariaShortcuts(shortcuts));
  else parts.trigger.removeAttribute("aria-keyshortcuts");
  const copyKey = el("kbd", undefined, isMac() ? "⌘C" : "Ctrl C");
  copyKey.setAttribute("aria-hidden", "true");
  parts.copyButton.replaceChildren(document.createTextNode(s.copyMarkdown), copyKey);
  parts.input.placeholder = placeholder ?? s.placeholder;
  parts.input.setAttribute("aria-label", placeholder ?? s.placeholder);
  parts.dialog.setAttribute("aria-label", s.dialogLabel);
  parts.listbox.setAttribute("aria-label", s.resultsLabel);
  // Shows "Esc", is named "Close search": the key cap is decoration for sighted users.
  const cap = el("span", "cap", "Esc");
  cap.setAttribute("aria-hidden", "true");
  // On a touch screen (no Esc key) the button shows a cross instead.
  const cross = el("span", "cross", "\u00d7");
  cross.setAttribute("aria-hidden", "true");
  parts.closeButton.replaceChildren(cap, cross, el("span", "sr-only", s.close));
  parts.footer.replaceChildren();
  for (const [keys, what] of [
    ["↑ ↓", s.hintNavigate],
    ["↵", s.hintOpen],
    ["Esc", s.hintClose],
  ] as const) {
    const span = el("span");
    span.append(el("kbd", undefined, keys), document.createTextNode(` ${what}`));
    parts.footer.append(span);
  }
}

/** Keeps Tab inside the modal dialog (`current`: the focused element, through shadow roots). */
export function trapTab(e: KeyboardEvent, dialog: HTMLElement, current: Element | null): void {
  if (e.key !== "Tab") return;
  const focusable = Array.from(dialog.querySelectorAll<HTMLElement>("input, button, [tabindex='0']")).filter((x) => !x.closest("[hidden]"));
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (!first || !last) return;
  if (e.shiftKey && current === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && current === last) {
    e.preventDefault();
    first.focus();
  }
}
