// What a JS caller hands the API, checked where it enters: a wrong type is an
// `INVALID_OPTION` error that names the argument and what it should be. Without this, a
// `null` query or a BigInt limit reached the wasm boundary (or JSON.stringify) and came back
// as `INTERNAL` ("this is a bug"), and the engine was rebuilt for nothing. The engine's own
// options (limit, mode, tags …) are checked by the engine (crates/midashi-wasm/src/options.rs);
// only the JS side's own options and the types the engine cannot see are checked here.

import { MidashiError } from "./errors.js";

/** A value's kind, as a message names it. */
function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "bigint") return `the BigInt ${String(value)}n`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${JSON.stringify(value) ?? String(value)}`;
}

function invalid(what: string, want: string, value: unknown): MidashiError {
  return new MidashiError("INVALID_OPTION", `${what} must be ${want}, not ${kind(value)}`);
}

/** A string argument (a query, a prefix, a section id, a path). */
export function text(value: unknown, what: string): string {
  if (typeof value !== "string") throw invalid(what, "a string", value);
  return value;
}

/**
 * An options object (`undefined` or `null` for none), as a plain copy of its own properties:
 * a getter or a Proxy runs here, once, and what it throws is an `INVALID_OPTION` naming it
 * rather than the caller's exception escaping from inside a query.
 */
export function options<T extends object>(value: unknown, what = "options"): Partial<T> {
  if (value === undefined || value === null) return {};
  try {
    if (typeof value !== "object" || Array.isArray(value)) throw invalid(what, "an object such as { limit: 10 }", value);
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) copy[key] = (value as Record<string, unknown>)[key];
    return copy as Partial<T>;
  } catch (e) {
    if (e instanceof MidashiError) throw e;
    const why = e instanceof Error ? e.message : String(e);
    throw new MidashiError("INVALID_OPTION", `${what} could not be read (${why}); pass a plain object such as { limit: 10 }`, { cause: e });
  }
}

/** An optional boolean option. */
export function flag(value: unknown, name: string): boolean | undefined {
  if (value === undefined || typeof value === "boolean") return value;
  throw invalid(`\`${name}\``, "true or false", value);
}

/** The optional `indexes` option: names of loaded indexes. */
export function names(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw invalid("`indexes`", 'a list of index names such as ["en"]', value);
  }
  return value;
}

/** The optional `queryVector` option. */
export function vector(value: unknown): Float32Array | undefined {
  if (value === undefined || value instanceof Float32Array) return value;
  throw invalid("`queryVector`", "a Float32Array", value);
}

/** An optional whole number (`limit` of suggest). */
export function whole(value: unknown, name: string): number | undefined {
  if (value === undefined || (typeof value === "number" && Number.isInteger(value) && value >= 0)) return value;
  throw invalid(`\`${name}\``, "a whole number", value);
}

/**
 * The engine's options, passed on as they are, except values no engine option takes and
 * that would not survive the way to it (a BigInt cannot be copied as JSON, a function not to
 * a worker): those are refused here by name.
 */
export function engineValues(opts: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(opts)) {
    if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
      throw invalid(`\`${name}\``, "a number, string, boolean, list or null", value);
    }
  }
}
