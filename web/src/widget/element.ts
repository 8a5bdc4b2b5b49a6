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
import { AgentTools } from "./agents.js";
import { buildDialog, el, labelDialog, trapTab, type DialogParts } from "./dom.js";
import type { NavigateDetail, ResultsEventDetail, SearchEventDetail } from "./events.js";
import { Status } from "./status.js";
import { resolveHref } from "./href.js";
import { hitKey } from "./listbox.js";
import { Results } from "./results.js";
import { RecentSearches } from "./recent.js";
import { sourceOptions, type SearchSource, type SemanticDetail, type SourceFactory } from "./source.js";
import { chosenFromUrl, FacetBar } from "./facets.js";
import { appendPage, pageOptions } from "./pages.js";
import { hasStrings, loadStrings, stringsFor, type Strings } from "./strings.js";
import { css } from "./styles.js";
import { copyText, quoteSection } from "./copy.js";
import { inputKeyAction, parseShortcuts, shortcutAction } from "./keys.js";
import { Layer } from "./layer.js";
import { COUNT_AFTER_MS, DEBOUNCE_MS, DEFAULT_LIMIT, DEFAULT_PREVIEW_LINES, SETTLE_MS } from "./typing.js";

export type { NavigateDetail, ResultsEventDetail, SearchEventDetail } from "./events.js";

let instanceCount = 0;
/** Connected elements, in connection order: the first one answers the keyboard shortcuts. */
const connected: MidashiSearchElement[] = [];

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
  private readonly parts: DialogParts;
  private readonly trigger: HTMLButtonElement;
  private readonly backdrop: HTMLDivElement;
  private readonly dialog: HTMLDivElement;
  private readonly input: HTMLInputElement;
  private readonly status: Status;
  private readonly results: Results;
  /** The WebMCP tools, offered by one box per page. */
  private readonly tools = new AgentTools(() => this.ensureSource());

  private overrides: Partial<Strings> = {};
  private source?: Promise<SearchSource>;
  private loadedSource?: SearchSource;
  /** Filter chips per facet of the results. */
  private readonly facetBar: FacetBar;
  private composing = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private countTimer: ReturnType<typeof setTimeout> | undefined;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the last key changed the query (`SETTLE_MS` counts from it). */
  private lastKeyAt = 0;
  /** Whether the query came from keys (still being typed) rather than a choice (a recent
   * search, a suggestion, `?q=`, `show(query)`), which is settled at once. */
  private typed = false;
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
    const parts = (this.parts = buildDialog(this.uid));
    ({ trigger: this.trigger, backdrop: this.backdrop, dialog: this.dialog, input: this.input } = parts);
    this.results = new Results(parts, this.uid, {
      strings: () => this.strings,
      canQuote: () => Boolean(this.loadedSource?.quoteSection),
      suggest: (query) => {
        this.input.value = query;
        this.typed = false;
        this.input.focus();
        void this.run(false);
      },
      clearRecent: () => {
        this.recent().clear();
        this.renderRecent();
        this.input.focus();
      },
    });
    this.status = new Status(parts.status, parts.semanticBar, () => this.strings);
    this.trigger.addEventListener("click", () => this.show());
    parts.closeButton.addEventListener("click", () => this.hide());
    parts.copyButton.addEventListener("click", () => this.copyActive());
    // A chosen chip filters the query shown; the first page is asked again.
    this.facetBar = new FacetBar(() => {
      void this.run(true);
      this.input.focus();
    }, this.strings);

    this.dialog.append(parts.bar, parts.status, parts.semanticBar, this.facetBar.element, parts.body, parts.actions, parts.footer);
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
      trapTab(e, this.dialog, this.layer.activeElement);
    });
    // A click on the backdrop (not inside the dialog) closes, as a modal usually does.
    this.backdrop.addEventListener("mousedown", (e) => {
      if (e.target === this.backdrop) this.hide();
    });
    this.results.onPointer((i) => this.activate(i));
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

  /** Offers the WebMCP tools unless `webmcp="off"`. */
  private offerTools(): void {
    if (this.getAttribute("webmcp") !== "off") this.tools.offer();
  }

  private withdrawTools(): void {
    this.tools.withdraw();
  }

  /** Copies the selected result's section as Markdown, and says so in the status line. */
  private copyActive(): void {
    const item = this.results.list.selected;
    const source = this.loadedSource;
    if (item?.kind !== "hit" || !source?.quoteSection) return;
    const hit = item.hit;
    const text = quoteSection(source, hit, this.hrefFor(hit) ?? hit.url);
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
    // The shortcuts the `shortcuts` attribute gives (default ⌘K / Ctrl+K and "/").
    labelDialog(this.parts, s, { lang, placeholder: this.getAttribute("placeholder"), shortcuts: parseShortcuts(this.getAttribute("shortcuts")) });
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
    const action = shortcutAction(e, parseShortcuts(this.getAttribute("shortcuts")), this.open);
    if (!action) return;
    e.preventDefault();
    if (action === "select") this.input.select();
    else this.show();
  }

  private handleInputKey(e: KeyboardEvent): void {
    // Keys that confirm or move inside an IME candidate window are the IME's, not ours.
    if (e.isComposing || this.composing || e.keyCode === 229) return;
    // Copy with nothing selected in the input copies the selected result.
    const copy = this.input.selectionStart === this.input.selectionEnd && this.results.actionsShown;
    const action = inputKeyAction(e, copy);
    if (!action) return;
    e.preventDefault();
    if (action === "down" || action === "up") this.results.move(action === "down" ? 1 : -1);
    else if (action === "open" && this.results.list.active >= 0) this.activate(this.results.list.active);
    else if (action === "close") this.hide();
    else if (action === "copy") this.copyActive();
  }

  // ---- loading and searching --------------------------------------------------------------

  private ensureSource(): Promise<SearchSource> {
    if (this.source) return this.source;
    const factory = MidashiSearchElement.sourceFactory;
    const attr = this.getAttribute("index") ?? "/search/";
    const url = new URL(attr, document.baseURI).href;
    if (!factory) return Promise.reject(new Error("no search engine is registered for <midashi-search>"));
    this.setStatus(this.strings.loading);
    const options = sourceOptions(this.getAttribute("semantic"), this.getAttribute("indexes"), document.baseURI);
    const indexes = options.indexes ?? [];
    const p = factory(indexes[0]?.url ?? url, options).then(
      (source) => {
        this.loadedSource = source;
        this.status.semantic = source.semanticState ?? "unavailable";
        source.addEventListener?.("semantic", this.onSemantic);
        if (this.status.text === this.strings.loading) this.setStatus("");
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
      this.results.clear();
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
      if (this.status.semantic !== "idle") return;
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
          this.setStatus(this.status.for(this.lastResponse));
        },
        () => undefined,
      );
    }, COUNT_AFTER_MS);
  }

  /** The options of one page of results, starting at `offset`. */
  private pageOptions(offset: number): SearchOptions {
    return pageOptions(offset, {
      limit: this.numberAttr("limit", DEFAULT_LIMIT),
      previewLines: this.numberAttr("preview-lines", DEFAULT_PREVIEW_LINES),
      version: this.getAttribute("version"),
      lang: this.language(),
      filters: this.facetBar.value,
    });
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
    const { response, firstNew } = appendPage(shown, next);
    this.lastResponse = response;
    this.renderResults(query, response);
    // Options are grouped by document, so the first new result may sit in an earlier group.
    const at = firstNew ? this.results.list.indexOfHit(hitKey(firstNew)) : -1;
    this.results.moved = true;
    this.results.select(at >= 0 ? at : this.results.list.items.length - 1, true);
    this.dispatchEvent(new CustomEvent<ResultsEventDetail>("midashi-results", { detail: { query, response } }));
  }

  private numberAttr(name: string, fallback: number): number {
    const n = Number(this.getAttribute(name));
    return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
  }

  private handleSemantic(detail: SemanticDetail | undefined): void {
    if (!detail) return;
    if (this.status.update(detail) && this.open && this.input.value.trim()) {
      // Keyword results were shown while the model loaded: ask again for the fused ones.
      void this.run(true);
    } else if (this.lastResponse && this.lastQuery) {
      // Progress alone changes the status text not at all: nothing more is announced.
      this.setStatus(this.status.for(this.lastResponse));
    }
  }

  // ---- rendering ---------------------------------------------------------------------------

  private setStatus(text: string): void {
    this.status.set(text, { source: this.loadedSource, response: this.lastResponse, query: this.lastQuery });
  }

  private renderRecent(): void {
    this.facetBar.clear();
    this.lastResponse = undefined;
    if (this.status.text !== this.strings.loading) this.setStatus("");
    this.results.showRecent(this.recent().list());
  }

  private renderResults(query: string, response: SearchResponse): void {
    // A page whose chips are still to be counted keeps the chips shown until they are.
    if (response.facets !== null || response.total_exact !== false) this.facetBar.render(response.facets, response.total);
    this.setStatus(this.status.for(response));
    this.results.showAnswer(query, response);
  }

  private activate(i: number): void {
    const item = this.results.list.items[i];
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

  /** Where a result leads (`base` and `html-links` attributes: see `resolveHref`). */
  hrefFor(hit: Pick<SearchHit, "url">): string | undefined {
    return resolveHref(hit.url, this.getAttribute("base"), this.hasAttribute("html-links"));
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
