//! Sectioning arbitrary Markdown (midashi-markdown), checking the section tree's invariants,
//! and rendering it as HTML.
//!
//! Input: the file's bytes (invalid UTF-8 replaced, as build-index reads files). The slug
//! style is picked by the input's length, so seeds can be plain Markdown files.
//!
//! The body is `midashi_fuzz::targets::markdown`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| midashi_fuzz::targets::markdown(data));
