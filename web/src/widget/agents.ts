// The WebMCP tools a search box offers agents (`search_docs`, `get_section`): one box per
// page registers them (tool names are one per page), from a module fetched only when the
// browser has WebMCP.

import type { SearchSource } from "./source.js";
import { modelContext, type Quoting } from "./webmcp-api.js";

/** The box whose tools are registered. */
let owner: object | undefined;

export class AgentTools {
  private unregister?: () => void;
  /** Bumped by each offer and withdrawal: an offer whose module arrives late is dropped. */
  private ticket = 0;

  /** `source`: the box's engine, loaded on the first tool call. */
  constructor(private readonly source: () => Promise<SearchSource>) {}

  /** Registers the tools, when the browser has WebMCP and no other box did. */
  offer(): void {
    if (owner) return;
    const context = modelContext();
    if (!context) return;
    // Claimed now, so that no other box offers them while the module loads; a withdrawal
    // meanwhile (another ticket) leaves the tools unregistered.
    owner = this;
    const ticket = ++this.ticket;
    const unclaim = (e: unknown) => {
      if (owner === this && this.ticket === ticket) owner = undefined;
      // Another script registered tools of these names (the page keeps its own), or the
      // module could not be fetched.
      console.warn("midashi: WebMCP tools not registered:", e);
    };
    import("./webmcp.js").then(({ registerTools }) => {
      if (this.ticket !== ticket) return;
      try {
        this.unregister = registerTools(context, async () => {
          const source = await this.source();
          if (!source.quote || !source.quoteSection) throw new Error("this search box's engine cannot quote sections (a page opened from file://): serve the site over HTTP");
          return source as Quoting;
        });
      } catch (e) {
        unclaim(e);
      }
    }, unclaim);
  }

  /** Unregisters the tools (or drops an offer still loading). */
  withdraw(): void {
    this.ticket++;
    this.unregister?.();
    this.unregister = undefined;
    if (owner === this) owner = undefined;
  }
}
