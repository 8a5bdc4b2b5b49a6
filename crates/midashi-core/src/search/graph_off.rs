//! Stands in for `graph.rs` in builds without feature `ann` (the keyword modules): an HNSW
//! graph needs the full engine.

use crate::error::{Error, Result};
use crate::vectors::ann::AnnData;
use crate::vectors::VectorsData;

/// No graph reader in this build.
pub(super) fn decode(_: &str, _: &[u8]) -> Result<AnnData> {
    Err(Error::NeedsFullEngine(
        "the HNSW graph of a large index's vectors",
    ))
}

/// Never called: no graph is attached in this build. The exact scan, to be safe.
pub(super) fn candidates(_: &AnnData, vectors: &VectorsData, query: &[f32]) -> Vec<(u32, f32)> {
    vectors.scan(query)
}
