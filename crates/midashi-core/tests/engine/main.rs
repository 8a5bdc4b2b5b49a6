//! The engine's integration tests, one binary: indexes built from real Markdown, searched
//! through the public API in both layouts. Each file below was its own test binary.

mod common;
mod coverage;
mod decode;
mod excerpts_off;
mod facets;
mod index_files;
mod language;
mod noise_floor;
mod operators;
mod page_languages;
mod page_names;
mod same_titles;
mod sharded;
