//! midashi-wasm (placeholder until its work lands).
