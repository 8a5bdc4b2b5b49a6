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

/** The part of node:fs/promises the loader uses. */
interface NodeFs {
  readFile(path: string): Promise<Uint8Array>;
  lstat(path: string): Promise<NodeStats>;
  stat(path: string): Promise<NodeStats>;
  realpath(path: string): Promise<string>;
  open(path: string, flags: string): Promise<{
    read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
    close(): Promise<void>;
  }>;
}
interface NodeStats {
  size: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isBlockDevice(): boolean;
  isCharacterDevice(): boolean;
}
let fsImpl: NodeFs | undefined;
let fileUrlToPath: ((u: string) => string) | undefined;

/** node:fs, loaded only in Node (a variable specifier keeps bundlers from resolving it). */
async function nodeFs(): Promise<{ fs: NodeFs; toPath: (u: string) => string }> {
  if (!fsImpl || !fileUrlToPath) {
    const fsName = "node:fs/promises";
    const urlName = "node:url";
    fsImpl = (await import(/* @vite-ignore */ /* webpackIgnore: true */ fsName)) as NodeFs;
    const url = (await import(/* @vite-ignore */ /* webpackIgnore: true */ urlName)) as { fileURLToPath: (u: string) => string };
    fileUrlToPath = url.fileURLToPath;
  }
  return { fs: fsImpl, toPath: fileUrlToPath };
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
  /** Bytes past which a download is cut off (the caller reports the size). */
  maxBytes?: number;
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
  const { fs, toPath } = await nodeFs();
  const path = location.startsWith("file:") ? toPath(location) : location;
  try {
    const buf = await fs.readFile(path);
    onProgress?.(buf.length, buf.length);
    // A Node Buffer is a Uint8Array view into a shared pool: copy it to own its memory.
    return new Uint8Array(buf);
  } catch (e) {
    throw diskError(e, path, ctx);
  }
}

/** A failed disk read as the loader's error: `NOT_FOUND` for a missing file, else `IO`. */
function diskError(e: unknown, path: string, ctx: ReadContext): MidashiError {
  const code = (e as { code?: string }).code;
  if (code === "ENOENT" || code === "ENOTDIR") {
    return new MidashiError("NOT_FOUND", `${ctx.what}: ${path} does not exist; ${ctx.missing}`, { cause: e });
  }
  return new MidashiError("IO", `${ctx.what}: cannot read ${path} (${code ?? String(e)}); check its permissions`, { cause: e });
}

/**
 * Most bytes a file the entry does not size may have (the entry itself, shards, cards,
 * bundles): far above any real one, as build-index's reader (folder_file.rs).
 */
export const MAX_UNSIZED_BYTES = 64 * 1024 * 1024;

/** Files of one index read at once: an entry naming thousands must not open them all. */
export const MAX_PARALLEL_READS = 8;

/**
 * Reads file `name` of the index folder `folder`: `size` is its size as the entry records
 * it, if it does. On disk (Node) only a regular file inside the folder is read (never a
 * FIFO or a device, nor a link out of the folder), after its size is checked; over HTTP the
 * download is cut off past the size. Larger than `size` (or than any index file) is
 * `SIZE_MISMATCH`, anything but a file `NOT_A_FILE`.
 */
export async function readIndexFile(folder: string, name: string, ctx: ReadContext, size?: number): Promise<Uint8Array> {
  if (!name || name === "." || name === ".." || /[\\/\0]/.test(name)) {
    throw new MidashiError("NOT_A_FILE", `${ctx.what}: ${JSON.stringify(name)} is not a file name of an index folder (it has a path in it); copy or build the index again`);
  }
  const location = join(folder, name);
  const limit = size ?? MAX_UNSIZED_BYTES;
  // Larger than recorded is never read whole; smaller is, and its frame says what it is (cut
  // short, another kind, another build).
  const mismatch = (actual: number): MidashiError => {
    const expected = size === undefined ? `at most ${MAX_UNSIZED_BYTES >> 20} MiB` : `${size} bytes`;
    return new MidashiError("SIZE_MISMATCH", `${ctx.what}: ${name} has ${actual} bytes where the index expects ${expected}; the folder holds a damaged or foreign file: copy or build the index again`);
  };
  let bytes: Uint8Array;
  if (isFetchable(location) || !isNode()) {
    bytes = await readBytes(location, { ...ctx, maxBytes: limit });
  } else {
    bytes = await readDiskFile(folder, name, location, ctx, size, mismatch);
  }
  if (bytes.length > limit) throw mismatch(bytes.length);
  return bytes;
}

/** {@link readIndexFile} from disk. */
async function readDiskFile(
  folder: string,
  name: string,
  location: string,
  ctx: ReadContext,
  size: number | undefined,
  mismatch: (actual: number) => MidashiError,
): Promise<Uint8Array> {
  const { fs, toPath } = await nodeFs();
  const path = location.startsWith("file:") ? toPath(location) : location;
  const notAFile = (what: string) =>
    new MidashiError("NOT_A_FILE", `${ctx.what}: ${name} is not a regular file inside the index folder (${what}); an index folder holds only the files build-index wrote: copy or build it again`);
  try {
    if ((await fs.lstat(path)).isSymbolicLink()) {
      const dir = folder.startsWith("file:") ? toPath(folder) : folder;
      const [target, inside] = await Promise.all([fs.realpath(path), fs.realpath(dir)]);
      const sep = inside.includes("\\") && !inside.includes("/") ? "\\" : "/";
      if (!target.startsWith(inside.endsWith(sep) ? inside : inside + sep)) throw notAFile("a link to a file outside the folder");
    }
    const stats = await fs.stat(path);
    if (!stats.isFile()) {
      throw notAFile(stats.isDirectory() ? "a folder" : stats.isFIFO() ? "a FIFO" : stats.isSocket() ? "a socket" : stats.isBlockDevice() || stats.isCharacterDevice() ? "a device" : "not a regular file");
    }
    if (stats.size > (size ?? MAX_UNSIZED_BYTES)) throw mismatch(stats.size);
    // One byte more than the size: a file that grew since the stat is caught, not read on.
    const out = new Uint8Array(stats.size + 1);
    const handle = await fs.open(path, "r");
    try {
      let at = 0;
      for (;;) {
        const { bytesRead } = await handle.read(out, at, out.length - at, at);
        if (bytesRead === 0) break;
        at += bytesRead;
        if (at === out.length) break;
      }
      return out.subarray(0, at);
    } finally {
      await handle.close();
    }
  } catch (e) {
    throw e instanceof MidashiError ? e : diskError(e, path, ctx);
  }
}

/** `read` over `items`, at most `limit` at a time, results in order. */
export async function inBatches<T, R>(items: readonly T[], read: (item: T) => Promise<R>, limit = MAX_PARALLEL_READS): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await read(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
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
      return await readStream(
        res,
        (loaded, total) => {
          arm();
          onProgress?.(loaded, total);
        },
        ctx.maxBytes,
      );
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

/**
 * Reads a response body chunk by chunk, telling `onProgress` as bytes arrive; past `maxBytes`
 * it stops and returns what it has (one chunk over, for the caller to report).
 */
async function readStream(res: Response, onProgress: OnProgress, maxBytes = Infinity): Promise<Uint8Array> {
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
    if (loaded > maxBytes) {
      void reader.cancel().catch(() => undefined);
      break;
    }
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
