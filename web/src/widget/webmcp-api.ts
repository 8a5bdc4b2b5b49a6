// What the widget needs to know about WebMCP before it registers anything: the API's shape
// and whether this browser has it. The tools themselves (webmcp.ts) are a module of their
// own, fetched only by a browser that has the API — hardly any visitor's does yet, and they
// were ~1.5 KB gzip of every first query.

import type { QuoteOptions, QuotedSearch } from "../types.js";

/** A tool as WebMCP takes it. */
export interface ModelContextTool {
  name: string;
  description: string;
  inputSchema: object;
  annotations?: { readOnlyHint?: boolean };
  execute(input: Record<string, unknown>, client?: unknown): Promise<ToolResult>;
}

/** What a tool answers (MCP's CallToolResult). */
export interface ToolResult {
  content: { type: "text"; text: string }[];
  isError?: boolean;
}

/** The part of WebMCP's `ModelContext` used here. */
export interface ModelContext {
  registerTool(tool: ModelContextTool, options?: { signal?: AbortSignal }): unknown;
  unregisterTool?(name: string): void;
}

/** What the tools need of the loaded index (a Midashi instance has it). */
export interface Quoting {
  quote(query: string, options: QuoteOptions): Promise<QuotedSearch>;
  quoteSection(target: string): Promise<string | null>;
}

/** The page's WebMCP, when the browser has it. */
export function modelContext(): ModelContext | undefined {
  const g = globalThis as { document?: { modelContext?: unknown }; navigator?: { modelContext?: unknown } };
  for (const mc of [g.document?.modelContext, g.navigator?.modelContext]) {
    if (mc && typeof (mc as ModelContext).registerTool === "function") return mc as ModelContext;
  }
  return undefined;
}
