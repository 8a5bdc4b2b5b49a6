//! Loading a sharded index from arbitrary bytes: one of its files (the directory, a shard,
//! a bundle, a card, the lexicon, the tree or the paths) is replaced by the input, the others are
//! the tiny fixture's in the sharded layout, read on demand through a file source; then every
//! read path runs (searches of every mode fetch shards, cards, bundles, the lexicon and the
//! tree).
//!
//! Input: one selector byte, then the bytes. Selector % 7 picks the file; selector / 7 odd
//! gives the bytes as that file's *payload* under a valid header and checksum (so the postcard
//! decoder and the consistency checks behind the checksum are reached), even as the whole file.
//!
//! The body is `midashi_fuzz::targets::load_sharded`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| midashi_fuzz::targets::load_sharded(data));
