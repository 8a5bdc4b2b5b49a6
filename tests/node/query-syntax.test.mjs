// Query syntax through the JS API (#23 item 4): a quoted phrase and an excluded word, in
// English and Japanese, answered alike by the single-file layout and the sharded one (whose
// keyword module hands a phrase to the full engine, which reads the candidates' bundles).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { buildIndex, buildIndexBin, importMidashi, tempDir } from "../support/indexes.mjs";

const indexes = {};

before(async () => {
  const docs = tempDir("midashi-syntax-docs-");
  mkdirSync(docs, { recursive: true });
  writeFileSync(
    path.join(docs, "borrow.md"),
    "# Borrowing\n\n## The checker\n\nThe borrow checker compares scopes.\n\n## Reversed\n\nA checker can borrow a value.\n",
  );
  writeFileSync(path.join(docs, "unsafe.md"), "# Unsafe\n\n## Raw pointers\n\nThe borrow checker does not check raw pointers in unsafe code.\n");
  writeFileSync(
    path.join(docs, "ja.md"),
    "---\nlang: ja\n---\n\n# 算出\n\n## 算出プロパティ\n\n算出プロパティはキャッシュされます。\n\n## 別の話\n\nプロパティを算出する関数です。\n",
  );
  const { Midashi } = await importMidashi();
  for (const layout of ["single", "sharded"]) {
    const dir = buildIndex(docs, tempDir(`midashi-syntax-${layout}-`), ["--layout", layout]);
    indexes[layout] = { dir, idx: await Midashi.load(dir) };
  }
});
after(() => Object.values(indexes).forEach(({ idx }) => idx.close()));

const headings = async (idx, q) => (await idx.search(q, { group: false, limit: 50 })).results.map((h) => h.heading).sort();

for (const layout of ["single", "sharded"]) {
  test(`${layout}: a phrase keeps its order, an excluded word leaves sections out`, async () => {
    const { idx } = indexes[layout];
    assert.deepEqual(await headings(idx, '"borrow checker"'), ["Raw pointers", "The checker"]);
    assert.ok((await headings(idx, "borrow checker")).includes("Reversed"));
    assert.deepEqual(await headings(idx, '"borrow checker" -unsafe'), ["The checker"]);
    // Only exclusions: read as words, as a visitor typing a flag or parameter (`-Recurse`) means.
    assert.ok((await headings(idx, "-unsafe")).includes("Raw pointers"));
    assert.deepEqual(await headings(idx, "-unsafe"), await headings(idx, "unsafe"));
    assert.ok((await headings(idx, "borrow-checker")).includes("The checker"), "a dash inside a word is text");
  });

  test(`${layout}: Japanese quotes and exclusion`, async () => {
    const { idx } = indexes[layout];
    assert.deepEqual(await headings(idx, "「算出プロパティ」"), ["算出プロパティ"]);
    const got = await headings(idx, "算出 プロパティ -キャッシュ");
    assert.ok(got.includes("別の話") && !got.includes("算出プロパティ"), got.join(", "));
  });
}

test("the CLI answers the same", () => {
  const out = execFileSync(buildIndexBin(), ["search", indexes.single.dir, '"borrow checker" -unsafe', "--json"], { encoding: "utf8" });
  assert.deepEqual(JSON.parse(out).results.map((h) => h.heading), ["The checker"]);
});
