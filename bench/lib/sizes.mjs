// Bytes as shipped and as sent over the wire: raw, gzip (level 9) and brotli (quality 11),
// each file compressed on its own as a static server would.

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

/** Sizes of one buffer. */
export function sizesOf(bytes) {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  return {
    raw: buf.length,
    gzip: zlib.gzipSync(buf, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(buf, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length },
    }).length,
  };
}

/** Summed sizes of `[{ name, bytes }]`; files already compressed (Pagefind's) count as they are. */
export function sizesOfFiles(files) {
  const total = { raw: 0, gzip: 0, brotli: 0, files: files.length };
  for (const f of files) {
    const s = f.precompressed ? { raw: f.bytes.length, gzip: f.bytes.length, brotli: f.bytes.length } : sizesOf(f.bytes);
    total.raw += s.raw;
    total.gzip += s.gzip;
    total.brotli += s.brotli;
  }
  return total;
}

/** Every file under `dir` as `{ name, bytes }` (name relative to dir). */
export function readTree(dir, filter = () => true) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (filter(path.relative(dir, p))) out.push({ name: path.relative(dir, p), bytes: readFileSync(p) });
    }
  };
  walk(dir);
  return out;
}
