// A small static file server for tests: serves folders under URL prefixes on 127.0.0.1 with
// the MIME types browsers insist on (`application/wasm` for streaming compilation, a
// JavaScript type for module scripts and workers), and can be told to misbehave on given
// paths (drop the connection, cut a body short, answer an HTTP error) so the error paths of
// the loader are tested against a real socket.
//
//   node tests/support/server.mjs <dir> [port]      serve one folder for a manual look

import { createReadStream, promises as fs } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".wasm": "application/wasm",
  ".bin": "application/octet-stream",
  ".ts": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * Starts a server.
 * @param {object} options
 * @param {{prefix: string, dir: string}[]} options.mounts  URL prefix (e.g. "/dist/") → folder
 * @param {Record<string, "reset" | "cut" | number | ((req, res) => void)>} [options.faults]
 *   path → "reset" (destroy the socket before answering), "cut" (send headers and half the
 *   body, then destroy), an HTTP status to answer with, or a handler of its own
 * @param {Record<string, string>} [options.pages]  path → HTML to answer with
 * @param {number} [options.port]  0 (default) for any free port
 * @returns {Promise<{url: string, port: number, requests: string[], close(): Promise<void>}>}
 */
export async function startServer({ mounts, faults = {}, pages = {}, port: wanted = 0 }) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(urlPath);
    try {
      const fault = faults[urlPath];
      if (typeof fault === "function") return fault(req, res);
      if (fault === "reset") return req.socket.destroy();
      if (typeof fault === "number") {
        res.writeHead(fault, { "content-type": "text/plain" });
        return res.end(`status ${fault}`);
      }
      if (pages[urlPath] !== undefined) {
        res.writeHead(200, { "content-type": MIME[".html"], "cache-control": "no-store" });
        return res.end(pages[urlPath]);
      }
      const mount = mounts.find((m) => urlPath.startsWith(m.prefix));
      if (!mount) return notFound(res);
      const root = path.resolve(mount.dir);
      const file = path.resolve(root, "." + urlPath.slice(mount.prefix.length - 1));
      // No escaping the mounted folder with ../
      if (file !== root && !file.startsWith(root + path.sep)) return notFound(res);
      const stat = await fs.stat(file).catch(() => null);
      if (!stat || !stat.isFile()) return notFound(res);
      const type = MIME[path.extname(file)] ?? "application/octet-stream";
      if (fault === "cut") {
        // Announce the whole length, send half, then drop the connection: a download that
        // breaks off midway.
        const bytes = await fs.readFile(file);
        res.writeHead(200, { "content-type": type, "content-length": bytes.length });
        res.write(bytes.subarray(0, bytes.length >> 1));
        return setTimeout(() => req.socket.destroy(), 20);
      }
      res.writeHead(200, { "content-type": type, "content-length": stat.size, "cache-control": "no-store" });
      createReadStream(file).pipe(res);
    } catch (e) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(e));
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(wanted, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

function notFound(res) {
  res.writeHead(404, { "content-type": "text/plain" });
  res.end("not found");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const dir = process.argv[2] ?? ".";
  const s = await startServer({ mounts: [{ prefix: "/", dir }], port: Number(process.argv[3] ?? 0) });
  console.log(`serving ${path.resolve(dir)} at ${s.url}/`);
}
