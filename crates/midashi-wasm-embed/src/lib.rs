//! midashi-wasm-embed (placeholder until its work lands).
