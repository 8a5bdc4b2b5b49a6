// Excerpts that show why (#23 item 1): every result carries, besides its line-exact
// preview, the plain-text window of its section around the matched words, with their
// offsets — from the JS API and the CLI's JSON alike, in English and Japanese.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { buildIndex, buildIndexBin, importMidashi, tempDir } from "../support/indexes.mjs";

let idx;
let dir;

const filler = (i) => `Paragraph ${i} talks about configuration files and nothing else of note.`;

before(async () => {
  const docs = tempDir("midashi-excerpt-docs-");
  mkdirSync(path.join(docs, "guide"), { recursive: true });
  const deep = [
    "---",
    "title: Caching",
    "description: Everything about the cache",
    "---",
    "",
    "# Caching",
    "",
    "## Storage",
    "",
    ...Array.from({ length: 30 }, (_, i) => filler(i)),
    "",
    "| Option | Meaning |",
    "|---|---|",
    "| `ttl` | how long an entry lives |",
    "",
    "```bash",
    "npm run warm",
    "```",
    "",
    "Only here does the **xylophone** [setting](https://example.test/x) get mentioned.",
  ];
  writeFileSync(path.join(docs, "guide/caching.md"), deep.join("\n") + "\n");
  writeFileSync(
    path.join(docs, "ja.md"),
    "---\nlang: ja\n---\n\n# キャッシュ\n\n" + "説明の文章です。".repeat(30) + "\n\n最後にだけ出てくる言葉は木琴です。\n",
  );
  // The single-file layout: it holds whole sections, so a word 2 KB deep shows in the excerpt.
  // The default, sharded, layout's excerpts come from the result's card (own text up to 2 KB;
  // docs/js-api.md says so, and the parity test in sharded.test.mjs bounds the marks it loses).
  dir = buildIndex(docs, undefined, ["--layout", "single"]);
  const { Midashi } = await importMidashi();
  idx = await Midashi.load(dir);
});
after(() => idx?.close());

/** The marked words of a hit's excerpt. */
const marked = (h) => h.excerpt_highlights.map(([a, b]) => h.excerpt.slice(a, b));

test("a word deep in a long section is shown, marked, with its line", async () => {
  const r = await idx.search("xylophone", { prefix: false });
  const h = r.results[0];
  assert.equal(h.heading, "Storage");
  // The preview is still the section's first lines, verbatim.
  assert.match(h.preview, /^## Storage/);
  assert.ok(!h.preview.includes("xylophone"));
  assert.deepEqual(marked(h), ["xylophone"]);
  assert.equal(h.excerpt_line, 49);
  // Plain text: no emphasis marks, no link target.
  // From the matched line's start: the table above it is not dragged in.
  assert.equal(h.excerpt, "…Only here does the xylophone setting get mentioned.");
  assert.ok(!/[*[\]()]|https:/.test(h.excerpt), h.excerpt);
});

test("no frontmatter, fences or table pipes in an excerpt", async () => {
  const r = await idx.search("configuration ttl", { prefix: false, limit: 10 });
  assert.ok(r.results.length > 0);
  for (const h of r.results) {
    assert.ok(!/^---|title:|```|\|/.test(h.excerpt), h.excerpt);
    for (const w of marked(h)) assert.match(w, /^(configuration|ttl)$/i);
  }
  const table = (await idx.search("ttl", { prefix: false })).results[0];
  assert.match(table.excerpt, /ttl · how long an entry lives/);
});

test("Japanese: the matched word is found and marked", async () => {
  const r = await idx.search("木琴", { prefix: false });
  const h = r.results[0];
  assert.deepEqual(marked(h), ["木琴"]);
  assert.ok(h.excerpt.startsWith("…"), h.excerpt);
});

test("the CLI's JSON carries the same excerpt", async () => {
  const out = execFileSync(buildIndexBin(), ["search", dir, "xylophone", "--json", "--limit", "1"], { encoding: "utf8" });
  const cli = JSON.parse(out).results[0];
  const js = (await idx.search("xylophone", { prefix: false, limit: 1 })).results[0];
  assert.equal(cli.excerpt, js.excerpt);
  assert.deepEqual(cli.excerpt_highlights, js.excerpt_highlights);
  assert.equal(cli.excerpt_line, js.excerpt_line);
});

test("excerpts: false ranks the same and leaves only the excerpt out", async () => {
  for (const q of ["xylophone", "configuration files", "木琴"]) {
    const full = await idx.search(q, { prefix: false });
    const bare = await idx.search(q, { prefix: false, excerpts: false });
    assert.ok(full.results.length > 0 && full.results.some((h) => h.excerpt), q);
    assert.equal(bare.total, full.total, q);
    assert.deepEqual(
      bare.results.map((h) => [h.id, h.score, h.preview, h.highlights]),
      full.results.map((h) => [h.id, h.score, h.preview, h.highlights]),
      q,
    );
    assert.ok(bare.results.every((h) => h.excerpt === "" && h.excerpt_highlights.length === 0 && h.excerpt_line === h.start_line), q);
  }
  await assert.rejects(idx.search("x", { excerpts: "no" }), /excerpts/);
});
