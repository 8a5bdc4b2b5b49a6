// <midashi-search>: a search box for a docs site, over a Midashi index.
//
//   <midashi-search index="/search/" lang="ja" placeholder="…" theme="dark"></midashi-search>
//
// A button in the page opens a modal dialog (⌘K / Ctrl+K, or "/" when not typing in a field)
// with an ARIA 1.2 combobox: the input owns a listbox of results grouped by document, moved
// through with the arrow keys (aria-activedescendant), Enter follows the result's deep link,
// Esc closes. Everything from the index (headings, breadcrumbs, previews, suggestions) is
// inserted with textContent / createTextNode, never as HTML.
//
// For AI agents: "Copy as Markdown" puts the selected result's section on the clipboard (the
// button under the list, or ⌘C / Ctrl+C with nothing selected in the input), and where the
// browser has WebMCP the element registers `search_docs` and `get_section` (webmcp.ts;
// `webmcp="off"` turns that off).
//
// The element does not know how an index is loaded: a SourceFactory does (index.ts plugs in
// Midashi.load, file.ts an in-memory engine for pages opened from file://).

import type { SearchHit, SearchOptions, SearchResponse } from "../types.js";
import { appendHighlighted } from "./highlight.js";
import { RecentSearches } from "./recent.js";
import { parseIndexes, type SearchSource, type SemanticDetail, type SemanticState, type SourceFactory, type SourceOptions } from "./source.js";
import { chosenFromUrl, FacetBar, filterOptions } from "./facets.js";
import { hasStrings, loadStrings, stringsFor, type Strings } from "./strings.js";
import { css } from "./styles.js";
import { copyText } from "./copy.js";
import { ariaShortcuts, capLabel, hasModifier, matches, parseShortcuts } from "./keys.js";
import { modelContext, type Quoting } from "./webmcp-api.js";
import { Layer } from "./layer.js";

/** Delay between the last keystroke and the query: enough to skip most intermediate words. */
const DEBOUNCE_MS = 60;
/**
 * Results per page. A page of results is what the first query waits for, and on a sharded
 * index each shown result fetches its document's bundle (~6 KB gzip): five fill the dialog,
 * and "Show more results" fetches the next five only if the reader asks.
 */
const DEFAULT_LIMIT = 5;
const DEFAULT_PREVIEW_LINES = 3;
/**
 * Pause after a page found without ranking every result (a common word on a large site)
 * before its filter chips are counted: counting reads every result, so it waits until the
 * reader stops typing rather than delaying each keystroke's page.
 */
const COUNT_AFTER_MS = 250;
/**
 * Pause in typing after which a query is settled, and only then may start the semantic
 * download (megabytes) that its answer says would help. Keys come 0.1–0.5 s apart while a
 * word is typed (168,000 typists average 0.24 s: Dhakal et al., CHI 2018); the keyword
 * results are on screen meanwhile, so waiting a second costs the visitor nothing.
 */
const SETTLE_MS = 1000;

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

/** What an option of the listbox stands for. */
type Item = { kind: "hit"; hit: SearchHit } | { kind: "recent"; query: string } | { kind: "more" };

/** A result's identity across answers: its section id within its index. */
const hitKey = (hit: SearchHit): string => `${hit.index ?? ""}\u0000${hit.id}`;

let instanceCount = 0;
/** The element whose tools are registered with WebMCP (tool names are one per page). */
let toolsOwner: MidashiSearchElement | undefined;
/** Connected elements, in connection order: the first one answers the keyboard shortcuts. */
const connected: MidashiSearchElement[] = [];

function isMac(): boolean {
  const nav = globalThis.navigator as (Navigator & { userAgentData?: { platform?: string } }) | undefined;
  const platform = nav?.userAgentData?.platform ?? nav?.platform ?? "";
  return /mac|iphone|ipad/i.test(platform);
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

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A small inline SVG icon (built with DOM calls, like everything else). */
function icon(path: string): SVGSVGElement {
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

/** The `<midashi-search>` custom element. */
export class MidashiSearchElement extends HTMLElement {
  /** How indexes are loaded; set by the entry module that defines the element. */
  static sourceFactory: SourceFactory | undefined;

  static get observedAttributes(): string[] {
    return ["lang", "placeholder", "theme", "webmcp", "shortcuts"];
  }

  /** Queries sent to the engine so far (tests and diagnostics count them). */
  searchCount = 0;

  private readonly root: ShadowRoot;
  private readonly uid = ++instanceCount;
  private readonly trigger: HTMLButtonElement;
  private readonly triggerLabel: HTMLSpanElement;
  private readonly triggerKbd: HTMLElement;
  private readonly backdrop: HTMLDivElement;
  private readonly dialog: HTMLDivElement;
  private readonly input: HTMLInputElement;
  private readonly closeButton: HTMLButtonElement;
  private readonly status: HTMLDivElement;
  private readonly listbox: HTMLDivElement;
  private readonly empty: HTMLDivElement;
  private readonly recentActions: HTMLDivElement;
  private readonly footer: HTMLDivElement;
  private readonly actions: HTMLDivElement;
  private readonly copyButton: HTMLButtonElement;
  /** Takes the WebMCP tools back, while they are registered. */
  private unregisterTools?: () => void;
  /** Counts offers and withdrawals of the tools: an offer whose module arrives after a
   * withdrawal registers nothing. */
  private toolsTicket = 0;

  private overrides: Partial<Strings> = {};
  private source?: Promise<SearchSource>;
  private loadedSource?: SearchSource;
  private semantic: SemanticState = "unavailable";
  /** Percent of the semantic module's bytes loaded, while it loads. */
  private semanticProgress?: number;
  private items: Item[] = [];
  private active = -1;
  private readonly semanticBar: HTMLDivElement;
  /** Filter chips per facet of the results. */
  private readonly facetBar: FacetBar;
  /** Bytes of the semantic download, once known. */
  private semanticTotal?: number;
  /** The query whose results the list shows (its selection is kept when they are replaced). */
  private renderedQuery: string | undefined;
  private composing = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private countTimer: ReturnType<typeof setTimeout> | undefined;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the last key changed the query (`SETTLE_MS` counts from it). */
  private lastKeyAt = 0;
  /** Whether the query came from keys (still being typed) rather than a choice (a recent
   * search, a suggestion, `?q=`, `show(query)`), which is settled at once. */
  private typed = false;
  /** Whether the reader moved the highlight (arrow keys, pointer) in the list shown: a
   * replaced list (the fused one, a late shard) then keeps it on the same result; otherwise
   * the first row is highlighted, so what is shown first is what Enter opens. */
  private moved = false;
  /** Where the dialog is shown (the element, or a layer on <body>), and the back gesture. */
  private readonly layer: Layer;
  /** The query whose results are shown (or being fetched): a repeat is not sent again. */
  private lastQuery: string | undefined;
  private seq = 0;
  private lastResponse?: SearchResponse;
  private returnFocus: HTMLElement | null = null;
  private readonly onDocumentKey = (e: KeyboardEvent) => this.handleShortcut(e);
  private readonly onSemantic = (e: Event) => this.handleSemantic((e as CustomEvent<SemanticDetail>).detail);

  constructor() {
    super();
    this.root = this.attachShadow({ mode: "open" });
    const style = el("style");
    style.textContent = css;

    this.trigger = el("button", "trigger");
    this.trigger.type = "button";
    this.trigger.setAttribute("part", "button");
    this.trigger.setAttribute("aria-haspopup", "dialog");
    this.triggerLabel = el("span", "label");
    this.triggerKbd = el("kbd");
    this.triggerKbd.setAttribute("aria-hidden", "true");
    this.trigger.append(icon(SEARCH_ICON), this.triggerLabel, this.triggerKbd);
    this.trigger.addEventListener("click", () => this.show());

    this.backdrop = el("div", "backdrop");
    this.backdrop.hidden = true;
    this.backdrop.setAttribute("part", "backdrop");
    this.dialog = el("div", "dialog");
    this.dialog.setAttribute("role", "dialog");
    this.dialog.setAttribute("aria-modal", "true");
    this.dialog.setAttribute("part", "dialog");

    const bar = el("div", "bar");
    const listId = `midashi-listbox-${this.uid}`;
    this.input = el("input", "input");
    this.input.type = "text";
    this.input.setAttribute("role", "combobox");
    this.input.setAttribute("aria-autocomplete", "list");
    this.input.setAttribute("aria-expanded", "false");
    this.input.setAttribute("aria-controls", listId);
    this.input.autocomplete = "off";
    this.input.spellcheck = false;
    this.input.setAttribute("autocapitalize", "off");
    this.input.setAttribute("enterkeyhint", "go");
    this.closeButton = el("button", "close");
    this.closeButton.type = "button";
    this.closeButton.addEventListener("click", () => this.hide());
    bar.append(icon(SEARCH_ICON), this.input, this.closeButton);

    this.status = el("div", "status");
    this.status.setAttribute("role", "status");
    this.status.setAttribute("aria-live", "polite");
    // What the semantic leg is doing and why, with Cancel while it downloads and "Search by
    // meaning" when it has not loaded (not a live region: the status above announces).
    this.semanticBar = el("div", "semantic-bar");
    this.semanticBar.hidden = true;
    // A chosen chip filters the query shown; the first page is asked again.
    this.facetBar = new FacetBar(() => {
      void this.run(true);
      this.input.focus();
    }, this.strings);

    const body = el("div", "body");
    // The result area scrolls; keyboard users must be able to scroll it too.
    body.tabIndex = 0;
    this.listbox = el("div", "listbox");
    this.listbox.id = listId;
    this.listbox.setAttribute("role", "listbox");
    this.listbox.hidden = true;
    this.empty = el("div", "empty");
    this.empty.hidden = true;
    this.recentActions = el("div", "recent-actions");
    this.recentActions.hidden = true;
    body.append(this.listbox, this.empty, this.recentActions);

    // Actions on the selected result, outside the listbox (whose options hold nothing
    // interactive): "Copy as Markdown".
    this.actions = el("div", "actions");
    this.actions.hidden = true;
    this.copyButton = el("button", "copy-action");
    this.copyButton.type = "button";
    this.copyButton.setAttribute("aria-keyshortcuts", "Meta+C Control+C");
    this.copyButton.addEventListener("mousedown", (e) => e.preventDefault()); // keep focus in the input
    this.copyButton.addEventListener("click", () => this.copyActive());
    this.actions.append(this.copyButton);

    this.footer = el("div", "footer");
    this.footer.setAttribute("aria-hidden", "true");

    this.dialog.append(bar, this.status, this.semanticBar, this.facetBar.element, body, this.actions, this.footer);
    this.backdrop.append(this.dialog);
    this.root.append(style, this.trigger, this.backdrop);
    this.layer = new Layer(this, this.root, this.backdrop, css, () => this.close(false, false));

    this.input.addEventListener("input", (e) => {
      // Keystrokes of an open IME composition are not the query yet.
      if (this.composing || (e as InputEvent).isComposing) return;
      this.typed = true;
      this.lastKeyAt = Date.now();
      this.schedule();
    });
    this.input.addEventListener("compositionstart", () => {
      this.composing = true;
      clearTimeout(this.timer);
    });
    this.input.addEventListener("compositionend", () => {
      this.composing = false;
      this.typed = true;
      this.lastKeyAt = Date.now();
      this.schedule();
    });
    this.input.addEventListener("keydown", (e) => this.handleInputKey(e));
    this.dialog.addEventListener("keydown", (e) => {
      // Esc closes from anywhere in the dialog (the close button, the results, a
      // suggestion), not only from the input; an IME's own Esc is left to it.
      if (e.key === "Escape" && !e.isComposing && !this.composing && e.keyCode !== 229) {
        e.preventDefault();
        this.hide();
        return;
      }
      this.trapFocus(e);
    });
    // A click on the backdrop (not inside the dialog) closes, as a modal usually does.
    this.backdrop.addEventListener("mousedown", (e) => {
      if (e.target === this.backdrop) this.hide();
    });
    this.listbox.addEventListener("mousedown", (e) => e.preventDefault()); // keep focus in the input
    this.listbox.addEventListener("click", (e) => {
      const i = this.optionIndex(e.target);
      if (i >= 0) this.activate(i);
    });
    this.listbox.addEventListener("mousemove", (e) => {
      const i = this.optionIndex(e.target);
      if (i >= 0 && i !== this.active) {
        this.moved = true;
        this.setActive(i, false);
      }
    });
  }

  /** Strings to use instead of the built-in ones (merged over them). */
  get strings(): Strings {
    return { ...stringsFor(this.language()), ...this.overrides };
  }

  set strings(value: Partial<Strings>) {
    this.overrides = { ...value };
    this.applyStrings();
  }

  /** Whether the search dialog is open. */
  get open(): boolean {
    return !this.backdrop.hidden;
  }

  connectedCallback(): void {
    connected.push(this);
    document.addEventListener("keydown", this.onDocumentKey);
    this.applyStrings();
    // `?q=…` in the page URL opens the box with that query (shareable searches).
    // `filter=category:guide` (repeatable) chooses filters with it.
    const q = new URLSearchParams(globalThis.location?.search ?? "").get("q");
    if (q && connected[0] === this) {
      this.facetBar.set(chosenFromUrl(globalThis.location?.search ?? ""));
      queueMicrotask(() => this.show(q));
    }
    this.offerTools();
  }

  disconnectedCallback(): void {
    const i = connected.indexOf(this);
    if (i >= 0) connected.splice(i, 1);
    document.removeEventListener("keydown", this.onDocumentKey);
    clearTimeout(this.countTimer);
    clearTimeout(this.timer);
    this.layer.remove();
    this.withdrawTools();
    // Another box on the page may offer the tools now.
    connected.find((e) => e !== this)?.offerTools();
  }

  attributeChangedCallback(name: string): void {
    if (name === "webmcp") {
      if (this.getAttribute("webmcp") === "off") this.withdrawTools();
      else if (this.isConnected) this.offerTools();
      return;
    }
    this.applyStrings();
  }

  // ---- agents -----------------------------------------------------------------------------

  /** Registers the WebMCP tools, when the browser has WebMCP and no other box did. The tools
   * are a module of their own, fetched only here. */
  private offerTools(): void {
    if (toolsOwner || this.getAttribute("webmcp") === "off") return;
    const context = modelContext();
    if (!context) return;
    // Claimed now, so that no other box offers them while the module loads; a withdrawal
    // meanwhile (another ticket) leaves the tools unregistered.
    toolsOwner = this;
    const ticket = ++this.toolsTicket;
    const unclaim = (e: unknown) => {
      if (toolsOwner === this && this.toolsTicket === ticket) toolsOwner = undefined;
      // Another script registered tools of these names (the page keeps its own), or the
      // module could not be fetched.
      console.warn("midashi: WebMCP tools not registered:", e);
    };
    import("./webmcp.js").then(({ registerTools }) => {
      if (this.toolsTicket !== ticket) return;
      try {
        this.unregisterTools = registerTools(context, async () => {
          const source = await this.ensureSource();
          if (!source.quote || !source.quoteSection) throw new Error("this search box's engine cannot quote sections (a page opened from file://): serve the site over HTTP");
          return source as Quoting;
        });
      } catch (e) {
        unclaim(e);
      }
    }, unclaim);
  }

  private withdrawTools(): void {
    this.toolsTicket++;
    this.unregisterTools?.();
    this.unregisterTools = undefined;
    if (toolsOwner === this) toolsOwner = undefined;
  }

  /** Copies the selected result's section as Markdown, and says so in the status line. */
  private copyActive(): void {
    const item = this.items[this.active];
    const source = this.loadedSource;
    if (item?.kind !== "hit" || !source?.quoteSection) return;
    const hit = item.hit;
    const link = this.hrefFor(hit) ?? hit.url;
    const text = source.quoteSection(hit.id, { link, indexes: hit.index ? [hit.index] : undefined }).then((t) => {
      if (t === null) throw new Error("the section is no longer in the index");
      return t;
    });
    copyText(text).then(
      () => this.setStatus(this.strings.copied(hit.heading || hit.title || hit.path)),
      (e: unknown) => this.setStatus(this.strings.copyFailed(e instanceof Error ? e.message : String(e))),
    );
    this.input.focus();
  }

  /** Opens the dialog, optionally with a query, and starts loading the index. */
  show(query?: string): void {
    if (!this.open) {
      // Focus inside this element (its button) is reported as the element itself.
      const active = document.activeElement;
      this.returnFocus = active instanceof HTMLElement && active !== document.body && active !== this ? active : this.trigger;
      this.layer.place();
      this.backdrop.hidden = false;
      this.layer.opened();
      this.trigger.setAttribute("aria-expanded", "true");
      this.dispatchEvent(new CustomEvent("midashi-open", { bubbles: true, composed: true }));
    }
    if (query !== undefined) {
      this.input.value = query;
      this.typed = false;
    }
    this.input.focus();
    this.input.select();
    // Failures are shown in the status line (ensureSource); nothing else to do here.
    this.ensureSource().catch(() => undefined);
    if (this.input.value.trim() === "") this.renderRecent();
    else this.schedule(0);
  }

  /** Closes the dialog and gives focus back to where it was. */
  hide(): void {
    this.close(false, true);
  }

  /**
   * Closes the dialog; `navigating`: a result is being opened; `undoEntry`: false when the
   * back gesture closed it (the history entry opening pushed is gone already).
   */
  private close(navigating: boolean, undoEntry = true): void {
    if (!this.open) return;
    if (undoEntry) this.layer.closed(navigating);
    clearTimeout(this.timer);
    clearTimeout(this.settleTimer);
    this.backdrop.hidden = true;
    this.trigger.setAttribute("aria-expanded", "false");
    this.input.setAttribute("aria-expanded", "false");
    const back = this.returnFocus ?? this.trigger;
    this.returnFocus = null;
    back.focus();
    this.dispatchEvent(new CustomEvent("midashi-close", { bubbles: true, composed: true }));
  }

  // ---- language and strings -------------------------------------------------------------

  private language(): string {
    const own = this.getAttribute("lang");
    if (own) return own;
    const up = this.parentElement?.closest("[lang]")?.getAttribute("lang");
    return up ?? document.documentElement.lang ?? "en";
  }

  private applyStrings(): void {
    const lang = this.language();
    // A language other than English and Japanese is its own small module: until it is
    // here the button keeps its place with no words (not English words that then change),
    // and everything is written once it is.
    const waiting = !hasStrings(lang);
    this.trigger.classList.toggle("pending", waiting);
    if (waiting) {
      void loadStrings(lang).then(() => {
        if (this.language() === lang) this.applyStrings();
      });
    }
    const s = this.strings;
    this.facetBar.setStrings(s);
    this.dialog.setAttribute("lang", lang);
    this.trigger.setAttribute("lang", lang);
    this.triggerLabel.textContent = s.button;
    // The shortcuts the `shortcuts` attribute gives (default ⌘K / Ctrl+K and "/").
    const keys = parseShortcuts(this.getAttribute("shortcuts"));
    const first = keys[0];
    this.triggerKbd.textContent = first ? capLabel(first, isMac()) : "";
    this.triggerKbd.hidden = !first;
    if (keys.length) this.trigger.setAttribute("aria-keyshortcuts", ariaShortcuts(keys));
    else this.trigger.removeAttribute("aria-keyshortcuts");
    const copyKey = el("kbd", undefined, isMac() ? "⌘C" : "Ctrl C");
    copyKey.setAttribute("aria-hidden", "true");
    this.copyButton.replaceChildren(document.createTextNode(s.copyMarkdown), copyKey);
    this.input.placeholder = this.getAttribute("placeholder") ?? s.placeholder;
    this.input.setAttribute("aria-label", this.getAttribute("placeholder") ?? s.placeholder);
    this.dialog.setAttribute("aria-label", s.dialogLabel);
    this.listbox.setAttribute("aria-label", s.resultsLabel);
    // Shows "Esc", is named "Close search": the key cap is decoration for sighted users.
    const cap = el("span", "cap", "Esc");
    cap.setAttribute("aria-hidden", "true");
    // On a touch screen (no Esc key) the button shows a cross instead.
    const cross = el("span", "cross", "\u00d7");
    cross.setAttribute("aria-hidden", "true");
    this.closeButton.replaceChildren(cap, cross, el("span", "sr-only", s.close));
    this.footer.replaceChildren();
    for (const [keys, what] of [
      ["↑ ↓", s.hintNavigate],
      ["↵", s.hintOpen],
      ["Esc", s.hintClose],
    ] as const) {
      const span = el("span");
      span.append(el("kbd", undefined, keys), document.createTextNode(` ${what}`));
      this.footer.append(span);
    }
  }

  // ---- keyboard ---------------------------------------------------------------------------

  private handleShortcut(e: KeyboardEvent): void {
    // Esc closes wherever the focus went (a page script took it, the layer lost it).
    if (this.open && e.key === "Escape" && !e.defaultPrevented && !e.isComposing) {
      e.preventDefault();
      this.hide();
      return;
    }
    if (connected[0] !== this || e.defaultPrevented) return;
    const target = e.composedPath()[0];
    for (const s of parseShortcuts(this.getAttribute("shortcuts"))) {
      if (!matches(s, e)) continue;
      if (hasModifier(s)) {
        e.preventDefault();
        if (this.open) this.input.select();
        else this.show();
        return;
      }
      // A plain key is the reader's own while they type in a field, or in the box.
      if (!this.open && !isEditable(target) && !e.isComposing) {
        e.preventDefault();
        this.show();
        return;
      }
    }
  }

  private handleInputKey(e: KeyboardEvent): void {
    // Keys that confirm or move inside an IME candidate window are the IME's, not ours.
    if (e.isComposing || this.composing || e.keyCode === 229) return;
    switch (e.key) {
      case "ArrowDown":
        e.preventDefault();
        if (this.items.length) {
          this.moved = true;
          this.setActive((this.active + 1) % this.items.length, true);
        }
        break;
      case "ArrowUp":
        e.preventDefault();
        if (this.items.length) {
          this.moved = true;
          this.setActive((this.active - 1 + this.items.length) % this.items.length, true);
        }
        break;
      case "Enter":
        e.preventDefault();
        if (this.active >= 0) this.activate(this.active);
        break;
      case "Escape":
        e.preventDefault();
        this.hide();
        break;
      case "c":
      case "C":
        // Copy with nothing selected in the input copies the selected result.
        if ((e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey && this.input.selectionStart === this.input.selectionEnd && !this.actions.hidden) {
          e.preventDefault();
          this.copyActive();
        }
        break;
    }
  }

  /** Keeps Tab inside the modal dialog. */
  private trapFocus(e: KeyboardEvent): void {
    if (e.key !== "Tab") return;
    const focusable = Array.from(this.dialog.querySelectorAll<HTMLElement>("input, button, [tabindex='0']")).filter((x) => !x.closest("[hidden]"));
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    const current = this.layer.activeElement;
    if (e.shiftKey && current === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && current === last) {
      e.preventDefault();
      first.focus();
    }
  }

  // ---- loading and searching --------------------------------------------------------------

  private ensureSource(): Promise<SearchSource> {
    if (this.source) return this.source;
    const factory = MidashiSearchElement.sourceFactory;
    const attr = this.getAttribute("index") ?? "/search/";
    const url = new URL(attr, document.baseURI).href;
    if (!factory) return Promise.reject(new Error("no search engine is registered for <midashi-search>"));
    this.setStatus(this.strings.loading);
    const semantic = this.getAttribute("semantic") ?? undefined;
    const options: SourceOptions = semantic && ["auto", "on-demand", "lazy", "idle", "off"].includes(semantic) ? { semantic: semantic as "auto" } : {};
    // Several indexes searched as one (a site per language, docs and API reference apart).
    const indexes = parseIndexes(this.getAttribute("indexes"), document.baseURI);
    if (indexes.length) options.indexes = indexes;
    const p = factory(indexes[0]?.url ?? url, options).then(
      (source) => {
        this.loadedSource = source;
        this.semantic = source.semanticState ?? "unavailable";
        source.addEventListener?.("semantic", this.onSemantic);
        if (this.status.textContent === this.strings.loading) this.setStatus("");
        return source;
      },
      (err: unknown) => {
        // Forget the failed load so that the next open tries again.
        this.source = undefined;
        this.setStatus(this.strings.error(err instanceof Error ? err.message : String(err)));
        throw err;
      },
    );
    this.source = p;
    return p;
  }

  private schedule(delay = DEBOUNCE_MS): void {
    clearTimeout(this.timer);
    clearTimeout(this.countTimer);
    clearTimeout(this.settleTimer);
    this.timer = setTimeout(() => void this.run(false), delay);
  }

  /** Sends the input's query (unless it is the one already shown, or `force`). */
  private async run(force: boolean): Promise<void> {
    if (this.composing) return;
    const query = this.input.value.trim();
    if (!force && query === this.lastQuery) return;
    this.lastQuery = query;
    const seq = ++this.seq;
    if (query === "") {
      this.renderRecent();
      return;
    }
    let source: SearchSource;
    try {
      source = await this.ensureSource();
    } catch {
      this.lastQuery = undefined;
      return;
    }
    if (seq !== this.seq) return;
    this.searchCount += 1;
    globalThis.performance?.mark?.("midashi:search", { detail: query });
    this.dispatchEvent(new CustomEvent<SearchEventDetail>("midashi-search", { detail: { query, count: this.searchCount } }));
    let response: SearchResponse;
    try {
      // A typed query is not settled: its answer says whether the semantic leg would help
      // (`semanticReason`), and `settleLater` starts it once typing pauses.
      response = await source.search(query, { ...this.pageOptions(0), settled: !this.typed });
    } catch (err) {
      if (seq !== this.seq) return;
      this.lastQuery = undefined;
      this.clearList();
      this.setStatus(this.strings.error(err instanceof Error ? err.message : String(err)));
      return;
    }
    // A newer query went out meanwhile, or the engine dropped this one for a newer one.
    if (seq !== this.seq || response.superseded) return;
    this.lastResponse = response;
    this.renderResults(query, response);
    this.dispatchEvent(new CustomEvent<ResultsEventDetail>("midashi-results", { detail: { query, response } }));
    if (response.facets === null && response.total_exact === false) this.countLater(query, seq);
    if (response.semanticReason && !response.semanticPending) this.settleLater(query, seq);
  }

  /**
   * Starts the semantic download for a typed query whose answer says it would help, once no
   * key has come for `SETTLE_MS`: a visitor typing "widget" never fetches it for "wid".
   */
  private settleLater(query: string, seq: number): void {
    clearTimeout(this.settleTimer);
    const wait = Math.max(0, this.lastKeyAt + SETTLE_MS - Date.now());
    this.settleTimer = setTimeout(() => {
      const source = this.loadedSource;
      if (!source?.warmup || seq !== this.seq || !this.open || this.input.value.trim() !== query) return;
      if (this.semantic !== "idle") return;
      source.warmup().catch(() => undefined);
    }, wait);
  }

  /**
   * Counts the filter chips of a page that came without them (`facetsIfRanked`: found
   * without ranking every result) once typing pauses, and shows the exact count with them.
   */
  private countLater(query: string, seq: number): void {
    clearTimeout(this.countTimer);
    this.countTimer = setTimeout(() => {
      const source = this.loadedSource;
      if (!source || seq !== this.seq) return;
      const options: SearchOptions = { ...this.pageOptions(0), facets: true, limit: 1, previewLines: 0, excerpts: false };
      // A keyword page is counted as keyword: no semantic leg for a count.
      if (this.lastResponse?.mode === "keyword") options.mode = "keyword";
      source.search(query, options).then(
        (counted) => {
          const shown = this.lastResponse;
          if (seq !== this.seq || counted.superseded || !shown || counted.facets == null) return;
          this.lastResponse = { ...shown, facets: counted.facets, total: counted.total, total_exact: counted.total_exact };
          this.facetBar.render(counted.facets, counted.total);
          this.setStatus(this.statusFor(this.lastResponse));
        },
        () => undefined,
      );
    }, COUNT_AFTER_MS);
  }

  /** The options of one page of results, starting at `offset`. */
  private pageOptions(offset: number): SearchOptions {
    return {
      limit: this.numberAttr("limit", DEFAULT_LIMIT),
      offset,
      previewLines: this.numberAttr("preview-lines", DEFAULT_PREVIEW_LINES),
      // A versioned site's page for one version sets `version="7.4"`: results from that
      // version only. Without it each section shows once, with the other versions named.
      version: this.getAttribute("version") || null,
      // On a multilingual site, results in the page's language first, the others after.
      preferLang: this.language() || null,
      // The counts the filter chips show, when they come at no cost (`countLater` asks the
      // rest once typing pauses), and the filters chosen (a chosen version wins).
      facetsIfRanked: true,
      ...filterOptions(this.facetBar.value),
    };
  }

  /**
   * Appends the next page of results for the query shown (the "Show more results" option),
   * keeping the reader's place: the first new result becomes the active option.
   */
  private async loadMore(): Promise<void> {
    const shown = this.lastResponse;
    const query = this.lastQuery;
    if (!shown || !query || !this.loadedSource) return;
    const seq = this.seq;
    let next: SearchResponse;
    try {
      next = await this.loadedSource.search(query, this.pageOptions(shown.results.length));
    } catch (err) {
      if (seq !== this.seq) return;
      this.setStatus(this.strings.error(err instanceof Error ? err.message : String(err)));
      return;
    }
    if (seq !== this.seq || next.superseded) return;
    // Rankings are deterministic, so the next page continues this one; the id check only
    // guards against an index that changed in between.
    const seen = new Set(shown.results.map((h) => `${h.index ?? ""}\u0000${h.id}`));
    const added = next.results.filter((h) => !seen.has(`${h.index ?? ""}\u0000${h.id}`));
    // The exact count of either answer, else the larger lower bound.
    const exact = [shown, next].find((r) => r.total_exact !== false);
    const total = exact ? { total: exact.total, total_exact: true } : { total: Math.max(shown.total, next.total), total_exact: false };
    const response: SearchResponse = { ...shown, ...total, results: [...shown.results, ...added] };
    const firstNew = response.results[shown.results.length];
    this.lastResponse = response;
    this.renderResults(query, response);
    // Options are grouped by document, so the first new result may sit in an earlier group.
    const at = this.items.findIndex((it) => it.kind === "hit" && it.hit === firstNew);
    this.moved = true;
    this.setActive(at >= 0 ? at : this.items.length - 1, true);
    this.dispatchEvent(new CustomEvent<ResultsEventDetail>("midashi-results", { detail: { query, response } }));
  }

  private numberAttr(name: string, fallback: number): number {
    const n = Number(this.getAttribute(name));
    return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
  }

  private handleSemantic(detail: SemanticDetail | undefined): void {
    if (!detail) return;
    const was = this.semantic;
    this.semantic = detail.state;
    this.semanticProgress = detail.state === "loading" && detail.total ? Math.min(99, Math.floor(((detail.loaded ?? 0) / detail.total) * 100)) : undefined;
    if (detail.state === "loading" && detail.total) this.semanticTotal = detail.total;
    if (detail.state === "ready" && was !== "ready" && this.open && this.input.value.trim()) {
      // Keyword results were shown while the model loaded: ask again for the fused ones.
      void this.run(true);
    } else if (this.lastResponse && this.lastQuery) {
      // Progress alone changes the status text not at all: nothing more is announced.
      this.setStatus(this.statusFor(this.lastResponse));
    }
  }

  // ---- rendering ---------------------------------------------------------------------------

  private setStatus(text: string): void {
    if (this.status.textContent !== text) this.status.textContent = text;
    this.renderSemanticBar();
  }

  /** The semantic bar for the current state and answer. */
  private renderSemanticBar(): void {
    const source = this.loadedSource;
    const response = this.lastResponse;
    const button = (label: string, action: () => void) => {
      const b = el("button", "semantic-action", label);
      b.type = "button";
      b.addEventListener("click", action);
      return b;
    };
    if (this.semantic === "loading" && source?.cancelSemantic) {
      const mb = this.semanticTotal ? Math.round(this.semanticTotal / 1e6) : undefined;
      const why = this.strings.semanticWhy(response?.semanticReason, mb);
      const text = el("span", undefined, this.semanticProgress === undefined ? why : `${why} ${this.semanticProgress}%`);
      this.semanticBar.replaceChildren(
        text,
        button(this.strings.semanticCancel, () => source.cancelSemantic?.()),
      );
      this.semanticBar.hidden = false;
    } else if (this.semantic === "idle" && source?.warmup && response && this.lastQuery) {
      this.semanticBar.replaceChildren(
        button(this.strings.semanticOffer, () => {
          source.warmup?.().catch(() => undefined);
        }),
      );
      this.semanticBar.hidden = false;
    } else {
      this.semanticBar.hidden = true;
      this.semanticBar.replaceChildren();
    }
  }

  private statusFor(response: SearchResponse): string {
    const s = this.strings;
    const parts = [s.count(response.total, response.total_exact !== false)];
    if (this.semantic === "loading" && response.mode === "keyword") {
      // No percentage here: the status is a live region, and each change is read out. The
      // progress shows in the semantic bar, which is not.
      parts.push(s.semanticLoading);
    }
    // "Semantic results included" only where some are: never beside "0 results".
    else if ((response.mode === "hybrid" || response.mode === "semantic") && response.results.length > 0) parts.push(s.semanticReady);
    return parts.join(" · ");
  }

  private clearList(): void {
    this.items = [];
    this.active = -1;
    this.listbox.replaceChildren();
    this.listbox.hidden = true;
    this.empty.hidden = true;
    this.empty.replaceChildren();
    this.recentActions.hidden = true;
    this.actions.hidden = true;
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
  }

  private renderRecent(): void {
    this.clearList();
    this.facetBar.clear();
    this.renderedQuery = undefined;
    this.lastResponse = undefined;
    if (this.status.textContent !== this.strings.loading) this.setStatus("");
    const recent = this.recent().list();
    if (recent.length === 0) return;
    const group = this.group(this.strings.recent, undefined);
    for (const query of recent) {
      const option = this.option({ kind: "recent", query });
      option.append(el("div", "heading", query));
      group.append(option);
    }
    this.listbox.append(group);
    const clear = el("button", "clear", this.strings.clearRecent);
    clear.type = "button";
    clear.setAttribute("aria-label", `${this.strings.clearRecent}: ${this.strings.recent}`);
    clear.addEventListener("click", () => {
      this.recent().clear();
      this.renderRecent();
      this.input.focus();
    });
    this.recentActions.replaceChildren(clear);
    this.recentActions.hidden = false;
    this.showList(false);
  }

  private renderResults(query: string, response: SearchResponse): void {
    // The same query answered again (the fused list once the semantic leg is ready, a page
    // appended): the reader's selection stays on the result it was on, wherever it moved.
    const was = this.items[this.active];
    if (query !== this.renderedQuery) this.moved = false;
    const keep = query === this.renderedQuery && this.moved && was?.kind === "hit" ? hitKey(was.hit) : undefined;
    this.renderedQuery = query;
    this.clearList();
    // A page whose chips are still to be counted keeps the chips shown until they are.
    if (response.facets !== null || response.total_exact !== false) this.facetBar.render(response.facets, response.total);
    this.setStatus(this.statusFor(response));
    if (response.results.length === 0) {
      this.renderEmpty(query, response.suggestions);
      return;
    }
    // Grouped by document, documents in the order of their best hit (results come best first).
    const groups = new Map<string, SearchHit[]>();
    for (const hit of response.results) {
      const key = hit.index ? `${hit.index}\u0000${hit.path}` : hit.path;
      const list = groups.get(key);
      if (list) list.push(hit);
      else groups.set(key, [hit]);
    }
    for (const hits of groups.values()) {
      const first = hits[0];
      if (!first) continue;
      const group = this.group(first.title || first.path, first.path);
      for (const hit of hits) group.append(this.hitOption(hit));
      this.listbox.append(group);
    }
    const remaining = response.total - response.results.length;
    if (remaining > 0) {
      const more = this.option({ kind: "more" });
      more.classList.add("more-results");
      more.append(el("div", "heading", this.strings.moreResults(remaining)));
      this.listbox.append(more);
    }
    const kept = keep === undefined ? -1 : this.items.findIndex((it) => it.kind === "hit" && hitKey(it.hit) === keep);
    this.showList(kept < 0);
    if (kept >= 0) this.setActive(kept, true);
  }

  private renderEmpty(query: string, suggestions: string[]): void {
    this.empty.replaceChildren(el("p", undefined, this.strings.noResults(query)));
    if (suggestions.length) {
      const row = el("div", "suggestions");
      row.append(el("span", undefined, this.strings.didYouMean));
      for (const suggestion of suggestions) {
        const b = el("button", "suggestion", suggestion);
        b.type = "button";
        b.addEventListener("click", () => {
          this.input.value = suggestion;
          this.typed = false;
          this.input.focus();
          void this.run(false);
        });
        row.append(b);
      }
      this.empty.append(row);
    }
    this.empty.hidden = false;
  }

  /** A labelled group of options. */
  private group(title: string, path: string | undefined): HTMLDivElement {
    const group = el("div", "group");
    group.setAttribute("role", "group");
    const label = el("div", "group-title");
    label.id = `midashi-g${this.uid}-${this.listbox.children.length}`;
    label.setAttribute("role", "presentation");
    label.append(document.createTextNode(title));
    if (path && path !== title) label.append(el("span", "path", path));
    group.setAttribute("aria-labelledby", label.id);
    group.append(label);
    return group;
  }

  private option(item: Item): HTMLDivElement {
    const i = this.items.length;
    this.items.push(item);
    const option = el("div", "option");
    option.id = `midashi-o${this.uid}-${i}`;
    option.setAttribute("role", "option");
    option.setAttribute("aria-selected", "false");
    option.dataset["index"] = String(i);
    return option;
  }

  private hitOption(hit: SearchHit): HTMLDivElement {
    const option = this.option({ kind: "hit", hit });
    option.dataset["url"] = hit.url;
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
      if (others.length) line.append(el("span", "also", ` · ${this.strings.alsoIn} ${others.join(", ")}`));
      option.append(line);
    }
    return option;
  }

  private showList(selectFirst: boolean): void {
    if (this.items.length === 0) return;
    this.listbox.hidden = false;
    this.input.setAttribute("aria-expanded", "true");
    if (selectFirst) this.setActive(0, false);
  }

  private optionIndex(target: EventTarget | null): number {
    const option = target instanceof Element ? target.closest<HTMLElement>("[role=option]") : null;
    const i = Number(option?.dataset["index"] ?? -1);
    return Number.isInteger(i) ? i : -1;
  }

  private setActive(i: number, scroll: boolean): void {
    const options = this.listbox.querySelectorAll<HTMLElement>("[role=option]");
    options[this.active]?.setAttribute("aria-selected", "false");
    this.active = i;
    const option = options[i];
    if (!option) {
      this.input.removeAttribute("aria-activedescendant");
      this.actions.hidden = true;
      return;
    }
    option.setAttribute("aria-selected", "true");
    this.input.setAttribute("aria-activedescendant", option.id);
    this.actions.hidden = !(this.items[i]?.kind === "hit" && this.loadedSource?.quoteSection);
    if (scroll) option.scrollIntoView({ block: "nearest" });
  }

  private activate(i: number): void {
    const item = this.items[i];
    if (!item) return;
    if (item.kind === "recent") {
      this.input.value = item.query;
      this.typed = false;
      void this.run(false);
      return;
    }
    if (item.kind === "more") {
      void this.loadMore();
      return;
    }
    const href = this.hrefFor(item.hit);
    const query = this.input.value.trim();
    if (!href) return;
    const go = this.dispatchEvent(
      new CustomEvent<NavigateDetail>("midashi-navigate", { detail: { hit: item.hit, href, query }, bubbles: true, composed: true, cancelable: true }),
    );
    this.recent().add(query);
    if (!go) return;
    this.close(true);
    globalThis.location.assign(href);
  }

  /**
   * Where a result leads. With a `base` attribute the hit's URL is taken relative to it (a
   * leading "/" dropped), so a site that is not at the root of its host, or is opened from
   * file://, still finds its pages. With `html-links`, a URL naming a folder gets
   * `index.html` and one without an extension gets `.html` (static files, no rewrites).
   * Only http(s) and file URLs are followed: a hostile
   * document path can never turn into a `javascript:` link.
   */
  hrefFor(hit: Pick<SearchHit, "url">): string | undefined {
    const base = this.getAttribute("base");
    let url: URL;
    try {
      if (base !== null) {
        const rel = hit.url.replace(/^\/+/, "");
        // "a:b.html" relative to a folder is a path, not a URL of scheme "a".
        const safe = /^[^/?#]*:/.test(rel) ? `./${rel}` : rel;
        url = new URL(safe, new URL(base, document.baseURI));
      } else {
        url = new URL(hit.url, document.baseURI);
      }
    } catch {
      return undefined;
    }
    if (!["http:", "https:", "file:"].includes(url.protocol)) return undefined;
    if (this.hasAttribute("html-links")) {
      // The site's files are page.html and folder/index.html; no server maps clean URLs to
      // them on file://.
      if (url.pathname.endsWith("/")) url.pathname += "index.html";
      else if (!/\.[A-Za-z0-9]+$/.test(url.pathname.slice(url.pathname.lastIndexOf("/") + 1))) url.pathname += ".html";
    }
    return url.href;
  }

  private recentStore?: RecentSearches;
  private recent(): RecentSearches {
    this.recentStore ??= new RecentSearches(new URL(this.getAttribute("index") ?? "/search/", document.baseURI).href);
    return this.recentStore;
  }

  /** The loaded source, once loaded (for tests and integrations). */
  get searchSource(): SearchSource | undefined {
    return this.loadedSource;
  }
}

/** Defines `<midashi-search>` with `factory` as its engine (once; later calls do nothing). */
export function defineMidashiSearch(factory: SourceFactory, name = "midashi-search"): void {
  MidashiSearchElement.sourceFactory ??= factory;
  if (!customElements.get(name)) customElements.define(name, MidashiSearchElement);
}

declare global {
  interface HTMLElementTagNameMap {
    "midashi-search": MidashiSearchElement;
  }
}
