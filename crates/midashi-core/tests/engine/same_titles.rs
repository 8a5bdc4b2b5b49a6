//! Of two pages titled exactly what was typed, the one with more sections is where the topic
//! is treated (`rank::headings`): the guide's page, not a tutorial step of the same title whose
//! few lines repeat the word. Of two sections headed so, the shallower: a page's h2 before
//! another page's h3.

use crate::common;

use midashi_core::{Mode, SearchOptions};

const DOCS: [(&str, &str); 2] = [
    (
        "tutorial/step-10.md",
        "# Watchers\n\nWatchers watch. Add a watcher; the watcher runs when the watched value changes.\n",
    ),
    (
        "guide/essentials.md",
        "# Watchers\n\nReacting to changes of state.\n\n## Basic example\n\nCall it with a source.\n\n\
         ## Deep watchers\n\nNested properties too.\n\n## Eager watchers\n\nRun at once.\n\n\
         ## Stopping a watcher\n\nCall the returned function.\n",
    ),
];

/// The first result's path and heading for `query`, in each layout.
fn first(docs: &[(&str, &str)], query: &str) -> Vec<(String, String)> {
    let opts = SearchOptions {
        mode: Mode::Keyword,
        limit: 5,
        ..SearchOptions::default()
    };
    common::both_layouts(docs)
        .iter()
        .map(|idx| {
            let r = idx.search(query, &opts, None).unwrap();
            let top = r.results.first().expect("results");
            (top.path.clone(), top.heading.clone())
        })
        .collect()
}

#[test]
fn of_two_pages_titled_alike_the_longer_comes_first() {
    for top in first(&DOCS, "watchers") {
        assert_eq!(top, ("guide/essentials.md".into(), "Watchers".into()));
    }
}

const SECTIONS: [(&str, &str); 2] = [
    (
        "guide/rendering.md",
        "# Render functions\n\n## Events\n\nListeners.\n\n### Event modifiers\n\n\
         Event modifiers in render functions: event modifiers are written as prefixes.\n",
    ),
    (
        "guide/handling.md",
        "# Handling input\n\n## Event modifiers\n\nStop or prevent with a suffix.\n\n\
         ## Key modifiers\n\nKeys by name.\n",
    ),
];

#[test]
fn of_two_sections_headed_alike_the_shallower_comes_first() {
    for top in first(&SECTIONS, "event modifiers") {
        assert_eq!(top, ("guide/handling.md".into(), "Event modifiers".into()));
    }
}

const MISSPELT: [(&str, &str); 2] = [
    (
        "guide/observe.md",
        "# Watchers\n\nReacting to changes of state.\n\n## Deep watchers\n\nDeep watchers \
         watch nested properties: deep watchers cost more than other watchers.\n\n\
         ## Stopping a watcher\n\nWatchers stop with the component.\n",
    ),
    (
        "guide/computed.md",
        "# Computed properties\n\nDerived state, cached until a dependency changes.\n",
    ),
];

/// A word corrected as a typo names a heading as the word itself would: the page titled
/// what was meant comes first, not the subsection that repeats the word most.
#[test]
fn a_misspelt_name_finds_its_page_as_the_word_does() {
    for query in ["watchers", "wacthers"] {
        for top in first(&MISSPELT, query) {
            assert_eq!(
                top,
                ("guide/observe.md".into(), "Watchers".into()),
                "{query}"
            );
        }
    }
}
