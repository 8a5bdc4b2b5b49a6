// The result area of the dialog: the listbox (results or recent searches), the empty state
// with its suggestions, and the actions on the selected result; the input's combobox
// attributes follow them. What is highlighted is what Enter opens: a replaced list (the
// fused one, a late shard, the next page) highlights its first row unless the reader moved
// the highlight, in which case it stays on the same result.

import type { SearchResponse } from "../types.js";
import { el, type DialogParts } from "./dom.js";
import { hitKey, Listbox } from "./listbox.js";
import type { Strings } from "./strings.js";

/** What the result area asks of its element. */
export interface ResultsHost {
  strings(): Strings;
  /** Whether the engine can quote a section (Copy as Markdown). */
  canQuote(): boolean;
  /** A suggestion ("Did you mean") was chosen. */
  suggest(query: string): void;
  /** "Clear" under the recent searches was pressed. */
  clearRecent(): void;
}

export class Results {
  readonly list: Listbox;
  /** Whether the reader moved the highlight (arrow keys, pointer) in the list shown. */
  moved = false;
  /** The query whose results are listed (undefined: recent searches, or nothing). */
  private query: string | undefined;
  private readonly input: HTMLInputElement;
  private readonly empty: HTMLDivElement;
  private readonly recentActions: HTMLDivElement;
  private readonly actions: HTMLDivElement;

  constructor(parts: DialogParts, uid: number, private readonly host: ResultsHost) {
    this.list = new Listbox(parts.listbox, uid);
    ({ input: this.input, empty: this.empty, recentActions: this.recentActions, actions: this.actions } = parts);
  }

  /** Whether the actions on the selected result are offered. */
  get actionsShown(): boolean {
    return !this.actions.hidden;
  }

  /** Empties the area. */
  clear(): void {
    this.list.clear();
    this.empty.hidden = true;
    this.empty.replaceChildren();
    this.recentActions.hidden = true;
    this.actions.hidden = true;
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
  }

  /** The recent searches, with "Clear" under them (nothing when there are none). */
  showRecent(recent: string[]): void {
    this.clear();
    this.query = undefined;
    if (recent.length === 0) return;
    const s = this.host.strings();
    this.list.showRecent(recent, s.recent);
    const clear = el("button", "clear", s.clearRecent);
    clear.type = "button";
    clear.setAttribute("aria-label", `${s.clearRecent}: ${s.recent}`);
    clear.addEventListener("click", () => this.host.clearRecent());
    this.recentActions.replaceChildren(clear);
    this.recentActions.hidden = false;
    this.open(false);
  }

  /** A page of results for `query`, or the empty state with its suggestions. */
  showAnswer(query: string, response: SearchResponse): void {
    // The same query answered again (the fused list once the semantic leg is ready, a page
    // appended): a selection the reader moved stays on the result it was on.
    const was = this.list.selected;
    if (query !== this.query) this.moved = false;
    const keep = query === this.query && this.moved && was?.kind === "hit" ? hitKey(was.hit) : undefined;
    this.query = query;
    this.clear();
    if (response.results.length === 0) {
      this.showEmpty(query, response.suggestions);
      return;
    }
    this.list.showResults(response, this.host.strings());
    const kept = keep === undefined ? -1 : this.list.indexOfHit(keep);
    this.open(kept < 0);
    if (kept >= 0) this.select(kept, true);
  }

  /** Wires the pointer: a click opens a row (`activate`), hovering highlights it. */
  onPointer(activate: (i: number) => void): void {
    const list = this.list.element;
    list.addEventListener("mousedown", (e) => e.preventDefault()); // keep focus in the input
    list.addEventListener("click", (e) => {
      const i = this.list.indexOf(e.target);
      if (i >= 0) activate(i);
    });
    list.addEventListener("mousemove", (e) => {
      const i = this.list.indexOf(e.target);
      if (i >= 0 && i !== this.list.active) {
        this.moved = true;
        this.select(i, false);
      }
    });
  }

  /** Moves the highlight by `delta` rows, wrapping around (the arrow keys). */
  move(delta: number): void {
    const n = this.list.items.length;
    if (!n) return;
    this.moved = true;
    this.select((this.list.active + delta + n) % n, true);
  }

  /** Highlights row `i` (the combobox's active descendant). */
  select(i: number, scroll: boolean): void {
    const option = this.list.select(i, scroll);
    if (!option) {
      this.input.removeAttribute("aria-activedescendant");
      this.actions.hidden = true;
      return;
    }
    this.input.setAttribute("aria-activedescendant", option.id);
    this.actions.hidden = !(this.list.items[i]?.kind === "hit" && this.host.canQuote());
  }

  private showEmpty(query: string, suggestions: string[]): void {
    const s = this.host.strings();
    this.empty.replaceChildren(el("p", undefined, s.noResults(query)));
    if (suggestions.length) {
      const row = el("div", "suggestions");
      row.append(el("span", undefined, s.didYouMean));
      for (const suggestion of suggestions) {
        const b = el("button", "suggestion", suggestion);
        b.type = "button";
        b.addEventListener("click", () => this.host.suggest(suggestion));
        row.append(b);
      }
      this.empty.append(row);
    }
    this.empty.hidden = false;
  }

  /** Shows the list, highlighting its first row when `selectFirst`. */
  private open(selectFirst: boolean): void {
    if (this.list.items.length === 0) return;
    this.list.element.hidden = false;
    this.input.setAttribute("aria-expanded", "true");
    if (selectFirst) this.select(0, false);
  }
}
