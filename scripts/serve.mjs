// Serves a static site on 127.0.0.1 (the demo, and the browser tests' server):
//
//   node scripts/serve.mjs <dir> [--port 8080]
//
// Folders answer with their index.html, a path without extension tries `<path>.html` (clean
// URLs, as most docs hosts do), `.wasm` goes out as application/wasm (required for streaming
// compilation) and nothing outside <dir> is ever served.
//
// Caching, as docs/large-sites.md tells site owners to set it: a file whose name carries its
// content hash (`terms.0123456789abcdef.bin`, `model.<hash>.bin`) never changes, so it is
// cached for a year as immutable; everything else (pages, midashi-entry.bin, the widget's
// scripts and wasm modules) must be revalidated — `no-cache` with an ETag and Last-Modified,
// answered 304 when unchanged, so a second visit downloads nothing again.

import { createReadStream, promises as fs } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".wasm": "application/wasm",
  ".bin": "application/octet-stream",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".svg": "image/svg+xml",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
};

/** Names that carry their content's hash (16 hex digits or more): immutable. */
const HASHED = /\.[0-9a-f]{16,64}\.[a-z0-9]+$/;

/** The caching headers of a file: immutable when hashed, else revalidated by ETag. */
export function cacheHeaders(name, stat) {
  if (HASHED.test(name)) return { "cache-control": "public, max-age=31536000, immutable" };
  return {
    "cache-control": "no-cache",
    etag: `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`,
    "last-modified": new Date(stat.mtimeMs).toUTCString(),
  };
}

/** The file a URL path names under `root`, or undefined. */
async function resolveFile(root, urlPath) {
  const file = path.resolve(root, "." + urlPath);
  if (file !== root && !file.startsWith(root + path.sep)) return undefined;
  const candidates = [file];
  if (urlPath.endsWith("/")) candidates.unshift(path.join(file, "index.html"));
  else if (!path.extname(file)) candidates.push(`${file}.html`, path.join(file, "index.html"));
  for (const c of candidates) {
    const stat = await fs.stat(c).catch(() => null);
    if (stat?.isFile()) return { file: c, size: stat.size, stat };
  }
  return undefined;
}

/**
 * Starts serving `dir`. Resolves with `{ url, port, requests, close() }`; `requests` lists the
 * paths asked for, in order.
 * `headers` go on every file's response (a benchmark's cross-origin isolation, whose
 * COOP/COEP headers give a page's clock microseconds instead of 0.1 ms steps).
 * @param {string} dir
 * @param {{ port?: number, host?: string, headers?: Record<string, string> }} [options]
 */
export async function serve(dir, { port = 0, host = "127.0.0.1", headers = {} } = {}) {
  const root = path.resolve(dir);
  const requests = [];
  const server = createServer(async (req, res) => {
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    } catch {
      res.writeHead(400, { "content-type": "text/plain" });
      return res.end("bad request");
    }
    requests.push(urlPath);
    try {
      const found = await resolveFile(root, urlPath);
      if (!found) {
        res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
        return res.end("not found");
      }
      const type = MIME[path.extname(found.file).toLowerCase()] ?? "application/octet-stream";
      const cache = cacheHeaders(path.basename(found.file), found.stat);
      const fresh =
        (cache.etag && req.headers["if-none-match"]?.split(/\s*,\s*/).includes(cache.etag)) ||
        (cache["last-modified"] && !req.headers["if-none-match"] && req.headers["if-modified-since"] === cache["last-modified"]);
      if (fresh) {
        res.writeHead(304, { ...cache, ...headers });
        return res.end();
      }
      res.writeHead(200, {
        "content-type": type,
        "content-length": found.size,
        ...cache,
        ...headers,
        "x-content-type-options": "nosniff",
      });
      if (req.method === "HEAD") return res.end();
      createReadStream(found.file).pipe(res);
    } catch (e) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(e));
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const actual = server.address().port;
  return {
    url: `http://${host}:${actual}`,
    port: actual,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  let dir;
  let port = 8080;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--port") port = Number(args[++i]);
    else if (args[i]?.startsWith("--port=")) port = Number(args[i].slice(7));
    else dir = args[i];
  }
  if (!dir || !Number.isInteger(port)) {
    console.error("usage: node scripts/serve.mjs <dir> [--port N]");
    process.exit(2);
  }
  try {
    const s = await serve(dir, { port });
    console.log(`Serving ${path.resolve(dir)} at ${s.url}/  (Ctrl+C to stop)`);
  } catch (e) {
    console.error(`serve.mjs: cannot listen on 127.0.0.1:${port}: ${e.message}${e.code === "EADDRINUSE" ? " (use --port to pick another)" : ""}`);
    process.exit(1);
  }
}
