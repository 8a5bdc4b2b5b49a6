//! The HNSW graph of a large index's vectors, read and searched (feature `ann`; without it
//! `graph_off.rs` stands here). Apart from the rest of the semantic leg because the graph's
//! reader and search are most of its code: the keyword modules, which answer a static
//! table's questions, leave them out, and a site large enough to have a graph moves to the
//! full engine for its semantic leg.

use crate::error::Result;
use crate::format::frame::decode as decode_file;
use crate::format::FileKind;
use crate::vectors::ann::AnnData;
use crate::vectors::VectorsData;

/// The graph file `name`'s bytes, decoded.
pub(super) fn decode(name: &str, bytes: &[u8]) -> Result<AnnData> {
    decode_file(FileKind::Ann, name, bytes)
}

/// The graph's candidates for `query`, scored exactly from `vectors`.
pub(super) fn candidates(ann: &AnnData, vectors: &VectorsData, query: &[f32]) -> Vec<(u32, f32)> {
    ann.search(vectors, query)
}
