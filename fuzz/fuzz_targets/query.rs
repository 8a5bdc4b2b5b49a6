//! Parsing and running arbitrary queries with arbitrary options against the tiny fixture
//! index (built once from four Markdown files, with synonyms and vectors).
//!
//! Input: 8 option bytes, then the query as UTF-8 (lossy). A 0x01 byte in the query part
//! starts a path filter, a second one a tag filter.
//!
//! The body is `midashi_fuzz::targets::query`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| midashi_fuzz::targets::query(data));
