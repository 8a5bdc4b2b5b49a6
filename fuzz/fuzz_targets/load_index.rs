//! Loading index files from arbitrary bytes: the entry, terms, sections and vectors files
//! through midashi-core's decode/open paths, then every read path of whatever loaded.
//!
//! Input: one selector byte, then the bytes. Selector % 8: 0–3 give the bytes as the whole
//! entry / terms / sections / vectors file (header checks, truncation, corruption); 4–7 give
//! them as that file's *payload* under a valid header and checksum, so the postcard decoder
//! and the consistency checks behind the checksum are reached too. The other files are the
//! tiny fixture index's.
//!
//! The body is `midashi_fuzz::targets::load_index`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| midashi_fuzz::targets::load_index(data));
