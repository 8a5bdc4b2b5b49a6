//! The reader's language first (`prefer_lang`): on a site with pages in several languages,
//! results in the wanted one come first, untagged pages next, the rest after — in both
//! layouts alike, nothing left out, pages cut after the reorder.

use crate::common;

use midashi_core::{Mode, SearchIndex, SearchOptions};

const DOCS: [(&str, &str); 5] = [
    (
        "guide/cache.md",
        "# Cache\n\nThe cache keeps answers. The cache is fast, the cache is small.\n",
    ),
    ("guide/more.md", "# More\n\nA cache note.\n"),
    (
        "ja/cache.md",
        "---\nlang: ja-JP\n---\n# キャッシュ\n\ncache の説明。\n",
    ),
    (
        "fr/cache.md",
        "---\nlang: fr\n---\n# Le cache\n\nLe cache garde les réponses. cache cache.\n",
    ),
    (
        "ja/more.md",
        "---\nlang: ja\n---\n# もっと\n\ncache について。\n",
    ),
];

/// The results' documents, each once, in the order of their first section.
fn paths(idx: &SearchIndex, opts: &SearchOptions) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for h in sections(idx, opts) {
        if !out.contains(&h) {
            out.push(h);
        }
    }
    out
}

/// Every result's document (a page and its heading may both match).
fn sections(idx: &SearchIndex, opts: &SearchOptions) -> Vec<String> {
    let r = idx.search("cache", opts, None).unwrap();
    r.results.into_iter().map(|h| h.path).collect()
}

fn opts(prefer: Option<&str>) -> SearchOptions {
    SearchOptions {
        mode: Mode::Keyword,
        group: false,
        prefer_lang: prefer.map(str::to_string),
        ..SearchOptions::default()
    }
}

#[test]
fn the_wanted_language_comes_first_then_untagged_pages_then_the_rest() {
    let [single, sharded] = common::both_layouts(&DOCS);
    for idx in [&single, &sharded] {
        let plain = paths(idx, &opts(None));
        assert_eq!(plain.len(), 5, "{plain:?}");
        let ja = paths(idx, &opts(Some("ja")));
        // ja and ja-JP first, in their own order; then the untagged English pages; then fr.
        let (first, rest) = ja.split_at(2);
        let mut first = first.to_vec();
        first.sort();
        assert_eq!(first, ["ja/cache.md", "ja/more.md"], "{ja:?}");
        let english: Vec<&String> = plain.iter().filter(|p| p.starts_with("guide/")).collect();
        assert_eq!(rest[..2].iter().collect::<Vec<_>>(), english, "{ja:?}");
        assert_eq!(rest[2], "fr/cache.md");
        // Within the wanted language the engine's order stands.
        let ja_plain: Vec<&String> = plain.iter().filter(|p| p.starts_with("ja/")).collect();
        assert_eq!(ja[..2].iter().collect::<Vec<_>>(), ja_plain);
        // Untagged pages are the site's main language: a French reader sees them before ja.
        let fr = paths(idx, &opts(Some("fr-CA")));
        assert_eq!(fr[0], "fr/cache.md");
        assert!(
            fr[1].starts_with("guide/") && fr[2].starts_with("guide/"),
            "{fr:?}"
        );
    }
    assert_eq!(
        paths(&single, &opts(Some("ja"))),
        paths(&sharded, &opts(Some("ja")))
    );
}

#[test]
fn nothing_is_left_out_and_pages_follow_the_new_order() {
    let [single, sharded] = common::both_layouts(&DOCS);
    for idx in [&single, &sharded] {
        let all = sections(idx, &opts(Some("ja")));
        let mut paged = Vec::new();
        for offset in 0..all.len() + 1 {
            let page = SearchOptions {
                limit: 1,
                offset,
                ..opts(Some("ja"))
            };
            paged.extend(sections(idx, &page));
        }
        assert_eq!(paged, all);
        let total = idx.search("cache", &opts(Some("ja")), None).unwrap().total;
        assert_eq!(total, idx.search("cache", &opts(None), None).unwrap().total);
    }
}

#[test]
fn an_empty_or_unknown_language_changes_nothing() {
    let [single, _] = common::both_layouts(&DOCS);
    let plain = paths(&single, &opts(None));
    assert_eq!(paths(&single, &opts(Some(""))), plain);
    // No page is in German: the untagged pages (the site's main language) come before the
    // tagged ones, every page still there.
    let de = paths(&single, &opts(Some("de")));
    assert_eq!(de.len(), plain.len());
    assert!(de[..2].iter().all(|p| p.starts_with("guide/")), "{de:?}");
}
