//! Loading a sharded index from arbitrary bytes: one of its files (the directory, a shard,
//! a bundle, a card, the lexicon, the tree or the paths) is replaced by the input, the others are
//! the tiny fixture's in the sharded layout, read on demand through a file source; then every
//! read path runs (searches of every mode fetch shards, cards, bundles, the lexicon and the
//! tree).
//!
//! Input: one selector byte, then the bytes. Selector % 7 picks the file; selector / 7 odd
//! gives the bytes as that file's *payload* under a valid header and checksum (so the postcard
//! decoder and the consistency checks behind the checksum are reached), even as the whole file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use midashi_core::format::{frame, FileKind};
use midashi_core::layout::sharded::FileSource;
use midashi_core::SearchIndex;
use midashi_fuzz::{exercise_for, tiny_sharded_files};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let (kind, stem) = [
        (FileKind::Directory, "directory."),
        (FileKind::Shard, "shard."),
        (FileKind::Bundle, "bundle."),
        (FileKind::Lexicon, "lexicon."),
        (FileKind::Tree, "tree."),
        (FileKind::Paths, "paths."),
        (FileKind::Card, "card."),
    ][usize::from(selector % 7)];
    let file = if (selector / 7) % 2 == 1 {
        frame(kind, bytes)
    } else {
        bytes.to_vec()
    };
    let files = &tiny_sharded_files().files;
    // The file replaced: the first of its kind.
    let target = files
        .iter()
        .find(|(n, _)| n.starts_with(stem))
        .map(|(n, _)| n.clone())
        .unwrap_or_default();
    let get = |name: &str| -> Option<Vec<u8>> {
        if name == target {
            return Some(file.clone());
        }
        files.iter().find(|(n, _)| n == name).map(|(_, b)| b.clone())
    };
    let entry = get("midashi-entry.bin").unwrap_or_default();
    let directory = files
        .iter()
        .find(|(n, _)| n.starts_with("directory."))
        .and_then(|(n, _)| get(n))
        .unwrap_or_default();
    let replaced = file.clone();
    let name = target.clone();
    let others: &'static [(String, Vec<u8>)] = files;
    let source: FileSource = Box::new(move |wanted: &str| {
        if wanted == name {
            return Ok(replaced.clone());
        }
        others
            .iter()
            .find(|(n, _)| n == wanted)
            .map(|(_, b)| b.clone())
            .ok_or_else(|| midashi_core::Error::Malformed {
                file: wanted.to_string(),
                detail: "no such file".into(),
            })
    });
    let Ok(mut idx) = SearchIndex::open_sharded(&entry, &directory, Some(source)) else {
        return;
    };
    if let Some((_, vectors)) = files.iter().find(|(n, _)| n.starts_with("vectors.")) {
        let _ = idx.attach_vectors(vectors);
    }
    exercise_for(&idx, kind);
});
