// The widget's strings (#25 item 4): ten languages, each complete, chosen from the page's
// language tag by the rules docs/widget.md states.

import assert from "node:assert/strict";
import { test } from "node:test";
import { en, stringsFor, translations } from "../../web/dist/widget/strings.js";

test("ten languages, every string of each translated and usable", () => {
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

test("the language is matched from a BCP 47 tag", () => {
  const cases = {
    "ja-JP": "ja", "pt-BR": "pt-BR", "pt-PT": "pt-BR", pt: "pt-BR", "zh-Hant": "zh-TW", "zh-TW": "zh-TW", "zh-HK": "zh-TW",
    "zh-Hans-CN": "zh-CN", zh: "zh-CN", "zh-CN": "zh-CN", "de-CH": "de", FR: "fr", "es-419": "es", "ko-KR": "ko", "ru-RU": "ru",
    "en-GB": "en", nl: "en", "": "en",
  };
  for (const [tag, want] of Object.entries(cases)) assert.equal(stringsFor(tag), translations[want], tag);
  assert.equal(stringsFor(undefined), en);
});

test("a count that is a lower bound says so in every language", () => {
  for (const [lang, t] of Object.entries(translations)) {
    const exact = t.count(1234, true);
    const atLeast = t.count(1234, false);
    assert.notEqual(atLeast, exact, lang);
    assert.ok(atLeast.includes("1234") && /\+|以上|이상/.test(atLeast), `${lang}: ${atLeast}`);
    // A count handed to Array.prototype.map (index as its second argument) stays exact.
    assert.equal([1234].map(t.count)[0], t.count(1234), lang);
  }
});

test("Russian counts take the three plural forms", () => {
  const { count } = translations.ru;
  assert.deepEqual([1, 2, 5, 11, 21, 22, 112].map(count), ["1 результат", "2 результата", "5 результатов", "11 результатов", "21 результат", "22 результата", "112 результатов"]);
});
