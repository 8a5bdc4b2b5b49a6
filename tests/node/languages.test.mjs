// A language per page (#25 items 1–2): frontmatter `lang`, else a locale folder (`ja/`,
// `pt_br/`), else the site's language, recorded by build-index for every page; the `lang`
// filter and facet read it, and `preferLang` puts the reader's language first.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { buildIndex, importMidashi, tempDir } from "../support/indexes.mjs";

let idx;

before(async () => {
  const docs = tempDir("midashi-langs-");
  const page = (p, text) => {
    mkdirSync(path.dirname(path.join(docs, p)), { recursive: true });
    writeFileSync(path.join(docs, p), text);
  };
  // An English site (no page says so) with translations in locale folders.
  page("guide/cache.md", "# Cache\n\nThe cache keeps answers for a while. Clear the cache after a deploy.\n");
  page("guide/deploy.md", "# Deploy\n\nA deploy clears the cache of every server.\n");
  page("ja/guide/cache.md", "# キャッシュ\n\ncache はしばらく答えを保持します。\n");
  page("pt_br/guide/cache.md", "# Cache\n\nO cache guarda respostas.\n");
  page("fr/cache.md", "---\nlang: fr-CA\n---\n# Cache\n\nLe cache garde les réponses.\n");
  const { Midashi } = await importMidashi();
  idx = await Midashi.load(buildIndex(docs));
});
after(() => idx?.close());

test("every page has a language: its own, its locale folder's, else the site's", async () => {
  const r = await idx.search("cache", { facets: true, group: false, limit: 50 });
  const langs = Object.fromEntries(r.facets.lang.map((f) => [f.value, f.count]));
  assert.deepEqual(Object.keys(langs).sort(), ["en", "fr-CA", "ja", "pt-BR"], JSON.stringify(r.facets.lang));
  // A locale folder is a language, not a category.
  assert.ok(!r.facets.category.some((c) => ["ja", "pt_br"].includes(c.value)), JSON.stringify(r.facets.category));
  const en = await idx.search("cache", { lang: "en", group: false, limit: 50 });
  assert.ok(en.results.length > 0 && en.results.every((h) => h.path.startsWith("guide/")), en.results.map((h) => h.path).join(" "));
});

test("the reader's language first, the others after, none left out", async () => {
  const plain = await idx.search("cache", { group: false, limit: 50 });
  for (const [want, prefix] of [["ja", "ja/"], ["pt-BR", "pt_br/"], ["fr", "fr/"]]) {
    const r = await idx.search("cache", { group: false, limit: 50, preferLang: want });
    assert.ok(r.results[0].path.startsWith(prefix), `${want}: ${r.results.map((h) => h.path).join(" ")}`);
    assert.equal(r.total, plain.total);
    assert.deepEqual(r.results.map((h) => h.id).sort(), plain.results.map((h) => h.id).sort());
  }
});
