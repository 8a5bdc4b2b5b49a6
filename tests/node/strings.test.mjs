// The widget's strings (#25 item 4): ten languages, each complete, chosen from the page's
// language tag by the rules docs/widget.md states.

import assert from "node:assert/strict";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { en, hasStrings, languages, loadStrings, stringsFor, translations } from "../../web/dist/widget/strings.js";

test("English and Japanese are there from the start; the rest load when a page asks", async () => {
  assert.deepEqual(Object.keys(translations).sort(), ["en", "ja"]);
  assert.ok(hasStrings("ja-JP") && hasStrings("en-GB") && hasStrings("nl"), "nl falls back to English, which is there");
  assert.ok(!hasStrings("de-AT"));
  // Until German is here, English stands in; then the same call answers German.
  assert.equal(stringsFor("de-AT"), en);
  const de = await loadStrings("de-AT");
  assert.equal(de.button, "Suche");
  assert.ok(hasStrings("de"));
  assert.equal(stringsFor("de-AT"), de);
  assert.equal(await loadStrings("de"), de, "fetched once");
  // Nothing but English and Japanese in the site's widget bundle (a German word, a Russian one).
  const bundle = readFileSync(new URL("../../web/dist/bundle/midashi.js", import.meta.url), "utf8");
  // esbuild may write non-ASCII characters as \uXXXX escapes.
  const escaped = (t) => t.replace(/[^\x00-\x7f]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0"));
  const has = (t) => bundle.includes(t) || bundle.includes(escaped(t));
  assert.ok(!has("Suche") && !has("Поиск") && !has("검색"), "other languages stay out of midashi.js");
  assert.ok(has("ドキュメントを検索") && has("Search the docs"));
  for (const tag of languages.filter((t) => t !== "en" && t !== "ja")) {
    assert.ok(bundle.includes(`import("./strings/${tag}.js")`), tag);
    assert.ok(readFileSync(new URL(`../../web/dist/bundle/strings/${tag}.js`, import.meta.url), "utf8").length > 500, tag);
  }
});

test("ten languages, every string of each translated and usable", async () => {
  for (const tag of languages) await loadStrings(tag);
  assert.deepEqual(Object.keys(translations).sort(), ["de", "en", "es", "fr", "ja", "ko", "pt-BR", "ru", "zh-CN", "zh-TW"]);
  for (const [tag, s] of Object.entries(translations)) {
    assert.deepEqual(Object.keys(s).sort(), Object.keys(en).sort(), tag);
    for (const [key, v] of Object.entries(s)) {
      const out = typeof v === "function" ? [v(1), v(3), v(25), v("x"), v("question", 12), v("weak", undefined)] : typeof v === "object" ? Object.values(v) : [v];
      for (const o of out) assert.ok(typeof o === "string" && o.length > 0, `${tag}.${key}`);
      // A translation, not the English left in (German's "Filter" is German too).
      if (tag !== "en" && typeof v === "string" && !(tag === "de" && key === "filters")) {
        assert.notEqual(v, en[key], `${tag}.${key} is English`);
      }
    }
  }
});

test("the language is matched from a BCP 47 tag", async () => {
  for (const tag of languages) await loadStrings(tag);
  const cases = {
    "ja-JP": "ja", "pt-BR": "pt-BR", "pt-PT": "pt-BR", pt: "pt-BR", "zh-Hant": "zh-TW", "zh-TW": "zh-TW", "zh-HK": "zh-TW",
    "zh-Hans-CN": "zh-CN", zh: "zh-CN", "zh-CN": "zh-CN", "de-CH": "de", FR: "fr", "es-419": "es", "ko-KR": "ko", "ru-RU": "ru",
    "en-GB": "en", nl: "en", "": "en",
  };
  for (const [tag, want] of Object.entries(cases)) assert.equal(stringsFor(tag), translations[want], tag);
  assert.equal(stringsFor(undefined), en);
});

test("a count that is a lower bound says so in every language", async () => {
  for (const tag of languages) await loadStrings(tag);
  for (const [lang, t] of Object.entries(translations)) {
    const exact = t.count(1234, true);
    const atLeast = t.count(1234, false);
    assert.notEqual(atLeast, exact, lang);
    assert.ok(atLeast.includes("1234") && /\+|以上|이상/.test(atLeast), `${lang}: ${atLeast}`);
    // A count handed to Array.prototype.map (index as its second argument) stays exact.
    assert.equal([1234].map(t.count)[0], t.count(1234), lang);
  }
});

test("Russian counts take the three plural forms", async () => {
  const { count } = await loadStrings("ru");
  assert.deepEqual([1, 2, 5, 11, 21, 22, 112].map(count), ["1 результат", "2 результата", "5 результатов", "11 результатов", "21 результат", "22 результата", "112 результатов"]);
});

test("a page's own translation, added to translations, is matched like a shipped one", async () => {
  translations.nl = { ...en, button: "Zoeken" };
  try {
    assert.ok(hasStrings("nl-BE"));
    assert.equal(stringsFor("nl-BE").button, "Zoeken");
    assert.equal((await loadStrings("NL")).button, "Zoeken");
  } finally {
    delete translations.nl;
  }
  assert.equal(stringsFor("nl-BE"), en);
});
