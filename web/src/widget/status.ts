// The status line (a live region: counts, errors, "Semantic results included") and the
// semantic bar under it (what the semantic leg is doing and why, with Cancel while it
// downloads and "Search by meaning" when it has not loaded; not a live region).

import type { SearchResponse } from "../types.js";
import { el } from "./dom.js";
import type { SearchSource, SemanticDetail, SemanticState } from "./source.js";
import type { Strings } from "./strings.js";

/** What the bar is drawn from: the engine and the answer shown. */
export interface Shown {
  source: SearchSource | undefined;
  response: SearchResponse | undefined;
  query: string | undefined;
}

export class Status {
  /** The semantic leg's state, as the engine last reported it. */
  semantic: SemanticState = "unavailable";
  /** Percent of the semantic download done, while it loads. */
  private progress?: number;
  /** Bytes of the semantic download, once known. */
  private total?: number;

  constructor(
    readonly line: HTMLDivElement,
    private readonly bar: HTMLDivElement,
    private readonly strings: () => Strings,
  ) {}

  /** The status line's text. */
  get text(): string {
    return this.line.textContent ?? "";
  }

  /** Sets the status line (announced only when it changes) and redraws the bar. */
  set(text: string, shown: Shown): void {
    if (this.line.textContent !== text) this.line.textContent = text;
    this.drawBar(shown);
  }

  /** Takes the engine's semantic event; true when the leg just became ready. */
  update(detail: SemanticDetail): boolean {
    const was = this.semantic;
    this.semantic = detail.state;
    this.progress = detail.state === "loading" && detail.total ? Math.min(99, Math.floor(((detail.loaded ?? 0) / detail.total) * 100)) : undefined;
    if (detail.state === "loading" && detail.total) this.total = detail.total;
    return detail.state === "ready" && was !== "ready";
  }

  /** The status line for an answer: its count, and what the semantic leg added. */
  for(response: SearchResponse): string {
    const s = this.strings();
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

  private drawBar({ source, response, query }: Shown): void {
    const s = this.strings();
    const button = (label: string, action: () => void) => {
      const b = el("button", "semantic-action", label);
      b.type = "button";
      b.addEventListener("click", action);
      return b;
    };
    if (this.semantic === "loading" && source?.cancelSemantic) {
      // Whole MB for a model; tenths for a static table's few hundred KB.
      const mb = this.total ? (this.total >= 1e6 ? Math.round(this.total / 1e6) : Math.round(this.total / 1e5) / 10) : undefined;
      const why = s.semanticWhy(response?.semanticReason, mb);
      const text = el("span", undefined, this.progress === undefined ? why : `${why} ${this.progress}%`);
      this.bar.replaceChildren(
        text,
        button(s.semanticCancel, () => source.cancelSemantic?.()),
      );
      this.bar.hidden = false;
    } else if (this.semantic === "idle" && source?.warmup && response && query) {
      this.bar.replaceChildren(
        button(s.semanticOffer, () => {
          source.warmup?.().catch(() => undefined);
        }),
      );
      this.bar.hidden = false;
    } else {
      this.bar.hidden = true;
      this.bar.replaceChildren();
    }
  }
}
