// Each page's words by its own language's rules (#25 item 1): a French site's inflections
// match (avancé ~ avancées, l'application ~ applications). Loaded with the package's default
// modules, the English keyword module hands such an index's queries to the full engine; a
// `--site` copy ships the languages keyword module, which answers alike without moving.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";
import { after, before, test } from "node:test";
import { DIST, ROOT, buildIndex, buildIndexBin, cliSearch, importMidashi, tempDir } from "../support/indexes.mjs";

const LANGUAGES_MODULE = {
  keywordWasmUrl: pathToFileURL(path.join(DIST, "wasm/languages/midashi_keyword_bg.wasm")).href,
  keywordGlueUrl: pathToFileURL(path.join(DIST, "wasm/languages/midashi_keyword.js")).href,
  wasmUrl: pathToFileURL(path.join(DIST, "wasm/midashi_wasm_bg.wasm")).href,
  glueUrl: pathToFileURL(path.join(DIST, "wasm/midashi_wasm.js")).href,
};
const KEYWORD = { mode: "keyword", group: false, supersede: false, cache: false };

let Midashi;
let docs;
let french;
const open = [];

before(async () => {
  ({ Midashi } = await importMidashi());
  docs = tempDir("midashi-fr-");
  const page = (p, text) => writeFileSync(path.join(docs, p), text);
  // No page names its language: the site's, given with --lang, is theirs.
  page("routeur.md", "# Options avancées du routeur\n\nLe routeur accepte des réglages avancés.\n");
  page("installation.md", "# Installation\n\nInstallez l'application avec npm.\n");
  page("composants.md", "# Composants\n\nEnregistrer un composant global.\n");
  french = buildIndex(docs, undefined, ["--lang", "fr"]);
});
after(() => open.forEach((i) => i.close()));

async function load(dir, options) {
  const idx = await Midashi.load(dir, options);
  open.push(idx);
  return idx;
}

const first = async (idx, query) => (await idx.search(query, KEYWORD)).results[0]?.path;

test("a French site's inflections match, through the package's default modules", async () => {
  const idx = await load(french);
  assert.equal(await first(idx, "avancé"), "routeur.md");
  assert.equal(await first(idx, "réglage"), "routeur.md");
  assert.equal(await first(idx, "applications"), "installation.md");
  assert.equal(await first(idx, "composant"), "composants.md");
  // The English keyword module cannot read French: the full engine answered.
  assert.equal(await idx.engine(), "full");
  // The CLI reads queries by the same rules.
  const cli = await cliSearch(french, "avancé");
  assert.ok(cli.ok, cli.stderr);
  assert.equal(cli.value.results[0].path, "routeur.md");
});

test("the languages keyword module answers a French index without moving, as the full engine does", async () => {
  const idx = await load(french, LANGUAGES_MODULE);
  const full = await load(french, { wasmUrl: LANGUAGES_MODULE.wasmUrl, glueUrl: LANGUAGES_MODULE.glueUrl });
  for (const q of ["avancé", "applications", "composant", "le routeur", "options avancées"]) {
    const a = await idx.search(q, KEYWORD);
    assert.deepEqual(a, { ...(await full.search(q, KEYWORD)), tookMs: a.tookMs }, q);
  }
  assert.equal(await idx.engine(), "keyword");
});

test("build-index --site ships the languages keyword module to a French site, the keyword module to an English one", () => {
  const site = (input, extra) => {
    const out = tempDir("midashi-fr-site-");
    execFileSync(buildIndexBin(), [input, "--out", out, "--site", "--quiet", "--keyword-only", ...extra], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
    return readFileSync(path.join(out, "search/wasm/midashi_keyword_bg.wasm"));
  };
  const dist = (name) => readFileSync(path.join(DIST, `wasm/${name}_bg.wasm`));
  assert.ok(site(docs, ["--lang", "fr"]).equals(dist("languages/midashi_keyword")));
  const english = tempDir("midashi-en-");
  mkdirSync(english, { recursive: true });
  writeFileSync(path.join(english, "a.md"), "# Router\n\nThe router takes settings.\n");
  assert.ok(site(english, []).equals(dist("midashi_keyword")));
  assert.ok(dist("midashi_keyword").length < dist("languages/midashi_keyword").length);
});
