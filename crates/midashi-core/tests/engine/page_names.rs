//! A page's file name counts among its top's hints (`build::page_name`): a visitor who types
//! the topic a page's file is named after finds that page first, in both layouts, ahead of a
//! section elsewhere whose text holds the same words.

use crate::common;

use midashi_core::{Mode, SearchOptions};

const DOCS: [(&str, &str); 3] = [
    (
        "samples.md",
        "# Sample applications\n\n## Ruby\n\nA Ruby application with tracing on; its tracing map shows each call, across its layers.\n",
    ),
    (
        "ruby-tracing.md",
        "# Instrumenting Ruby code\n\nSee each request of your Ruby functions on a service map.\n\n## With the API\n\nTurn it on for a function.\n",
    ),
    (
        "functions/layers/index.md",
        "# Where to start\n\nFunctions, Ruby and maps.\n",
    ),
];

fn first_paths(q: &str) -> [String; 2] {
    let opts = SearchOptions {
        mode: Mode::Keyword,
        limit: 5,
        ..SearchOptions::default()
    };
    common::both_layouts(&DOCS).map(|idx| {
        let r = idx.search(q, &opts, None).unwrap();
        let first = r
            .results
            .first()
            .unwrap_or_else(|| panic!("{q}: no results"));
        format!(
            "{}#{}",
            first.path,
            first.anchor.clone().unwrap_or_default()
        )
    })
}

#[test]
fn the_page_a_file_name_names_comes_first() {
    for path in first_paths("ruby tracing") {
        assert!(path.starts_with("ruby-tracing.md#"), "{path}");
    }
}

#[test]
fn an_index_page_is_named_by_its_folder() {
    for path in first_paths("layers") {
        assert!(path.starts_with("functions/layers/index.md#"), "{path}");
    }
}
