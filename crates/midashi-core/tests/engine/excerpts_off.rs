//! `excerpts: false`: the same results, in the same order, with the same scores, previews
//! and highlights, only without excerpts — in both layouts.

use crate::common;

use midashi_core::{SearchOptions, SearchResponse};

const DOCS: [(&str, &str); 3] = [
    (
        "guide/cache.md",
        "# Caching\n\nThe cache keeps answers.\n\n## Cache keys\n\nA key names an answer in the cache.\n",
    ),
    ("guide/other.md", "# Other\n\nNothing about it here, but a key.\n"),
    ("ja/cache.md", "---\nlang: ja\n---\n# キャッシュ\n\ncache の説明。\n"),
];

fn ask(index: &midashi_core::SearchIndex, query: &str, excerpts: bool) -> SearchResponse {
    let opts = SearchOptions {
        excerpts,
        ..SearchOptions::default()
    };
    index.search(query, &opts, None).unwrap()
}

#[test]
fn results_without_excerpts_are_the_same_results() {
    for index in common::both_layouts(&DOCS) {
        for query in ["cache key", "cache", "キャッシュ", "answers"] {
            let with = ask(&index, query, true);
            let without = ask(&index, query, false);
            assert!(!with.results.is_empty(), "{query}");
            assert!(
                with.results.iter().any(|h| !h.excerpt.is_empty()),
                "{query}"
            );
            assert_eq!(with.total, without.total);
            assert_eq!(with.results.len(), without.results.len());
            for (a, b) in with.results.iter().zip(&without.results) {
                assert!(b.excerpt.is_empty() && b.excerpt_highlights.is_empty());
                assert_eq!(b.excerpt_line, b.start_line);
                let mut a = a.clone();
                a.excerpt = String::new();
                a.excerpt_highlights = Vec::new();
                a.excerpt_line = a.start_line;
                assert_eq!(&a, b, "{query}");
            }
        }
    }
}
