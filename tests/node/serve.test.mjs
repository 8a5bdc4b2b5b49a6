// scripts/serve.mjs's caching (#21 item 4): content-hashed files are immutable for a year;
// the rest is revalidated with an ETag / Last-Modified and answered 304 when unchanged.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { serve } from "../../scripts/serve.mjs";

let dir;
let server;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "midashi-serve-"));
  writeFileSync(join(dir, "terms.0123456789abcdef.bin"), "hashed");
  writeFileSync(join(dir, "midashi-entry.bin"), "entry");
  writeFileSync(join(dir, "index.html"), "<p>hi</p>");
  server = await serve(dir);
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test("a file named by its content hash is cached as immutable", async () => {
  const res = await fetch(`${server.url}/terms.0123456789abcdef.bin`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(await res.text(), "hashed");
});

test("other files are revalidated: ETag, Last-Modified, 304 when unchanged", async () => {
  for (const p of ["/midashi-entry.bin", "/"]) {
    const res = await fetch(server.url + p);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-cache");
    const etag = res.headers.get("etag");
    const modified = res.headers.get("last-modified");
    assert.ok(etag && modified, p);
    await res.arrayBuffer();
    const again = await fetch(server.url + p, { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304, p);
    const since = await fetch(server.url + p, { headers: { "if-modified-since": modified } });
    assert.equal(since.status, 304, p);
    const stale = await fetch(server.url + p, { headers: { "if-none-match": 'W/"0-0"' } });
    assert.equal(stale.status, 200, p);
  }
});

test("a changed file gets a new ETag", async () => {
  const first = (await fetch(`${server.url}/midashi-entry.bin`)).headers.get("etag");
  writeFileSync(join(dir, "midashi-entry.bin"), "a rebuilt entry");
  const res = await fetch(`${server.url}/midashi-entry.bin`, { headers: { "if-none-match": first } });
  assert.equal(res.status, 200);
  assert.notEqual(res.headers.get("etag"), first);
});
