// The filters the widget offers: one row of chips per facet the results have (the part of the
// site, version, language, tags), each with its count for the current query, as the engine
// counted them (`facets: true`). A chosen chip becomes the search option of the same name; the
// choice is read from the page's deep link (`?q=cache&filter=category:guide`) too.

import type { Facets, SearchOptions } from "../types.js";
import type { Strings } from "./strings.js";

/** The facets, in the order their rows are shown. */
export const FACETS = ["category", "version", "lang", "tags"] as const;
export type FacetKind = (typeof FACETS)[number];
/** One chosen value per facet. */
export type Chosen = Partial<Record<FacetKind, string>>;

/** Values shown per facet: the most frequent. */
const MAX_CHIPS = 8;

/** The filters of a deep link: every `filter=kind:value` parameter of a known kind. */
export function chosenFromUrl(search: string): Chosen {
  const out: Chosen = {};
  for (const f of new URLSearchParams(search).getAll("filter")) {
    const at = f.indexOf(":");
    const kind = f.slice(0, at) as FacetKind;
    const value = f.slice(at + 1);
    if (at > 0 && value && (FACETS as readonly string[]).includes(kind)) out[kind] = value;
  }
  return out;
}

/** The search options that apply `chosen`. */
export function filterOptions(chosen: Chosen): Partial<SearchOptions> {
  const o: Partial<SearchOptions> = {};
  if (chosen.category) o.category = chosen.category;
  if (chosen.version) o.version = chosen.version;
  if (chosen.lang) o.lang = chosen.lang;
  if (chosen.tags) o.tags = [chosen.tags];
  return o;
}

/** The chip rows. Buttons with `aria-pressed`, outside the listbox (whose options hold nothing interactive). */
export class FacetBar {
  readonly element: HTMLDivElement;
  private chosen: Chosen = {};

  constructor(
    private readonly onChange: (chosen: Chosen) => void,
    private strings: Strings,
  ) {
    this.element = document.createElement("div");
    this.element.className = "facets";
    this.element.setAttribute("role", "group");
    this.element.hidden = true;
    this.element.addEventListener("mousedown", (e) => {
      // Keep the focus in the input while a chip is clicked.
      if ((e.target as Element).closest("button")) e.preventDefault();
    });
  }

  get value(): Chosen {
    return { ...this.chosen };
  }

  /** Chooses `chosen` (a deep link's) without searching. */
  set(chosen: Chosen): void {
    this.chosen = { ...chosen };
  }

  setStrings(strings: Strings): void {
    this.strings = strings;
    this.element.setAttribute("aria-label", strings.filters);
  }

  /**
   * Shows the facets of an answer. A facet is offered when it can narrow the list (two values
   * or more, or a value that does not cover every result) or is chosen; a chosen value stays,
   * pressed, whatever the counts.
   */
  render(facets: Facets | null | undefined, total: number): void {
    this.element.replaceChildren();
    this.element.setAttribute("aria-label", this.strings.filters);
    for (const kind of FACETS) {
      const values = (facets?.[kind] ?? []).slice(0, MAX_CHIPS);
      const chosen = this.chosen[kind];
      const narrows = values.length > 1 || (values.length === 1 && values[0]!.count < total);
      if (!narrows && !chosen) continue;
      const row = document.createElement("div");
      row.className = "facet";
      const label = document.createElement("span");
      label.className = "facet-name";
      label.textContent = this.strings.facet[kind];
      row.append(label);
      const shown = chosen && !values.some((v) => v.value === chosen) ? [{ value: chosen, count: total }, ...values] : values;
      for (const { value, count } of shown) {
        const chip = document.createElement("button");
        chip.type = "button";
        chip.className = "chip";
        chip.dataset["facet"] = kind;
        chip.dataset["value"] = value;
        chip.setAttribute("aria-pressed", String(chosen === value));
        chip.append(document.createTextNode(value));
        const n = document.createElement("span");
        n.className = "count";
        n.textContent = String(count);
        chip.append(n);
        chip.addEventListener("click", () => {
          if (this.chosen[kind] === value) delete this.chosen[kind];
          else this.chosen[kind] = value;
          this.onChange(this.value);
        });
        row.append(chip);
      }
      this.element.append(row);
    }
    this.element.hidden = this.element.childElementCount === 0;
  }

  /** Hides the rows (no query). */
  clear(): void {
    this.element.replaceChildren();
    this.element.hidden = true;
  }
}
