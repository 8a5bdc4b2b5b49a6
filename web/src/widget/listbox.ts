// The results list: an ARIA listbox of options grouped by document, and which one is
// selected. The element decides what to show; this keeps the options, their ids and the
// item each stands for.

import type { SearchHit, SearchResponse } from "../types.js";
import { el } from "./dom.js";
import { appendHit } from "./preview.js";
import type { Strings } from "./strings.js";

/** What an option of the listbox stands for. */
export type Item = { kind: "hit"; hit: SearchHit } | { kind: "recent"; query: string } | { kind: "more" };

/** A result's identity across answers: its section id within its index. */
export const hitKey = (hit: SearchHit): string => `${hit.index ?? ""}\u0000${hit.id}`;

export class Listbox {
  /** What each option stands for, in order. */
  items: Item[] = [];
  /** The selected option's index, -1 for none. */
  active = -1;

  constructor(
    readonly element: HTMLDivElement,
    private readonly uid: number,
  ) {}

  /** The selected item. */
  get selected(): Item | undefined {
    return this.items[this.active];
  }

  /** Empties the list (hidden until something is shown). */
  clear(): void {
    this.items = [];
    this.active = -1;
    this.element.replaceChildren();
    this.element.hidden = true;
  }

  /** Recent searches, under their title. */
  showRecent(queries: string[], title: string): void {
    const group = this.group(title, undefined);
    for (const query of queries) {
      const option = this.option({ kind: "recent", query });
      option.append(el("div", "heading", query));
      group.append(option);
    }
    this.element.append(group);
  }

  /** A page of results grouped by document (documents in the order of their best hit), and
   * "more results" when the page is not all of them. */
  showResults(response: SearchResponse, strings: Strings): void {
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
      for (const hit of hits) {
        const option = this.option({ kind: "hit", hit });
        option.dataset["url"] = hit.url;
        appendHit(option, hit, strings);
        group.append(option);
      }
      this.element.append(group);
    }
    const remaining = response.total - response.results.length;
    if (remaining > 0) {
      const more = this.option({ kind: "more" });
      more.classList.add("more-results");
      more.append(el("div", "heading", strings.moreResults(remaining)));
      this.element.append(more);
    }
  }

  /** The index of the hit whose key is `key`, -1 if it is not listed. */
  indexOfHit(key: string): number {
    return this.items.findIndex((it) => it.kind === "hit" && hitKey(it.hit) === key);
  }

  /** The index of the option an event's target is in, -1 outside any. */
  indexOf(target: EventTarget | null): number {
    const option = target instanceof Element ? target.closest<HTMLElement>("[role=option]") : null;
    const i = Number(option?.dataset["index"] ?? -1);
    return Number.isInteger(i) ? i : -1;
  }

  /** Selects option `i` and returns it (none: nothing selected). */
  select(i: number, scroll: boolean): HTMLElement | undefined {
    const options = this.element.querySelectorAll<HTMLElement>("[role=option]");
    options[this.active]?.setAttribute("aria-selected", "false");
    this.active = i;
    const option = options[i];
    if (!option) return undefined;
    option.setAttribute("aria-selected", "true");
    if (scroll) option.scrollIntoView({ block: "nearest" });
    return option;
  }

  /** A labelled group of options. */
  private group(title: string, path: string | undefined): HTMLDivElement {
    const group = el("div", "group");
    group.setAttribute("role", "group");
    const label = el("div", "group-title");
    label.id = `midashi-g${this.uid}-${this.element.children.length}`;
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
}
