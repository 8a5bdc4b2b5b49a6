//! Loading index files from arbitrary bytes: the entry, terms, sections and vectors files
//! through midashi-core's decode/open paths, then every read path of whatever loaded.
//!
//! Input: one selector byte, then the bytes. Selector % 8: 0–3 give the bytes as the whole
//! entry / terms / sections / vectors file (header checks, truncation, corruption); 4–7 give
//! them as that file's *payload* under a valid header and checksum, so the postcard decoder
//! and the consistency checks behind the checksum are reached too. The other files are the
//! tiny fixture index's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use midashi_core::format::{frame, FileKind, Manifest};
use midashi_core::SearchIndex;
use midashi_fuzz::{exercise_for, tiny_file};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let kind = [
        FileKind::Entry,
        FileKind::Terms,
        FileKind::Sections,
        FileKind::Vectors,
        FileKind::Ann,
    ][usize::from(selector % 5)];
    let framed;
    let file: &[u8] = if selector % 10 >= 5 {
        framed = frame(kind, bytes);
        &framed
    } else {
        bytes
    };
    let (entry, terms, sections) = match kind {
        FileKind::Entry => (file, tiny_file("terms"), tiny_file("sections")),
        FileKind::Terms => (tiny_file("midashi-entry"), file, tiny_file("sections")),
        FileKind::Sections => (tiny_file("midashi-entry"), tiny_file("terms"), file),
        // The vectors, the ANN graph and the raw model files ride on a good keyword index.
        _ => (
            tiny_file("midashi-entry"),
            tiny_file("terms"),
            tiny_file("sections"),
        ),
    };
    if kind == FileKind::Entry {
        if let Ok(m) = Manifest::decode(entry) {
            let _ = m.file(FileKind::Terms);
        }
    }
    let Ok(mut idx) = SearchIndex::open(entry, terms, sections) else {
        return;
    };
    if kind == FileKind::Vectors {
        if idx.attach_vectors(file).is_err() {
            return;
        }
    } else {
        let _ = idx.attach_vectors(tiny_file("vectors"));
    }
    // A graph that does not match the vectors must be refused, never searched.
    if kind == FileKind::Ann {
        let _ = idx.attach_ann(file);
    }
    exercise_for(&idx, kind);
});
