//! Query operators end to end on a built index: `"a phrase"` matches its words in order
//! and next to each other, `-word` leaves out every section holding it, in English and
//! Japanese, in both layouts (the sharded one checks a phrase in its sections' bundles).

use crate::common;

use midashi_core::{Mode, SearchIndex, SearchOptions};

const DOCS: [(&str, &str); 4] = [
    (
        "borrow.md",
        "# Borrowing\n\n## The checker\n\nThe borrow checker compares scopes.\n\n## Reversed\n\nA checker can borrow a value for a while.\n",
    ),
    (
        "unsafe.md",
        "# Unsafe\n\n## Raw pointers\n\nThe borrow checker does not check raw pointers in unsafe code.\n",
    ),
    (
        "ja.md",
        "---\nlang: ja\n---\n\n# 算出\n\n## 算出プロパティ\n\n算出プロパティはキャッシュされます。\n\n## 別の話\n\nプロパティを算出する関数です。\n",
    ),
    (
        "other.md",
        "# Other\n\n## Scopes\n\nScopes end at a closing brace; the checker knows.\n",
    ),
];

fn indexes() -> [SearchIndex; 2] {
    common::both_layouts(&DOCS)
}

fn headings(idx: &SearchIndex, q: &str) -> Vec<String> {
    let opts = SearchOptions {
        mode: Mode::Keyword,
        group: false,
        limit: 50,
        ..SearchOptions::default()
    };
    let r = idx.search(q, &opts, None).unwrap();
    assert_eq!(r.total, r.results.len(), "{q}");
    r.results.into_iter().map(|h| h.heading).collect()
}

#[test]
fn a_phrase_matches_its_words_in_order_and_next_to_each_other() {
    for idx in indexes() {
        let mut got = headings(&idx, "\"borrow checker\"");
        got.sort();
        assert_eq!(
            got,
            ["Raw pointers", "The checker"],
            "sharded: {}",
            idx.is_sharded()
        );
        // Without quotes, the reversed order and the lone "checker" match too.
        let loose = headings(&idx, "borrow checker");
        assert!(loose.contains(&"Reversed".to_string()), "{loose:?}");
        // A phrase with a word found nowhere matches nothing; stemming still applies.
        assert!(headings(&idx, "\"borrow zebra\"").is_empty());
        assert_eq!(
            headings(&idx, "\"borrowing\" \"checkers compare\""),
            ["The checker"]
        );
    }
}

#[test]
fn an_excluded_word_leaves_out_every_section_holding_it() {
    for idx in indexes() {
        let got = headings(&idx, "checker -unsafe");
        assert!(!got.is_empty());
        assert!(!got.iter().any(|h| h == "Raw pointers"), "{got:?}");
        assert!(headings(&idx, "checker").contains(&"Raw pointers".to_string()));
        // Phrase and exclusion together; excluded words alone are read as words (a
        // parameter or flag typed as written: `-Recurse`, `-v`).
        assert_eq!(
            headings(&idx, "\"borrow checker\" -unsafe"),
            ["The checker"]
        );
        assert!(headings(&idx, "-unsafe").contains(&"Raw pointers".to_string()));
        assert_eq!(headings(&idx, "-unsafe"), headings(&idx, "unsafe"));
        // A dash inside a word is text, not an operator.
        assert!(headings(&idx, "borrow-checker").contains(&"The checker".to_string()));
    }
}

#[test]
fn japanese_phrases_and_exclusions() {
    for idx in indexes() {
        assert_eq!(headings(&idx, "「算出プロパティ」"), ["算出プロパティ"]);
        assert_eq!(headings(&idx, "\"算出プロパティ\""), ["算出プロパティ"]);
        let loose = headings(&idx, "算出 プロパティ");
        assert!(loose.contains(&"別の話".to_string()), "{loose:?}");
        let got = headings(&idx, "算出 プロパティ -キャッシュ");
        assert!(
            got.contains(&"別の話".to_string()) && !got.contains(&"算出プロパティ".to_string()),
            "{got:?}"
        );
    }
}
