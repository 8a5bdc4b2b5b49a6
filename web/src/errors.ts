// Every failure the package reports is a MidashiError with a stable `code` and a message that
// says what to do. Engine errors keep the engine's code (midashi_core::Error::code()); the
// rest are the JS side's: fetching, the wasm module itself, the worker.

/** Stable error codes. */
export type ErrorCode =
  // Fetching and reading files.
  | "NETWORK"
  | "NOT_FOUND"
  | "IO"
  // The engine's (midashi_core::Error::code()).
  | "NOT_AN_INDEX"
  | "WRONG_FILE_KIND"
  | "FORMAT_VERSION"
  | "TRUNCATED"
  | "CORRUPTED"
  | "NOT_A_FILE"
  | "SIZE_MISMATCH"
  | "MALFORMED"
  | "QUERY_TOO_LONG"
  | "INVALID_OPTION"
  | "SYNONYMS"
  | "SEMANTIC_UNAVAILABLE"
  | "NEEDS_FILES"
  | "NEEDS_FULL_ENGINE"
  // The JS side's.
  | "VERSION_MISMATCH"
  | "UNKNOWN_INDEX"
  | "CLOSED"
  | "INTERNAL";

const CODES = new Set<string>([
  "NETWORK", "NOT_FOUND", "IO", "NOT_AN_INDEX", "WRONG_FILE_KIND", "FORMAT_VERSION", "TRUNCATED",
  "CORRUPTED", "NOT_A_FILE", "SIZE_MISMATCH", "MALFORMED", "QUERY_TOO_LONG", "INVALID_OPTION", "SYNONYMS",
  "SEMANTIC_UNAVAILABLE", "NEEDS_FILES", "NEEDS_FULL_ENGINE", "VERSION_MISMATCH", "UNKNOWN_INDEX", "CLOSED", "INTERNAL",
]);

/** An error of the midashi package. `code` is for programs, `message` for people. */
export class MidashiError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MidashiError";
    this.code = code;
  }

  /** What crosses a worker boundary (Error objects lose their own properties there). */
  toJSON(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

/** Whether `e` carries one of our codes (an engine error object, or a revived one). */
function codeOf(e: unknown): ErrorCode | undefined {
  if (typeof e === "object" && e !== null && "code" in e) {
    const code = (e as { code: unknown }).code;
    if (typeof code === "string" && CODES.has(code)) return code as ErrorCode;
  }
  return undefined;
}

/**
 * Turns anything thrown into a MidashiError: engine errors keep their code; anything else
 * is INTERNAL (a bug: the message asks for a report).
 */
export function toMidashiError(e: unknown): MidashiError {
  if (e instanceof MidashiError) return e;
  const code = codeOf(e);
  const message = e instanceof Error ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e);
  if (code) return new MidashiError(code, message, { cause: e });
  return new MidashiError(
    "INTERNAL",
    `internal error in midashi: ${message}; this is a bug, please report it with the query and index that caused it`,
    { cause: e },
  );
}

/** Rebuilds a MidashiError from its JSON form (after a worker boundary). */
export function reviveError(data: unknown): MidashiError {
  const code = codeOf(data) ?? "INTERNAL";
  const message = typeof data === "object" && data !== null && "message" in data ? String((data as { message: unknown }).message) : String(data);
  return new MidashiError(code, message);
}
