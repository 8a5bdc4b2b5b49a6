//! Each page's words are made terms by its own language's rules (Snowball stemmer, stop
//! list), and queries are read by the reader's language's rules with the index's other
//! languages tried too — in both layouts alike. The entry file names the languages.

use crate::common;

use midashi_core::{Mode, SearchIndex, SearchOptions};

const DOCS: [(&str, &str); 5] = [
    (
        "fr/routeur.md",
        "---\nlang: fr\n---\n# Options avancées du routeur\n\nLe routeur accepte des réglages avancés.\n",
    ),
    (
        "fr/installation.md",
        "---\nlang: fr-CA\n---\n# Installation\n\nInstallez l'application avec npm.\n",
    ),
    (
        "fr/guide.md",
        "---\nlang: fr\n---\n# Guide\n\nLisez les guides.\n",
    ),
    (
        "guide/router.md",
        "# Router options\n\nThe router takes advanced settings.\n",
    ),
    (
        "de/komponenten.md",
        "---\nlang: de\n---\n# Komponenten\n\nEine Komponente registrieren.\n",
    ),
];

fn paths(idx: &SearchIndex, query: &str, prefer: Option<&str>) -> Vec<String> {
    let opts = SearchOptions {
        mode: Mode::Keyword,
        group: false,
        prefer_lang: prefer.map(str::to_string),
        ..SearchOptions::default()
    };
    let mut out: Vec<String> = Vec::new();
    for h in idx.search(query, &opts, None).unwrap().results {
        if !out.contains(&h.path) {
            out.push(h.path);
        }
    }
    out
}

#[test]
fn the_entry_names_the_languages_the_sites_first() {
    let [single, sharded] = common::both_layouts(&DOCS);
    for idx in [&single, &sharded] {
        assert_eq!(idx.manifest().languages, ["fr", "en", "de"]);
    }
    let [english, _] = common::both_layouts(&DOCS[3..4]);
    assert!(english.manifest().languages.is_empty());
}

#[test]
fn inflections_match_by_the_pages_own_rules() {
    let [single, sharded] = common::both_layouts(&DOCS);
    for idx in [&single, &sharded] {
        // avancé ~ avancées ~ avancés: the French stemmer; English rules leave them apart.
        assert_eq!(paths(idx, "avancé", None), ["fr/routeur.md"]);
        assert_eq!(paths(idx, "réglage", None), ["fr/routeur.md"]);
        // l'application is application; applications is too.
        assert_eq!(paths(idx, "applications", None), ["fr/installation.md"]);
        assert_eq!(paths(idx, "le routeur", None)[0], "fr/routeur.md");
        assert_eq!(paths(idx, "lisez les guides", None)[0], "fr/guide.md");
    }
}

#[test]
fn a_reader_in_another_language_still_finds_every_pages_words() {
    let [single, sharded] = common::both_layouts(&DOCS);
    for idx in [&single, &sharded] {
        // Read by English rules, with French and German terms tried too.
        assert_eq!(paths(idx, "Komponente", Some("en")), ["de/komponenten.md"]);
        assert_eq!(paths(idx, "avancé", Some("en")), ["fr/routeur.md"]);
        let router = paths(idx, "router settings", Some("en"));
        assert_eq!(router[0], "guide/router.md", "{router:?}");
    }
    // The German page's words are marked by its own rules on a query read by English ones.
    for idx in [&single, &sharded] {
        let opts = SearchOptions {
            mode: Mode::Keyword,
            prefer_lang: Some("en".into()),
            ..SearchOptions::default()
        };
        let r = idx.search("Komponente", &opts, None).unwrap();
        let hit = &r.results[0];
        assert_eq!(hit.path, "de/komponenten.md");
        assert!(!hit.highlights.is_empty(), "{hit:?}");
        assert!(hit.excerpt_highlights.len() == 1, "{hit:?}");
    }
    for (query, prefer) in [
        ("options", Some("en")),
        ("options", Some("fr")),
        ("avancée", None),
    ] {
        assert_eq!(
            paths(&single, query, prefer),
            paths(&sharded, query, prefer),
            "{query}"
        );
    }
}

/// An entry file naming a language this build does not know (a newer minor's) is read as
/// the format promises for what a reader leaves unread: that language by the English rules,
/// the languages it knows by theirs; nothing fails.
#[test]
fn an_unknown_language_in_the_entry_reads_by_english_rules() {
    use midashi_core::build::{IndexBuilder, IndexSettings, Layout};
    use midashi_core::format::Manifest;
    use std::collections::HashMap;
    let mut b = IndexBuilder::new(IndexSettings {
        layout: Layout::Single,
        ..IndexSettings::default()
    });
    for (path, src) in DOCS {
        b.add(midashi_markdown::parse_document(path, src, &Default::default()).0);
    }
    let mut files: HashMap<String, Vec<u8>> = b.build().unwrap().files.into_iter().collect();
    let entry = files.get_mut("midashi-entry.bin").unwrap();
    let mut manifest = Manifest::decode(entry).unwrap();
    manifest.languages = vec!["xx".into(), "fr".into(), "en".into()];
    *entry = manifest.encode().unwrap();
    let idx = common::open_built(&files);
    // French is still read by its rules (it is among the languages), the rest as English.
    assert_eq!(paths(&idx, "avancé", None), ["fr/routeur.md"]);
    assert_eq!(paths(&idx, "router settings", None)[0], "guide/router.md");
}
