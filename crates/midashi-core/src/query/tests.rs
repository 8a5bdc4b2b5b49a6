use super::*;
use crate::build::{IndexBuilder, IndexSettings, Layout};
use crate::format::{decode, FileKind};
use crate::layout::single::dictionary::Dictionary;
use crate::layout::single::TermsData;
use crate::query::lexicon::{fst_checksum_ok, open_dictionary};
use crate::section::{Document, Hints, Section, SectionId};
use fst::Map;

/// Our checksum of a term dictionary agrees with fst's own `verify` on whole and on
/// damaged dictionaries, byte by byte.
#[test]
fn fst_checksum_agrees_with_fst_verify() {
    let mut b = fst::MapBuilder::memory();
    for (i, w) in ["async", "await", "closure", "trait", "見出し"]
        .iter()
        .enumerate()
    {
        b.insert(w, i as u64).unwrap();
    }
    let bytes = b.into_inner().unwrap();
    assert!(fst_checksum_ok(&bytes));
    assert!(Map::new(bytes.clone()).unwrap().as_fst().verify().is_ok());
    for i in 0..bytes.len() {
        let mut d = bytes.clone();
        d[i] ^= 0x5a;
        let ours = fst_checksum_ok(&d);
        assert!(!ours, "byte {i}");
        if let Ok(m) = Map::new(d) {
            assert_eq!(m.as_fst().verify().is_ok(), ours, "byte {i}");
        }
    }
    assert!(!fst_checksum_ok(&bytes[..3]));
    assert!(open_dictionary("terms.x.bin", bytes[..bytes.len() - 1].to_vec()).is_err());
}

/// A one-section document of `text`.
fn doc(path: &str, text: &str) -> Document {
    Document {
        path: path.into(),
        url: format!("/{path}"),
        title: path.into(),
        source: text.into(),
        sections: vec![Section {
            id: SectionId::new(path, &[], 0),
            doc_path: path.into(),
            url: format!("/{path}"),
            anchor: None,
            heading: path.into(),
            depth: 0,
            heading_path: vec![path.into()],
            parent: None,
            order: 0,
            section_number: 1,
            start_line: 1,
            end_line: 1,
            own_end_line: 1,
            text: text.into(),
            code: String::new(),
            hints: Hints::default(),
            token_estimate: 1,
        }],
        weight: 1.0,
    }
}

/// Plans `query` against an index of `texts` (single-file: the plan reads its terms file).
fn plan_for(texts: &[&str], query: &str, opts: PlanOptions) -> QueryPlan {
    let mut b = IndexBuilder::new(IndexSettings {
        layout: Layout::Single,
        ..IndexSettings::default()
    });
    for (i, t) in texts.iter().enumerate() {
        b.add(doc(&format!("d{i}.md"), t));
    }
    let out = b.build().unwrap();
    let terms = &out
        .files
        .iter()
        .find(|(n, _)| n.starts_with("terms"))
        .unwrap()
        .1;
    let data: TermsData = decode(FileKind::Terms, "terms", terms).unwrap();
    let map = Map::new(data.fst.clone()).unwrap();
    plan(
        &Analyzer::new(),
        &Dictionary {
            map: &map,
            data: &data,
        },
        query,
        opts,
    )
}

const ALL: PlanOptions = PlanOptions {
    prefix: true,
    fuzzy: true,
};

#[test]
#[cfg(feature = "typos")]
fn typo_corrections_are_bounded_per_word_and_per_query() {
    // Many dictionary words one edit away from "pagenation".
    let words: Vec<String> = (b'a'..=b'z')
        .map(|c| format!("pagenati{}n", c as char))
        .collect();
    let text = words.join(" ");
    let p = plan_for(&[&text], "pagenatin", ALL);
    assert_eq!(p.clauses.len(), 1);
    assert!(p.clauses[0].alternatives.len() <= MAX_FUZZY_EXPANSIONS + MAX_PREFIX_EXPANSIONS);
    let p = plan_for(&[&text], "pagenatin ", ALL);
    assert_eq!(p.clauses[0].alternatives.len(), MAX_FUZZY_EXPANSIONS);

    // Only the first MAX_FUZZY_WORDS unknown words are corrected.
    let query = ["pagenatin"; MAX_FUZZY_WORDS + 3].join(" ") + " ";
    let p = plan_for(&[&text], &query, ALL);
    assert_eq!(p.clauses.len(), MAX_FUZZY_WORDS);
    let uncorrected = p.unknown.iter().filter(|u| u.2.is_none()).count();
    assert_eq!(uncorrected, 3, "the rest stay uncorrected");
}

#[test]
fn completions_are_bounded_per_word_and_per_query() {
    let text: String = (0..500).map(|i| format!("config{i} ")).collect();
    let p = plan_for(&[&text], "conf", ALL);
    assert_eq!(p.clauses.len(), 1);
    assert_eq!(p.clauses[0].alternatives.len(), MAX_PREFIX_EXPANSIONS);
    // Lone CJK characters are each prefix-expanded, within one budget for the query.
    let cjk: String = (0..3000u32)
        .map(|i| char::from_u32(0x4e00 + i).unwrap().to_string() + "あ ")
        .collect();
    let query: String = (0..MAX_QUERY_TERMS).map(|i| format!("あ {i} ")).collect();
    let p = plan_for(&[&cjk], &query, ALL);
    let alternatives: usize = p.clauses.iter().map(|c| c.alternatives.len()).sum();
    assert!(alternatives <= MAX_QUERY_TERMS * MAX_PREFIX_EXPANSIONS);
    assert!(p.clauses.len() <= MAX_QUERY_TERMS);
}

/// Built without typo corrections (the keyword modules), planning hands over to
/// the full engine exactly the queries with a word it would try to correct; with them,
/// it never does. Run both ways by scripts/test.sh.
#[test]
fn without_typos_exactly_the_words_to_correct_need_the_full_engine() {
    let text = "pagination configuration install";
    let fuzzy_off = PlanOptions {
        prefix: true,
        fuzzy: false,
    };
    for (query, opts, wanted) in [
        ("paginaton ", ALL, true),
        ("paginaton", ALL, true),
        ("zzzzzzz configuration ", ALL, true),
        ("paginaton ", fuzzy_off, false),
        ("configuration install ", ALL, false),
        // Being typed, with completions: not a typo yet.
        ("configuration instal", ALL, false),
        // Too short and too long for corrections.
        ("xyz ", ALL, false),
        ("qqqqqqqqqqqqqqqqqqqqqqqqq ", ALL, false),
    ] {
        let p = plan_for(&[text], query, opts);
        let wanted = wanted && !cfg!(feature = "typos");
        assert_eq!(p.needs_corrections, wanted, "{query:?}");
        assert_eq!(
            p.runs_here().map_err(|e| e.code()),
            if wanted {
                Err("NEEDS_FULL_ENGINE")
            } else {
                Ok(())
            },
            "{query:?}"
        );
    }
    if cfg!(feature = "typos") {
        let p = plan_for(&[text], "paginaton ", ALL);
        assert_eq!(p.unknown, vec![(0, 9, Some("pagination".to_string()))]);
    }
}

/// Swapped adjacent letters are one edit (#23): each of these finds its word, and the
/// correction never outweighs an exact hit.
#[test]
#[cfg(feature = "typos")]
fn transposed_letters_are_corrected_as_one_edit() {
    let text = "search the tokenizer settings with serializer options";
    for (typed, wanted) in [
        ("serach ", "search"),
        ("searhc ", "search"),
        ("saerch ", "search"),
        ("esarch ", "search"),
        ("tokenzier ", "tokenizer"),
        ("stetings ", "settings"),
    ] {
        let p = plan_for(&[text], typed, ALL);
        let unknown = &p.unknown;
        assert_eq!(unknown.len(), 1, "{typed:?}");
        assert_eq!(unknown[0].2.as_deref(), Some(wanted), "{typed:?}");
        let weights: Vec<f32> = p.clauses[0]
            .alternatives
            .iter()
            .map(|a| a.terms[0].weight)
            .collect();
        assert!(weights.iter().all(|&w| w < 1.0), "{typed:?}: {weights:?}");
    }
    // Two swaps are two edits: a short word gets none.
    let p = plan_for(&[text], "esarhc ", ALL);
    assert_eq!(p.unknown[0].2, None);
}

/// Queries on an index in a language other than English are read by that language's rules
/// (feature `languages`, the full engine); a build without them (the keyword modules) hands
/// the query over rather than read it by English rules, which would miss its inflections.
/// Run both ways by scripts/test.sh.
#[test]
fn another_languages_index_needs_a_build_that_stems_it() {
    use crate::analyzer::{Analyzer, Language};
    assert!(Analyzer::for_index(&[], None).is_ok());
    assert!(Analyzer::for_index(&[Language::English], Some("fr")).is_ok());
    for langs in [
        &[Language::French][..],
        &[Language::English, Language::German][..],
    ] {
        let got = Analyzer::for_index(langs, None).map_err(|e| e.code());
        if cfg!(feature = "languages") {
            assert!(got.is_ok(), "{langs:?}");
        } else {
            assert_eq!(got, Err("NEEDS_FULL_ENGINE"), "{langs:?}");
        }
    }
}

#[test]
fn bigrams_written_in_hiragana_weigh_half() {
    let text = "コレラが蔓延したものである。プロパティを使う。";
    let p = plan_for(&[text], "蔓延したものはプロパティ。", ALL);
    let weight = |term: &str| {
        p.clauses
            .iter()
            .flat_map(|c| c.alternatives.iter())
            .flat_map(|a| a.terms.iter())
            .find(|t| t.term == term)
            .map(|t| t.weight)
    };
    assert_eq!(weight("蔓延"), Some(1.0), "kanji");
    assert_eq!(weight("延し"), Some(1.0), "kanji and hiragana");
    assert_eq!(weight("した"), Some(HIRAGANA_BIGRAM_WEIGHT), "grammar");
    assert_eq!(weight("もの"), Some(HIRAGANA_BIGRAM_WEIGHT));
    // Katakana is folded to hiragana in the index, but the query wrote it in katakana.
    assert_eq!(weight("ぷろ"), Some(1.0), "katakana");
    // The clauses say which are grammar (coverage leaves them out).
    let grammar = |term: &str| {
        p.clauses
            .iter()
            .find(|c| c.alternatives.iter().any(|a| a.terms[0].term == term))
            .map(|c| c.grammar)
    };
    assert_eq!(grammar("した"), Some(true));
    assert_eq!(grammar("延し"), Some(false));
    assert_eq!(grammar("ぷろ"), Some(false), "katakana is content");
    // A query of English words is untouched.
    let p = plan_for(&["the borrow checker"], "borrow checker", ALL);
    assert!(p
        .clauses
        .iter()
        .all(|c| c.alternatives[0].terms[0].weight == 1.0));
}

#[test]
fn a_word_typed_whole_weighs_its_completions_less() {
    let texts = [
        "The package manifest.",
        "package-features and packaging notes.",
    ];
    let weights = |query: &str| -> Vec<(String, f32)> {
        let p = plan_for(&texts, query, ALL);
        p.clauses
            .last()
            .unwrap()
            .alternatives
            .iter()
            .map(|a| (a.terms[0].term.clone(), a.terms[0].weight))
            .collect()
    };
    // `package` is a word of the site: it stays whole, its completions weigh less.
    let whole = weights("cargo package");
    assert!(whole.iter().any(|(_, w)| *w == 1.0), "{whole:?}");
    let completions: Vec<f32> = whole.iter().map(|(_, w)| *w).filter(|&w| w < 1.0).collect();
    assert!(!completions.is_empty(), "{whole:?}");
    assert!(
        completions.iter().all(|&w| w == PREFIX_WEIGHT_AFTER_WORD),
        "{whole:?}"
    );
    // `packa` is no word: its completions are what the reader is typing.
    let partial = weights("cargo packa");
    assert!(!partial.is_empty());
    assert!(
        partial.iter().all(|(_, w)| *w == PREFIX_WEIGHT),
        "{partial:?}"
    );
}
