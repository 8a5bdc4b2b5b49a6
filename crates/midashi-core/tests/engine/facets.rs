//! Facet counts (`facets: true`): every result counted per category, tag, version and
//! language of its document, most first, alike in both layouts — what the widget offers as
//! filters, each value being what the filter option of the same name takes.

use crate::common;

use midashi_core::answer::FacetCount;
use midashi_core::{Mode, SearchIndex, SearchOptions};

const DOCS: [(&str, &str); 5] = [
    (
        "guide/a.md",
        "---\ntags: [intro, setup]\n---\n# Install\n\nInstall the cache.\n",
    ),
    (
        "guide/b.md",
        "---\ntags: [setup]\n---\n# Configure\n\nConfigure the cache.\n",
    ),
    ("api/c.md", "# Cache API\n\nThe cache object.\n"),
    (
        "2.0/guide/d.md",
        "# Old cache\n\nThe cache in version two.\n",
    ),
    (
        "ja/e.md",
        "---\nlang: ja\n---\n# キャッシュ\n\ncache の説明。\n",
    ),
];

fn indexes() -> [SearchIndex; 2] {
    common::both_layouts(&DOCS)
}

fn counts(v: &[FacetCount]) -> Vec<(&str, u32)> {
    v.iter().map(|c| (c.value.as_str(), c.count)).collect()
}

#[test]
fn results_are_counted_per_facet_value_in_both_layouts() {
    let opts = SearchOptions {
        mode: Mode::Keyword,
        facets: true,
        collapse_versions: false,
        limit: 1,
        ..SearchOptions::default()
    };
    let mut answers = Vec::new();
    for idx in indexes() {
        let r = idx.search("cache", &opts, None).unwrap();
        let f = r.facets.clone().expect("asked for");
        // All results are counted, not just the page of one.
        assert_eq!(r.total, 5);
        // `ja/` is a locale folder: the page's language, not its category; `api/` holds one
        // page, so it names that page rather than a part of the site: no chip.
        assert_eq!(counts(&f.category), [("guide", 3)]);
        assert_eq!(counts(&f.tags), [("setup", 2), ("intro", 1)]);
        assert_eq!(counts(&f.version), [("2.0", 1)]);
        assert_eq!(counts(&f.lang), [("ja", 1)]);
        // A value is what its filter takes: choosing it narrows to its count.
        let narrowed = idx
            .search(
                "cache",
                &SearchOptions {
                    category: Some("guide".into()),
                    ..opts.clone()
                },
                None,
            )
            .unwrap();
        assert_eq!(narrowed.total, 3);
        // Not asked: none.
        assert_eq!(
            idx.search("cache", &SearchOptions::default(), None)
                .unwrap()
                .facets,
            None
        );
        answers.push(f);
    }
    assert_eq!(answers[0], answers[1]);
}
