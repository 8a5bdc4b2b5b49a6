//! Ranking behaviour end to end on small Markdown sites: Markdown → sections → index bytes →
//! loaded index → queries. (Here rather than in midashi-core because it needs the sectioner.)

use midashi_core::build::{IndexBuilder, IndexSettings, Layout, Synonyms};
use midashi_core::format::FileKind;
use midashi_core::{Mode, SearchIndex, SearchOptions, SearchResponse};
use midashi_markdown::{parse_document, Options};

fn index(pages: &[(&str, &str)], synonyms: &str) -> SearchIndex {
    let mut b = IndexBuilder::new(IndexSettings {
        synonyms: Synonyms::parse(synonyms).unwrap(),
        // In memory, one file set; the sharded layout answers the same (core's tests/engine/sharded.rs).
        layout: Layout::Single,
        ..IndexSettings::default()
    });
    for (path, src) in pages {
        b.add(parse_document(path, src, &Options::default()).0);
    }
    let out = b.build().unwrap();
    let file = |k: FileKind| {
        let name = &out.manifest.file(k).unwrap().name;
        out.files.iter().find(|(n, _)| n == name).unwrap().1.clone()
    };
    SearchIndex::from_manifest(
        out.manifest.clone(),
        &file(FileKind::Terms),
        &file(FileKind::Sections),
    )
    .unwrap()
}

fn search(idx: &SearchIndex, q: &str, prefix: bool) -> SearchResponse {
    let opts = SearchOptions {
        prefix,
        mode: Mode::Keyword,
        ..SearchOptions::default()
    };
    idx.search(q, &opts, None).unwrap()
}

fn headings(r: &SearchResponse) -> Vec<&str> {
    r.results.iter().map(|h| h.heading.as_str()).collect()
}

const SITE: &[(&str, &str)] = &[
    (
        "guide/config.md",
        "# Configuration\n\nHow to configure the site.\n\n## Output format\n\nThe format of the output files.\n",
    ),
    (
        "guide/forms.md",
        "# Forms\n\nA form for input, for the users.\n\n## Form validation\n\nValidate each form field.\n",
    ),
    (
        "guide/paging.md",
        "# Pagination\n\nSplit long lists into pages with pagination.\n\n## Offsets\n\nSkip results.\n",
    ),
    (
        "ja/computed.md",
        "# 算出プロパティ\n\n算出プロパティはキャッシュされます。\n",
    ),
];

#[test]
fn the_word_being_typed_completes_without_unrelated_stems() {
    let idx = index(SITE, "");
    let r = search(&idx, "configura", true);
    assert_eq!(r.results[0].path, "guide/config.md", "{:?}", headings(&r));
    // "format" must not expand to the stems "form" or the stopword "for".
    let r = search(&idx, "format", true);
    assert!(
        r.results.iter().all(|h| h.path == "guide/config.md"),
        "{:?}",
        headings(&r)
    );
    for h in &r.results {
        for [a, b] in &h.highlights {
            let marked: String = String::from_utf16_lossy(
                &h.preview.encode_utf16().collect::<Vec<_>>()[*a as usize..*b as usize],
            );
            assert!(
                marked.to_lowercase().starts_with("format"),
                "marked {marked:?}"
            );
        }
    }
    // Without prefix expansion, a partial word finds nothing exact.
    let r = search(&idx, "configura", false);
    assert!(r.results.is_empty() || r.results[0].path == "guide/config.md");
}

#[test]
fn typos_are_forgiven_but_never_beat_exact_hits() {
    let idx = index(SITE, "");
    let r = search(&idx, "paginaton", false);
    assert_eq!(r.results[0].path, "guide/paging.md");
    assert_eq!(r.suggestions, vec!["pagination".to_string()]);
    // An exact hit outranks a typo-correction of another word.
    let r = search(&idx, "form", false);
    assert_eq!(r.results[0].path, "guide/forms.md");
}

#[test]
fn exact_heading_matches_come_first_and_passages_are_not_repeated() {
    let idx = index(SITE, "");
    let r = search(&idx, "form validation", false);
    assert_eq!(r.results[0].heading, "Form validation");
    // The H1 "Forms" has text of its own ("A form for input"): a second passage, listed
    // after the H2. The document's title over it has none: it would repeat "Forms", and is
    // left out.
    let shown: Vec<(&str, &str)> = r
        .results
        .iter()
        .map(|h| (h.path.as_str(), h.heading.as_str()))
        .collect();
    assert_eq!(
        shown,
        vec![
            ("guide/forms.md", "Form validation"),
            ("guide/forms.md", "Forms")
        ],
        "{shown:?}"
    );
}

#[test]
fn kana_forms_meet_and_synonyms_apply_at_query_time() {
    let idx = index(SITE, "ページング = pagination\n");
    let r = search(&idx, "ぷろぱてぃ", false);
    assert_eq!(r.results[0].path, "ja/computed.md");
    let r = search(&idx, "ページング", false);
    assert_eq!(r.results[0].path, "guide/paging.md", "{:?}", headings(&r));
}

#[test]
fn filters_limit_and_offset() {
    let idx = index(SITE, "");
    let all = search(&idx, "form format pagination", false);
    assert!(all.total >= 2);
    let opts = SearchOptions {
        depth: vec![2],
        prefix: false,
        ..SearchOptions::default()
    };
    let r = idx.search("form format pagination", &opts, None).unwrap();
    assert!(r.results.iter().all(|h| h.depth == 2));
    let opts = SearchOptions {
        path: Some("ja/".into()),
        ..SearchOptions::default()
    };
    assert_eq!(
        idx.search("form format pagination", &opts, None)
            .unwrap()
            .total,
        0
    );
    let opts = SearchOptions {
        limit: 1,
        offset: 1,
        prefix: false,
        ..SearchOptions::default()
    };
    let page = idx.search("form format pagination", &opts, None).unwrap();
    assert_eq!(page.results.len(), 1);
    assert_eq!(page.results[0].id, all.results[1].id);
    assert_eq!(page.total, all.total);
    let err = idx
        .search(
            "form format pagination",
            &SearchOptions {
                limit: 0,
                ..SearchOptions::default()
            },
            None,
        )
        .unwrap_err();
    assert_eq!(err.code(), "INVALID_OPTION");
    let err = idx
        .search(
            "form format pagination",
            &SearchOptions {
                mode: Mode::Semantic,
                ..SearchOptions::default()
            },
            None,
        )
        .unwrap_err();
    assert_eq!(err.code(), "SEMANTIC_UNAVAILABLE");
}
