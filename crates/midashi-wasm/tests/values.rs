//! The browser gets the CLI's JSON: the wasm face writes its answers as JS values by hand
//! (`midashi_wasm::values`), and here the same writer, writing JSON values instead, must give
//! exactly what serde gives for real answers — hits with previews, highlights, descriptions,
//! other versions, hybrid scores, whole sections and documents, and manifests with a model.

use midashi_core::build::{IndexBuilder, IndexSettings, Layout};
use midashi_core::section::SectionId;
use midashi_core::{Mode, SearchIndex, SearchOptions};
use midashi_markdown::{parse_document, Options};
use midashi_wasm::values::ToOut;
use serde::Serialize;
use std::path::Path;

#[path = "../../midashi-core/tests/engine/common.rs"]
mod common;
use common::unit_vector;

mod json;
use json::{as_js, js, Json};
use midashi_wasm::read;

fn check<T: ToOut + Serialize + ?Sized>(what: &str, value: &T) {
    let ours = value.to_out::<Json>().0;
    let serde = as_js(serde_json::to_value(value).unwrap());
    assert_eq!(ours, serde, "{what}");
    // Field order too: a JS object lists its keys in the order they were set.
    assert_eq!(ours.to_string(), serde.to_string(), "{what}");
}

/// Two versions of part of the PowerShell reference, with synthetic vectors: other-version
/// links, descriptions, a model in the manifest, hybrid scores.
fn index() -> SearchIndex {
    let root =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/powershell-docs");
    let mut paths = Vec::new();
    for v in ["7.4", "7.5"] {
        common::markdown_under(
            &root,
            &root.join(v).join("Microsoft.PowerShell.Core"),
            &mut paths,
        );
    }
    let mut builder = IndexBuilder::new(IndexSettings {
        layout: Layout::Single,
        ..IndexSettings::default()
    });
    for path in &paths {
        let src = std::fs::read_to_string(root.join(path)).unwrap();
        builder.add(parse_document(path, &src, &Options::default()).0);
    }
    common::add_vectors(&mut builder, &["en"]);
    let files: std::collections::HashMap<String, Vec<u8>> =
        builder.build().unwrap().files.into_iter().collect();
    let by = |stem: &str| {
        files
            .iter()
            .find(|(n, _)| n.starts_with(stem))
            .map(|(_, b)| b.as_slice())
            .unwrap()
    };
    let mut idx = SearchIndex::open(by("midashi-entry"), by("terms."), by("sections.")).unwrap();
    idx.attach_vectors(by("vectors.")).unwrap();
    idx
}

#[test]
fn answers_written_by_hand_are_what_serde_writes() {
    let idx = index();
    check("manifest", idx.manifest());
    assert!(idx.manifest().model.is_some());
    check("versions", idx.versions());
    check("completions", &idx.suggest("for", 8).unwrap());

    let mut seen_other_versions = false;
    let mut seen_description = false;
    let mut seen_highlights = false;
    for (query, mode) in [
        ("ForEach-Object parallel", Mode::Keyword),
        ("about_Splatting", Mode::Keyword),
        ("pipelin", Mode::Keyword),
        ("job", Mode::Hybrid),
        ("zzzz nothing matches", Mode::Keyword),
    ] {
        let opts = SearchOptions {
            mode,
            ..SearchOptions::default()
        };
        let vector = (mode == Mode::Hybrid).then(|| unit_vector(3));
        let r = idx.search(query, &opts, vector.as_deref()).unwrap();
        check(query, &r);
        // What the in-page agent tools quote is read back from the JS object: all of it.
        assert_eq!(read::response(&Json(js(&r))).unwrap(), r, "{query}");
        for h in &r.results {
            seen_other_versions |= !h.other_versions.is_empty();
            seen_description |= h.description.is_some();
            seen_highlights |= !h.highlights.is_empty();
            let id = SectionId::parse(&h.id).unwrap();
            let section = idx.get_section(id).unwrap();
            check("section", &section);
            assert_eq!(read::section(&Json(js(&section))).unwrap(), section);
            check("document", &idx.get_document(&h.path).unwrap());
        }
    }
    // The answers held what the writer has to get right.
    assert!(seen_other_versions && seen_description && seen_highlights);
}

#[test]
fn a_wrong_answer_is_refused_with_the_field_it_lacks() {
    let idx = index();
    let r = idx.search("job", &SearchOptions::default(), None).unwrap();
    let mut v = js(&r);
    v["results"][0]["start_line"] = serde_json::json!("seven");
    let err = read::response(&Json(v)).unwrap_err();
    assert!(err.contains("`start_line` must be a number"), "{err}");
    let err = read::response(&Json(serde_json::json!([1, 2]))).unwrap_err();
    assert!(err.contains("`mode`"), "{err}");
}
