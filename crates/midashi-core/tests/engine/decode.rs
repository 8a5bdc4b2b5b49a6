//! The hand-written payload readers (`midashi_core::format::decode`) read exactly what the
//! writer's serde/postcard wrote: every file of real indexes — both layouts, a versioned
//! site with other-version links, vectors and an HNSW graph — is read by hand, written again
//! with serde, and must come out byte for byte as it was.

use midashi_core::build::{IndexBuilder, IndexSettings, Layout, Synonyms};
use midashi_core::format::reader::Decode;
use midashi_core::format::{decode, verify, FileKind, Manifest};
use midashi_core::layout::sharded::{Bundle, Card, Directory, Lexicon, Paths, Shard, Tree};
use midashi_core::layout::single::TermsData;
use midashi_core::section::records::SectionsData;
use midashi_core::vectors::ann::AnnData;
use midashi_core::vectors::VectorsData;
use midashi_markdown::{parse_document, Options};
use serde::Serialize;
use std::path::Path;

use crate::common;

fn build(corpus: &str, folders: &[&str], layout: Layout, ann: bool) -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpora")
        .join(corpus);
    let mut paths = Vec::new();
    for f in folders {
        common::markdown_under(&root, &root.join(f), &mut paths);
    }
    let mut builder = IndexBuilder::new(IndexSettings {
        synonyms: Synonyms::parse("paging = pagination\n").unwrap(),
        layout,
        // An HNSW graph too, however few the sections (for one corpus: building it is slow).
        ann_min_rows: if ann { 1 } else { usize::MAX },
        ..IndexSettings::default()
    });
    for path in &paths {
        let src = std::fs::read_to_string(root.join(path)).unwrap();
        builder.add(parse_document(path, &src, &Options::default()).0);
    }
    common::add_vectors(&mut builder, &["en"]);
    builder.build().unwrap().files.into_iter().collect()
}

/// Reads `bytes` as a `T` by hand and checks serde writes it back to the same payload.
fn same_bytes<T: Decode + Serialize>(kind: FileKind, name: &str, bytes: &[u8]) {
    let value: T = decode(kind, name, bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let payload = verify(kind, name, bytes).unwrap();
    let again = postcard::to_allocvec(&value).unwrap();
    assert!(
        again == payload,
        "{name}: read by hand, written again, the bytes differ"
    );
}

/// Every file of an index; returns how many of each kind were checked.
fn check(files: &[(String, Vec<u8>)]) -> std::collections::BTreeMap<&'static str, usize> {
    let mut seen = std::collections::BTreeMap::new();
    for (name, bytes) in files {
        let stem = name.split('.').next().unwrap();
        let kind = match stem {
            "midashi-entry" => {
                // The entry has its own reader (it also reads format 1.0/1.1 entries).
                let m = Manifest::decode(bytes).unwrap();
                assert_eq!(
                    postcard::to_allocvec(&m).unwrap(),
                    verify(FileKind::Entry, name, bytes).unwrap()
                );
                "entry"
            }
            "terms" => {
                same_bytes::<TermsData>(FileKind::Terms, name, bytes);
                "terms"
            }
            "sections" => {
                same_bytes::<SectionsData>(FileKind::Sections, name, bytes);
                "sections"
            }
            "vectors" => {
                same_bytes::<VectorsData>(FileKind::Vectors, name, bytes);
                "vectors"
            }
            "ann" => {
                same_bytes::<AnnData>(FileKind::Ann, name, bytes);
                "ann"
            }
            "directory" => {
                same_bytes::<Directory>(FileKind::Directory, name, bytes);
                "directory"
            }
            "shard" => {
                same_bytes::<Shard>(FileKind::Shard, name, bytes);
                "shard"
            }
            "bundle" => {
                same_bytes::<Bundle>(FileKind::Bundle, name, bytes);
                "bundle"
            }
            "card" => {
                same_bytes::<Card>(FileKind::Card, name, bytes);
                "card"
            }
            "lexicon" => {
                same_bytes::<Lexicon>(FileKind::Lexicon, name, bytes);
                "lexicon"
            }
            "tree" => {
                same_bytes::<Tree>(FileKind::Tree, name, bytes);
                "tree"
            }
            "paths" => {
                same_bytes::<Paths>(FileKind::Paths, name, bytes);
                "paths"
            }
            other => panic!("a file of unknown kind: {other}"),
        };
        *seen.entry(kind).or_insert(0) += 1;
    }
    seen
}

#[test]
fn every_file_of_both_layouts_reads_back_exactly() {
    for (corpus, folders) in [
        ("rust-book", &["."][..]),
        ("vue-docs-ja", &["."][..]),
        // Two versions: other-version links in cards and bundles, version facets.
        (
            "powershell-docs",
            &[
                "5.1/Microsoft.PowerShell.Core",
                "7.4/Microsoft.PowerShell.Core",
            ][..],
        ),
    ] {
        let ann = corpus == "vue-docs-ja";
        let single = check(&build(corpus, folders, Layout::Single, ann));
        for kind in ["entry", "terms", "sections", "vectors"]
            .into_iter()
            .chain(ann.then_some("ann"))
        {
            assert_eq!(
                single.get(kind),
                Some(&1),
                "{corpus}: single layout has one {kind}"
            );
        }
        let sharded = check(&build(corpus, folders, Layout::Sharded, ann));
        for kind in ["entry", "directory", "lexicon", "tree", "paths", "vectors"]
            .into_iter()
            .chain(ann.then_some("ann"))
        {
            assert_eq!(
                sharded.get(kind),
                Some(&1),
                "{corpus}: sharded layout has one {kind}"
            );
        }
        for kind in ["shard", "bundle", "card"] {
            assert!(
                sharded.get(kind).is_some_and(|&n| n > 1),
                "{corpus}: several {kind} files"
            );
        }
    }
}
