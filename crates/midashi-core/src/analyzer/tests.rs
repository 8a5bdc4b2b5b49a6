use super::*;
use proptest::prelude::*;

fn terms(text: &str) -> Vec<String> {
    Analyzer::new()
        .analyze(text)
        .into_iter()
        .map(|t| t.term)
        .collect()
}

/// (term, position) pairs, for checking what shares a position.
fn at(text: &str) -> Vec<(String, u32)> {
    Analyzer::new()
        .analyze(text)
        .into_iter()
        .map(|t| (t.term, t.position))
        .collect()
}

/// Everything the offsets must satisfy, for any input.
fn check_invariants(text: &str) {
    let a = Analyzer::new();
    let toks = a.analyze(text);
    let mut last = 0;
    for t in &toks {
        assert!(t.start <= t.end && t.end <= text.len(), "{t:?} in {text:?}");
        assert!(
            text.is_char_boundary(t.start) && text.is_char_boundary(t.end),
            "{t:?} in {text:?}"
        );
        assert!(t.position >= last, "positions go back: {t:?} in {text:?}");
        assert!(!t.term.is_empty());
        // Lower-casing can grow a word (İ → i̇), but never past 3× its normalised length.
        assert!(t.term.len() <= 3 * MAX_TERM_BYTES, "{t:?}");
        last = t.position;
    }
    // The query side is the document side with stopwords possibly dropped: an in-order
    // subsequence with the same terms, positions and offsets.
    let q = a.analyze_query(text);
    let mut d = toks.iter();
    for qt in &q {
        assert!(
            d.any(|t| t.term == qt.term
                && t.position == qt.position
                && (t.start, t.end) == (qt.start, qt.end)),
            "query token {qt:?} not produced by analyze() for {text:?}"
        );
    }
    if !q.iter().any(|t| t.stopword) && q.len() != toks.len() {
        // Something was dropped, so every dropped token must have been a stopword.
        assert!(q.iter().all(|t| !t.stopword));
    }
    assert_eq!(toks, a.analyze(text), "not deterministic");
}

#[test]
fn full_width_is_half_width() {
    assert_eq!(normalize("ＶＵＥ３"), "vue3");
    assert_eq!(normalize("Ｈｅｌｌｏ　ＷＯＲＬＤ！"), "hello world!");
    let text = "ＶＵＥ３の使い方";
    let toks = Analyzer::new().analyze(text);
    assert_eq!(toks[0].term, "vue3");
    assert_eq!(&text[toks[0].start..toks[0].end], "ＶＵＥ３");
    assert_eq!(terms("ＶＵＥ３"), terms("vue3"));
    assert_eq!(terms("ｖ－ｍｏｄｅｌ"), terms("v-model"));
}

#[test]
fn katakana_folds_to_hiragana() {
    assert_eq!(terms("プロパティ"), terms("ぷろぱてぃ"));
    assert_eq!(terms("プロパティ"), vec!["ぷろ", "ろぱ", "ぱて", "てい"]);
    // Half-width katakana with separate voicing marks becomes the same word.
    assert_eq!(terms("ﾌﾟﾛﾊﾟﾃｨ"), terms("プロパティ"));
    // Decomposed voicing (か + U+3099) composes.
    assert_eq!(terms("か\u{3099}"), terms("が"));
    // The prolonged sound mark stays as it is.
    assert_eq!(
        terms("コンポーネント"),
        vec!["こん", "んぽ", "ぽー", "ーね", "ねん", "んと"]
    );
    assert_eq!(normalize("コンポーネント"), "こんぽーねんと");
}

#[test]
fn small_kana_fold_to_full_size() {
    // Two spellings of one word, both written: one term.
    assert_eq!(terms("ウォッチャー"), terms("ウオッチャー"));
    assert_eq!(normalize("ウォッチャー"), "うおつちやー");
    assert_eq!(terms("ｳｫｯﾁｬｰ"), terms("ウオツチヤー"));
    assert_eq!(
        normalize("ぁぃぅぇぉっゃゅょゎゕゖヵヶ"),
        "あいうえおつやゆよわかけかけ"
    );
}

/// A small kana folded before a voicing mark composes with it, at once: normalising twice
/// gives what normalising once does.
#[test]
fn a_folded_small_kana_takes_its_voicing_mark() {
    for (text, folded) in [("ｯﾞ", "づ"), ("ｩﾞ", "ゔ"), ("ｯﾞｸ", "づく")] {
        assert_eq!(normalize(text), folded, "{text}");
        assert_eq!(normalize(&normalize(text)), normalize(text), "{text}");
        assert_eq!(terms(&normalize(text)), terms(text), "{text}");
    }
}

#[test]
fn cjk_runs_give_bigrams_and_single_chars_unigrams() {
    let toks = Analyzer::new().analyze("梅雨");
    assert_eq!(toks.len(), 1);
    assert_eq!(toks[0].term, "梅雨");
    assert_eq!(terms("梅"), vec!["梅"]);
    let q = Analyzer::new().analyze_query("梅");
    assert_eq!(q.len(), 1);
    assert!(q[0].cjk && !q[0].part && !q[0].stopword);
    assert_eq!(q[0].raw, "梅");

    let text = "Vueのコンポーネント";
    let toks = Analyzer::new().analyze(text);
    assert_eq!(toks[0].term, "vue");
    let cjk: Vec<(&str, u32, &str)> = toks[1..]
        .iter()
        .map(|t| (t.term.as_str(), t.position, &text[t.start..t.end]))
        .collect();
    assert_eq!(cjk[0], ("のこ", 1, "のコ"));
    assert_eq!(cjk.last().copied(), Some(("んと", 7, "ント")));
    assert!(
        cjk.windows(2).all(|w| w[1].1 == w[0].1 + 1),
        "each bigram has its own position"
    );

    // Punctuation and digits end a run; a run of one is a unigram. A number against a run
    // is also one bigram with the character it touches, at its own position.
    assert_eq!(
        terms("5月から7月"),
        vec!["5", "5月", "月か", "から", "ら7", "7", "7月", "月"]
    );
    assert_eq!(
        at("第2章"),
        [("第", 0), ("第2", 1), ("2", 2), ("2章", 3), ("章", 4)]
            .map(|(t, p)| (t.to_string(), p))
            .to_vec()
    );
    // Only ASCII digits (full-width ones are by then): not letters, not across a space.
    assert_eq!(terms("Vue3 の 2 つ"), vec!["vue3", "の", "2", "つ"]);
    assert_eq!(terms("日本、朝鮮"), vec!["日本", "朝鮮"]);
    // Hangul is bigrammed too.
    assert_eq!(terms("한국어"), vec!["한국", "국어"]);
}

#[test]
fn identifiers_yield_whole_and_parts_at_one_position() {
    let pos = |v: &[(String, u32)], term: &str| v.iter().find(|(t, _)| t == term).map(|(_, p)| *p);
    let v = at("call getElementById now");
    for t in ["getelementbyid", "get", "element", "by", "id"] {
        assert_eq!(pos(&v, t), Some(1), "{t} in {v:?}");
    }
    assert_eq!(pos(&v, "now"), Some(2));

    assert_eq!(
        at("snake_case"),
        at_pairs(&[("snake_case", 0), ("snake", 0), ("case", 0)])
    );
    assert_eq!(
        at("a.b.c"),
        at_pairs(&[("a.b.c", 0), ("a", 0), ("b", 0), ("c", 0)])
    );
    assert_eq!(
        at("std::collections"),
        at_pairs(&[("std::collections", 0), ("std", 0), ("collect", 0)])
    );
    assert_eq!(
        at("v-model"),
        at_pairs(&[("v-model", 0), ("v", 0), ("model", 0)])
    );
    assert_eq!(
        at("HTTPServer"),
        at_pairs(&[("httpserver", 0), ("http", 0), ("server", 0)])
    );
    // A plain word is stemmed as a whole, and so are its parts.
    assert_eq!(
        at("defineProps"),
        at_pairs(&[("defineprop", 0), ("defin", 0), ("prop", 0)])
    );
    assert_eq!(
        at("Get-ChildItem"),
        at_pairs(&[
            ("get-childitem", 0),
            ("get", 0),
            ("childitem", 0),
            ("child", 0),
            ("item", 0)
        ])
    );
    // Plural acronyms are not split; numbers are not split.
    assert_eq!(terms("URLs"), vec!["url"]);
    assert_eq!(terms("3.14 2024-01-31"), vec!["3.14", "2024-01-31"]);
    // Spaced or doubled connectors do not join.
    assert_eq!(terms("foo - bar"), vec!["foo", "bar"]);
    assert_eq!(terms("foo--bar"), vec!["foo", "bar"]);
    assert_eq!(terms("a:::b"), vec!["a", "b"]);
    // No duplicate terms at one position.
    for text in ["a.a.a", "foo_foo", "Get-Get", "model.Model"] {
        let v = at(text);
        let mut seen = v.clone();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), v.len(), "duplicates in {v:?}");
    }
    // Query flags: parts are marked, raw is the unstemmed word.
    let q = Analyzer::new().analyze_query("defineProps");
    assert_eq!(q[0].term, "defineprop");
    assert_eq!(q[0].raw, "defineprops");
    assert!(!q[0].part && q[1..].iter().all(|t| t.part));
    assert_eq!(q[1].raw, "define");
}

fn at_pairs(v: &[(&str, u32)]) -> Vec<(String, u32)> {
    v.iter().map(|(t, p)| (t.to_string(), *p)).collect()
}

#[test]
fn stemming_meets() {
    assert_eq!(terms("running"), vec!["run"]);
    assert_eq!(terms("configuration"), terms("configuring"));
    assert_eq!(terms("Components"), terms("component"));
    let q = Analyzer::new().analyze_query("configura");
    assert_eq!(
        q[0].raw, "configura",
        "raw stays unstemmed for prefix expansion"
    );
    // Words with digits or non-ASCII letters are left alone.
    assert_eq!(terms("vue3 h1s"), vec!["vue3", "h1s"]);
    assert_eq!(terms("don’t"), terms("don't"));
}

#[test]
fn stopwords() {
    let q = Analyzer::new().analyze_query("the of");
    assert_eq!(
        q.iter().map(|t| t.term.as_str()).collect::<Vec<_>>(),
        vec!["the", "of"]
    );
    assert!(q.iter().all(|t| t.stopword));
    let q = Analyzer::new().analyze_query("how to use the router");
    assert_eq!(
        q.iter().map(|t| t.term.as_str()).collect::<Vec<_>>(),
        vec!["use", "router"]
    );
    assert_eq!(q[1].position, 4, "positions count the dropped words");
    // Documents keep them.
    assert_eq!(terms("the router"), vec!["the", "router"]);
    assert!(is_stopword("does") && !is_stopword("doe") && is_stopword("don't"));
    let list = stopwords::STOPWORDS;
    assert!(
        list.windows(2).all(|w| w[0] < w[1]),
        "stop list must be sorted and unique"
    );
    assert_eq!(list.len(), 174);
}

#[test]
fn query_terms_equal_document_terms() {
    let a = Analyzer::new();
    for text in [
        "defineProps returns Elements",
        "ＶＵＥ３のコンポーネント設計",
        "std::collections::HashMap v-model e\u{301}te\u{301} ﬁle ㍿",
        "梅雨は、世界的にどのあたりで見られる気象ですか？",
    ] {
        let d: Vec<_> = a
            .analyze(text)
            .into_iter()
            .map(|t| (t.term, t.position, t.start, t.end))
            .collect();
        let q = a.analyze_query(text);
        assert!(
            q.iter().all(|t| !t.stopword),
            "pick texts without stopwords"
        );
        let q: Vec<_> = q
            .into_iter()
            .map(|t| (t.term, t.position, t.start, t.end))
            .collect();
        assert_eq!(d, q, "{text}");
    }
}

#[test]
fn offsets_slice_the_original() {
    let check = |text: &str, expected: &[(&str, &str)]| {
        let got: Vec<(String, &str)> = Analyzer::new()
            .analyze(text)
            .into_iter()
            .map(|t| (t.term, &text[t.start..t.end]))
            .collect();
        let want: Vec<(String, &str)> = expected.iter().map(|(t, s)| (t.to_string(), *s)).collect();
        assert_eq!(got, want, "{text}");
    };
    check(
        "ＡＰＩの説明",
        &[("api", "ＡＰＩ"), ("の説", "の説"), ("説明", "説明")],
    );
    check("Cafe\u{301} ok", &[("café", "Cafe\u{301}"), ("ok", "ok")]);
    check(
        "ﬁle ｶﾞｲﾄﾞ",
        &[("file", "ﬁle"), ("がい", "ｶﾞｲ"), ("いど", "ｲﾄﾞ")],
    );
    // One character expanding to a whole CJK run: each bigram maps to that character.
    check(
        "x㍿y",
        &[
            ("x", "x"),
            ("株式", "㍿"),
            ("式会", "㍿"),
            ("会社", "㍿"),
            ("y", "y"),
        ],
    );
    check("İstanbul", &[("i\u{307}stanbul", "İstanbul")]);
    check(
        "  getFoo  ",
        &[("getfoo", "getFoo"), ("get", "get"), ("foo", "Foo")],
    );
}

#[test]
fn long_input_is_bounded() {
    let a = Analyzer::new();
    // One word of a million bytes is too long to be a term and has no parts.
    let s = "a".repeat(1 << 20);
    assert!(a.analyze(&s).is_empty());
    // A too-long compound falls apart into words, each at its own position.
    let s = "ab-".repeat(100_000);
    let toks = a.analyze(&s);
    assert_eq!(toks.len(), 100_000);
    assert_eq!(toks.last().map(|t| t.position), Some(99_999));
    let s = "FooBar".repeat(50_000);
    assert_eq!(a.analyze(&s).len(), 100_000);
    // A long CJK run is linear too.
    let s = "あ".repeat(300_000);
    let toks = a.analyze(&s);
    assert_eq!(toks.len(), 299_999);
    assert_eq!(&s[toks[5].start..toks[5].end], "ああ");
    // Exactly at the limit is a term; one byte over is not.
    assert_eq!(terms(&"x".repeat(MAX_TERM_BYTES)).len(), 1);
    assert!(terms(&"x".repeat(MAX_TERM_BYTES + 1)).is_empty());
    // A base letter with endless combining marks is one cluster.
    let s = format!("a{}", "\u{301}".repeat(100_000));
    check_invariants(&s);
}

/// Passages and questions from JSQuAD (the project's Japanese eval set): a question shares
/// bigrams with the passage that answers it.
#[test]
fn jsquad_question_meets_its_passage() {
    let corpus = [
        r#"{"_id": "a10336p0", "title": "梅雨", "text": "梅雨（つゆ、ばいう）は、北海道と小笠原諸島を除く日本、朝鮮半島南部、中国の南部から長江流域にかけての沿海部、および台湾など、東アジアの広範囲においてみられる特有の気象現象で、5月から7月にかけて来る曇りや雨の多い期間のこと。雨季の一種である。", "metadata": {"article": "梅雨", "para_index": 0}}"#,
        r#"{"_id": "a10336p1", "title": "梅雨", "text": "梅雨の時期が始まることを梅雨入りや入梅（にゅうばい）といい、社会通念上・気象学上は春の終わりであるとともに夏の始まり（初夏）とされる。なお、日本の雑節の1つに入梅（6月11日頃）があり、暦の上ではこの日を入梅とするが、これは水を必要とする田植えの時期の目安とされている。また、梅雨が終わることを梅雨明けや出梅（しゅつばい）といい、これをもって本格的な夏（盛夏）の到来とすることが多い。ほとんどの地域では、気象当局が梅雨入りや梅雨明けの発表を行っている。", "metadata": {"article": "梅雨", "para_index": 1}}"#,
    ];
    let queries = [
        (
            r#"{"_id": "a10336p0q0", "text": "日本で梅雨がないのは北海道とどこか。"}"#,
            &["梅雨", "日本", "北海", "海道"][..],
        ),
        (
            r#"{"_id": "a10336p0q1", "text": "梅雨とは何季の一種か?"}"#,
            &["梅雨", "一種"][..],
        ),
        (
            r#"{"_id": "a10336p0q2", "text": "梅雨は、世界的にどのあたりで見られる気象ですか？"}"#,
            &["梅雨", "気象"][..],
        ),
    ];
    let text = |line: &str| -> String {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        v["text"].as_str().unwrap().to_owned()
    };
    let a = Analyzer::new();
    let passage: std::collections::HashSet<String> = a
        .analyze(&text(corpus[0]))
        .into_iter()
        .map(|t| t.term)
        .collect();
    let other: std::collections::HashSet<String> = a
        .analyze(&text(corpus[1]))
        .into_iter()
        .map(|t| t.term)
        .collect();
    for (i, (line, expected)) in queries.into_iter().enumerate() {
        let q = a.analyze_query(&text(line));
        assert!(q.iter().all(|t| t.cjk));
        let shared: Vec<&str> = q
            .iter()
            .map(|t| t.term.as_str())
            .filter(|t| passage.contains(*t))
            .collect();
        for e in expected {
            assert!(shared.contains(e), "{e} not shared: {shared:?}");
        }
        if i < 2 {
            // (The third question's wording also occurs in the neighbouring paragraph.)
            let shared_other = q.iter().filter(|t| other.contains(&t.term)).count();
            assert!(
                shared.len() > shared_other,
                "the answering passage shares more: {shared:?}"
            );
        }
    }
}

#[test]
fn analyzer_is_shareable() {
    fn assert_traits<T: Send + Sync + Clone + Default + std::fmt::Debug>() {}
    assert_traits::<Analyzer>();
}

#[test]
fn upper_and_lower_case_meet_even_with_combining_marks() {
    // Lower-casing `İ` gives `i` + U+0307, which must then be reordered before U+0316
    // (found by the idempotence property).
    assert_eq!(normalize("İ\u{316}"), "i\u{316}\u{307}");
    assert_eq!(terms("İ\u{316}x"), terms("i\u{316}\u{307}x"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_string_keeps_invariants(s in any::<String>()) {
        check_invariants(&s);
    }

    #[test]
    fn mixed_scripts_keep_invariants(
        s in "[a-zA-Z0-9_.:\\- 'ーぁ-んァ-ヶｦ-ﾟ一-龥\u{300}-\u{36f}\u{3099}\u{309a}Ａ-Ｚａ-ｚ０-９㍿ﬁİ가-힣ᄀ-ᇿ\u{200d}]{0,60}"
    ) {
        check_invariants(&s);
    }

    #[test]
    fn normalization_is_idempotent(s in any::<String>()) {
        let once = normalize(&s);
        prop_assert_eq!(normalize(&once), once);
    }

    #[test]
    fn normalization_is_idempotent_on_cjk_and_width_variants(
        s in "[a-zA-Z0-9 ーぁ-んァ-ヶｦ-ﾟ一-龥\u{300}-\u{36f}\u{3099}\u{309a}Ａ-Ｚａ-ｚ０-９㍿ﬁİẞΣς가-힣ᄀ-ᇿ]{0,40}"
    ) {
        let once = normalize(&s);
        prop_assert_eq!(normalize(&once), once);
    }

    #[test]
    fn normalized_text_analyzes_the_same(s in "[a-z0-9_.:\\- ーァ-ヶｦ-ﾟぁ-ん一-龥ａ-ｚ０-９]{0,40}") {
        // Lower-case input, so identifier splitting does not depend on the case that
        // normalize() folds away.
        prop_assert_eq!(terms(&normalize(&s)), terms(&s));
    }
}

/// Throughput on a real corpus: `MIDASHI_BENCH_DIR=<folder of .md> cargo test --release -p
/// midashi-core --lib analyzer::tests::throughput -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    fn collect(dir: &std::path::Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                collect(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.extend(std::fs::read_to_string(&p).ok());
            }
        }
    }
    let dir = std::env::var("MIDASHI_BENCH_DIR")
        .unwrap_or_else(|_| "/work/shared/corpora/vue-docs-ja".into());
    let mut docs = Vec::new();
    collect(std::path::Path::new(&dir), &mut docs);
    let bytes: usize = docs.iter().map(String::len).sum();
    // On-CPU time of this thread (Linux), so a busy shared machine does not skew the
    // figure; wall time where that is unavailable.
    let cpu = || -> f64 {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
            .map_or_else(
                || {
                    std::time::UNIX_EPOCH
                        .elapsed()
                        .unwrap_or_default()
                        .as_secs_f64()
                },
                |ns| ns / 1e9,
            )
    };
    let a = Analyzer::new();
    let (mut best, mut best_q) = (f64::MAX, f64::MAX);
    let (mut tokens, mut qtokens) = (0, 0);
    for _ in 0..5 {
        let t = cpu();
        tokens = docs.iter().map(|d| a.analyze(d).len()).sum::<usize>();
        best = best.min(cpu() - t);
        let t = cpu();
        qtokens = docs.iter().map(|d| a.analyze_query(d).len()).sum::<usize>();
        best_q = best_q.min(cpu() - t);
    }
    let mb = bytes as f64 / 1e6;
    println!(
        "{} files, {mb:.2} MB, {tokens} tokens: analyze {:.1} MB/s ({:.0} ms CPU); analyze_query {:.1} MB/s ({qtokens} tokens)",
        docs.len(),
        mb / best,
        best * 1e3,
        mb / best_q
    );
}

/// Thai, Lao, Khmer and Myanmar have no spaces between words and UAX#29 no dictionary for
/// them: a phrase was one over-long "word", never a term. As bigrams, a word of the phrase
/// finds it.
#[test]
fn scripts_without_spaces_are_searchable() {
    let a = Analyzer::new();
    for (text, word) in [
        ("การตั้งค่าเซิร์ฟเวอร์ของคุณ", "เซิร์ฟเวอร์"),
        ("ການຕັ້ງຄ່າເຊີບເວີ", "ເຊີບເວີ"),
        ("ការកំណត់ម៉ាស៊ីនមេ", "ម៉ាស៊ីនមេ"),
        ("ဆာဗာကိုပြင်ဆင်ခြင်း", "ပြင်ဆင်"),
    ] {
        let doc: Vec<String> = a.analyze(text).into_iter().map(|t| t.term).collect();
        let query = a.analyze_query(word);
        assert!(query.len() > 1, "{word}: {query:?}");
        assert!(
            query.iter().all(|t| t.cjk && doc.contains(&t.term)),
            "{word}"
        );
    }
}

/// The characters of the Latin, Greek and Cyrillic scripts taken as their own lower case
/// are: each lower-cases to itself, and NFKC keeps each (so a word of them needs neither the
/// host's lower case nor its NFKC again).
#[test]
fn characters_taken_as_lower_case_are() {
    let mut n = 0;
    for c in (0u32..0x11_0000)
        .filter_map(char::from_u32)
        .filter(|&c| super::scripts::own_lower_case(c))
    {
        let s = c.to_string();
        assert_eq!(s.to_lowercase(), s, "{c:?}");
        assert_eq!(super::host_unicode::nfkc(&s), s, "{c:?}");
        n += 1;
    }
    assert!(n > 200, "{n}");
}

/// The characters taken as caseless without asking for their lower case have none: every
/// one lower-cases (and upper-cases) to itself.
#[test]
fn caseless_characters_have_no_case() {
    let caseless = (0u32..0x11_0000)
        .filter_map(char::from_u32)
        .filter(|&c| super::normalize::stable(c));
    let mut n = 0;
    for c in caseless {
        let s = c.to_string();
        assert_eq!(s.to_lowercase(), s, "{c:?}");
        assert_eq!(s.to_uppercase(), s, "{c:?}");
        n += 1;
    }
    assert!(n > 20_000, "CJK ideographs and kana: {n}");
}
