// The widget's tools for AI agents in the visitor's browser (WebMCP): `search_docs` and
// `get_section`, answering with the same quoted text as `build-index mcp` (midashi-core's
// answer::quote, through the engine). Registered only when the browser has the API
// (`document.modelContext`, or `navigator.modelContext` of earlier drafts and Chrome
// previews), and not with `webmcp="off"` on the element; this module is fetched only then
// (webmcp-api.ts). Registering loads nothing: the index loads on the first call, as it does
// when the search box opens.

import type { QuoteOptions } from "../types.js";
import type { ModelContext, ModelContextTool, Quoting, ToolResult } from "./webmcp-api.js";

export type { ModelContext, ModelContextTool, Quoting, ToolResult } from "./webmcp-api.js";

/** Most results one call returns: an agent's context is not a results page. */
const MAX_LIMIT = 50;

const SEARCH: Omit<ModelContextTool, "execute"> = {
  name: "search_docs",
  description:
    "Search this documentation site by section. Returns the best-matching sections, each as `path > heading path`, its level, lines and size in tokens, a Markdown preview of its first lines and its `id:`. Call get_section with an id to read a whole section.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "Words, an identifier, a phrase or a question. \"exact words\" must appear in that order; -word leaves out sections holding it." },
      limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: "Results to return (default 10)." },
      filters: {
        type: "object",
        properties: {
          path: { type: "string", description: "Only pages whose path starts with this, e.g. \"guide/\"." },
          version: { type: "string", description: "Only pages of this version of the docs, on a versioned site." },
          depth: { type: "array", items: { type: "integer", minimum: 0, maximum: 6 }, description: "Only sections of these depths: 0 = whole page, 1–6 = heading level." },
        },
        additionalProperties: false,
      },
      tokenBudget: { type: "integer", minimum: 1, description: "Stop adding results before their tokens would pass this many." },
    },
    required: ["query"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
};

const GET_SECTION: Omit<ModelContextTool, "execute"> = {
  name: "get_section",
  description: "Read one whole section of this documentation site, by the `id:` of a search_docs result: its heading path, lines, page URL and Markdown.",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string", description: "The 16-hex-digit id of a search_docs result." } },
    required: ["id"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
};

function text(t: string, isError = false): ToolResult {
  return isError ? { content: [{ type: "text", text: t }], isError } : { content: [{ type: "text", text: t }] };
}

/** An argument the agent got wrong: what it should be. */
class BadInput extends Error {}

function optional<T>(value: unknown, check: (v: unknown) => v is T, what: string): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw new BadInput(what);
  return value;
}

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);
const isText = (v: unknown): v is string => typeof v === "string";

/** The search options of a `search_docs` call (the browser may not have checked them). */
function searchOptions(input: Record<string, unknown>): QuoteOptions {
  const limit = optional(input["limit"], isInt, `limit must be a whole number from 1 to ${MAX_LIMIT}`);
  if (limit !== undefined && (limit < 1 || limit > MAX_LIMIT)) throw new BadInput(`limit must be a whole number from 1 to ${MAX_LIMIT}`);
  const filters = optional(input["filters"], (v): v is Record<string, unknown> => typeof v === "object" && !Array.isArray(v), "filters must be an object such as { \"path\": \"guide/\" }") ?? {};
  const depth = optional(filters["depth"], (v): v is number[] => Array.isArray(v) && v.every((d) => isInt(d) && d >= 0 && d <= 6), "filters.depth must be a list of depths 0–6");
  return {
    limit,
    path: optional(filters["path"], isText, "filters.path must be a string"),
    version: optional(filters["version"], isText, "filters.version must be a string"),
    depth,
    tokenBudget: optional(input["tokenBudget"], (v): v is number => isInt(v) && v >= 1, "tokenBudget must be a whole number of 1 or more"),
    // An agent's call is not a keystroke: it is never replaced by a newer one.
    supersede: false,
  };
}

/**
 * Registers the tools with `context`, answering from `source()` (the element's loaded
 * index). Returns what unregisters them.
 */
export function registerTools(context: ModelContext, source: () => Promise<Quoting>): () => void {
  const run = async (f: () => Promise<ToolResult>): Promise<ToolResult> => {
    try {
      return await f();
    } catch (e) {
      return text(e instanceof Error ? e.message : String(e), true);
    }
  };
  const tools: ModelContextTool[] = [
    {
      ...SEARCH,
      execute: (input) =>
        run(async () => {
          const query = input?.["query"];
          if (typeof query !== "string" || query.trim() === "") throw new BadInput("query must be a non-empty string");
          const options = searchOptions(input);
          return text((await (await source()).quote(query, options)).text);
        }),
    },
    {
      ...GET_SECTION,
      execute: (input) =>
        run(async () => {
          const id = input?.["id"];
          if (typeof id !== "string" || id.trim() === "") throw new BadInput("id must be the 16-hex-digit id of a search_docs result");
          const quoted = await (await source()).quoteSection(id.trim());
          return quoted === null ? text(`no section ${JSON.stringify(id)} on this site: pass the id of a search_docs result's \`id:\` line`, true) : text(quoted);
        }),
    },
  ];
  const controller = new AbortController();
  const handles = tools.map((tool) => context.registerTool(tool, { signal: controller.signal }));
  return () => {
    controller.abort();
    handles.forEach((h, i) => {
      // Drafts differed on how a tool is taken back: a signal, a handle, or by name.
      const handle = h as { unregister?: () => void } | undefined;
      try {
        if (typeof handle?.unregister === "function") handle.unregister();
        else context.unregisterTool?.(tools[i]?.name ?? "");
      } catch {
        // Already gone with the signal.
      }
    });
  };
}
