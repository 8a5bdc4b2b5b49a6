// Reading an index's files: over HTTP(S) with fetch (browsers, workers, Node), or from disk
// in Node (a path or a file: URL). The entry file is read first and names the rest; only the
// files keyword search needs are read at load (see host.ts). Every failure becomes a
// MidashiError whose message names the file and says what to do.

import { MidashiError } from "./errors.js";

/** The name of the one non-hashed file of an index folder (midashi-core ENTRY_FILE_NAME). */
export const ENTRY_FILE_NAME = "midashi-entry.bin";

interface NodeProcess {
  versions?: { node?: string };
  cwd?: () => string;
}

/** Whether we run in Node (where the disk can be read and `Worker` is not the web's). */
export function isNode(): boolean {
  const p = (globalThis as { process?: NodeProcess }).process;
  return typeof p?.versions?.node === "string";
}

/** A URL scheme of two letters or more (so a Windows drive `C:` is not taken for one). */
const SCHEME = /^[a-zA-Z][a-zA-Z\d+.-]+:/;

/** Whether `location` names something fetch reads (as opposed to a Node path). */
function isFetchable(location: string): boolean {
  return SCHEME.test(location) && !location.startsWith("file:");
}

/** Joins a folder location and a file name (URLs and POSIX/Windows paths alike). */
export function join(folder: string, name: string): string {
  if (folder.endsWith("/") || folder.endsWith("\\")) return folder + name;
  return `${folder}/${name}`;
}

/**
 * Makes a location absolute where it is read from another context: a relative URL is resolved
 * against the page (a worker would resolve it against its own script). Node paths stay as
 * they are (resolved against the working directory when read).
 */
export function absolute(location: string | URL, base?: string): string {
  const s = String(location);
  if (SCHEME.test(s)) return s;
  if (isNode()) return s;
  const page = base ?? (globalThis as { location?: { href: string } }).location?.href;
  return page ? new URL(s, page).href : s;
}

type ReadFile = (path: string) => Promise<Uint8Array>;
let readFileImpl: ReadFile | undefined;
let fileUrlToPath: ((u: string) => string) | undefined;

/** node:fs, loaded only in Node (a variable specifier keeps bundlers from resolving it). */
async function nodeFs(): Promise<{ readFile: ReadFile; toPath: (u: string) => string }> {
  if (!readFileImpl || !fileUrlToPath) {
    const fsName = "node:fs/promises";
    const urlName = "node:url";
    const fs = (await import(/* @vite-ignore */ /* webpackIgnore: true */ fsName)) as { readFile: ReadFile };
    const url = (await import(/* @vite-ignore */ /* webpackIgnore: true */ urlName)) as { fileURLToPath: (u: string) => string };
    readFileImpl = fs.readFile;
    fileUrlToPath = url.fileURLToPath;
  }
  return { readFile: readFileImpl, toPath: fileUrlToPath };
}

/** What a file is for, in messages ("the index entry file", "the wasm module"). */
export interface ReadContext {
  /** The index folder or asset, for messages. */
  what: string;
  /** Advice when the file does not exist. */
  missing: string;
  /**
   * Milliseconds the server may go without sending anything (no answer, or a body that
   * stops) before the read fails with NETWORK; 0 waits for ever. Default
   * {@link DEFAULT_TIMEOUT_MS}.
   */
  timeoutMs?: number;
}

/**
 * How long a fetch may stall: without it a server that accepts and never answers held
 * `Midashi.load` for the platform's own limit (301 s in Node). A stall, not a total: a
 * 25 MB model on a slow link keeps arriving and is not cut off.
 */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Told the bytes read so far and, when known, the file's size. */
export type OnProgress = (loaded: number, total: number | undefined) => void;

/** Reads a file's bytes from a URL or (in Node) a path; `onProgress` hears how far it got. */
export async function readBytes(location: string, ctx: ReadContext, onProgress?: OnProgress): Promise<Uint8Array> {
  if (isFetchable(location)) return fetchBytes(location, ctx, onProgress);
  if (!isNode()) {
    throw new MidashiError("NETWORK", `cannot read ${location}: not an http(s) URL; ${ctx.missing}`);
  }
  const { readFile, toPath } = await nodeFs();
  const path = location.startsWith("file:") ? toPath(location) : location;
  try {
    const buf = await readFile(path);
    onProgress?.(buf.length, buf.length);
    // A Node Buffer is a Uint8Array view into a shared pool: copy it to own its memory.
    return new Uint8Array(buf);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new MidashiError("NOT_FOUND", `${ctx.what}: ${path} does not exist; ${ctx.missing}`, { cause: e });
    }
    throw new MidashiError("IO", `${ctx.what}: cannot read ${path} (${code ?? String(e)}); check its permissions`, { cause: e });
  }
}

async function fetchBytes(url: string, ctx: ReadContext, onProgress?: OnProgress): Promise<Uint8Array> {
  const limit = ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const controller = limit > 0 ? new AbortController() : undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stalled = false;
  // Armed before the request and again at every chunk: it fires only on silence.
  const arm = () => {
    if (!controller) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      controller.abort();
    }, limit);
  };
  const stall = (e: unknown) =>
    new MidashiError(
      "NETWORK",
      `${ctx.what}: ${url} sent nothing for ${limit / 1000} s; check that the server is up, or raise the \`timeout\` option of Midashi.load (0 waits for ever)`,
      { cause: e },
    );
  try {
    let res: Response;
    arm();
    try {
      res = await fetch(url, controller ? { signal: controller.signal } : undefined);
    } catch (e) {
      if (stalled) throw stall(e);
      throw unreachable(url, ctx, e);
    }
    refuseUnlessOk(res, url, ctx);
    try {
      arm();
      if (!res.body) return new Uint8Array(await res.arrayBuffer());
      return await readStream(res, (loaded, total) => {
        arm();
        onProgress?.(loaded, total);
      });
    } catch (e) {
      if (stalled) throw stall(e);
      throw new MidashiError(
        "NETWORK",
        `${ctx.what}: the download of ${url} broke off (${e instanceof Error ? e.message : String(e)}); try again`,
        { cause: e },
      );
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The error of a request that got no response at all. */
function unreachable(url: string, ctx: ReadContext, e: unknown): MidashiError {
  return new MidashiError(
    "NETWORK",
    `${ctx.what}: could not fetch ${url} (${e instanceof Error ? e.message : String(e)}); check the network connection and that the server is up`,
    { cause: e },
  );
}

/** Throws the loader's error for a response that is not the file asked for. */
function refuseUnlessOk(res: Response, url: string, ctx: ReadContext): void {
  if (res.status === 404 || res.status === 410) {
    // Not reading the body: release the connection.
    void res.body?.cancel().catch(() => undefined);
    throw new MidashiError("NOT_FOUND", `${ctx.what}: ${url} was not found (HTTP ${res.status}); ${ctx.missing}`);
  }
  if (!res.ok) {
    void res.body?.cancel().catch(() => undefined);
    throw new MidashiError("NETWORK", `${ctx.what}: ${url} answered HTTP ${res.status} ${res.statusText}; try again later or check the server`);
  }
}

/**
 * The WebAssembly module at `location`, compiled. Over http(s) in a browser it is compiled as
 * it downloads, from the fetch's own response: browsers keep the compiled code of such a
 * module with its HTTP cache entry (V8's wasm code cache), so a second visit skips compiling
 * the 15 MB semantic module (~1.5 s here) — compiling from bytes read for progress, as
 * before, compiled it again on every page. Elsewhere (Node, file paths), or when the server
 * sends `.wasm` under another MIME type (streaming compilation refuses it), from its bytes.
 * A module that is not valid WebAssembly rejects with the engine's `CompileError`.
 */
export async function compileModule(location: string, ctx: ReadContext): Promise<WebAssembly.Module> {
  const streaming = isFetchable(location) && !isNode() && typeof WebAssembly.compileStreaming === "function";
  if (streaming) {
    let res: Response;
    try {
      res = await fetch(location);
    } catch (e) {
      throw unreachable(location, ctx, e);
    }
    refuseUnlessOk(res, location, ctx);
    try {
      return await WebAssembly.compileStreaming(res);
    } catch (e) {
      if (e instanceof WebAssembly.CompileError) throw e;
      // Most often a MIME type other than application/wasm: compile its bytes instead.
    }
  }
  return WebAssembly.compile((await readBytes(location, ctx)) as Uint8Array<ArrayBuffer>);
}

/** Reads a response body chunk by chunk, telling `onProgress` as bytes arrive. */
async function readStream(res: Response, onProgress: OnProgress): Promise<Uint8Array> {
  // Content-Length is the encoded size; with compression the decoded bytes outgrow it, so it
  // is only a hint (the total then grows to what arrived).
  const header = Number(res.headers.get("content-length"));
  const hint = Number.isFinite(header) && header > 0 ? header : undefined;
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  onProgress(0, hint);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress(loaded, hint === undefined ? undefined : Math.max(hint, loaded));
  }
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  onProgress(loaded, loaded);
  return out;
}
