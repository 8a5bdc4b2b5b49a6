//! Approximate nearest neighbours for large vector sets: an HNSW graph (instant-distance) over
//! the same rows as [`crate::vectors`] (their 4- or 8-bit levels, one byte each), stored in a file
//! of its own (`ann.<hash>.bin`)
//! that only indexes above [`ANN_MIN_ROWS`] rows have.
//!
//! Why a cut-over at all: the exact scan is simple, exact and needs no extra bytes, and
//! it stays fast far longer than one would guess (see `examples/ann_bench.rs`, whose figures
//! chose the cut). The graph repeats every row (instant-distance keeps its points) plus
//! ~64 neighbour ids per row, so it roughly doubles the vector bytes a browser downloads;
//! it pays only where the scan's linear cost starts to show.
//!
//! The graph proposes candidates; their scores are then recomputed exactly from the
//! vectors file, so the ANN path and the exact scan give the same scores for the sections
//! both return.

use crate::format::reader::{Decode, ReadResult, Reader};
use crate::vectors::VectorsData;
use instant_distance::{Builder, Hnsw, Point, Search};
use serde::{Deserialize, Serialize};

/// Rows from which the builder adds an HNSW graph. Chosen with `examples/ann_bench.rs`: the
/// exact scan (of int8 rows, then) stays within a few milliseconds per query well past 100k rows (5.4 ms in
/// wasm at 100k), while building the graph on one thread (needed for deterministic bytes)
/// took minutes already at 5k rows here, and the graph doubles the bytes to download.
pub const ANN_MIN_ROWS: usize = 200_000;

/// Candidates the graph search keeps (`ef`) per row a section has on average: more is slower
/// and closer to exact. Sections as many as hybrid fusion reads of the semantic leg
/// (`FUSION_HEAD`): with fewer (160 rows at one row a section), the min-max blend spanned a
/// shorter list than the exact scan's and could put another section first (the Rust book,
/// "share data between threads"); at one row per section's passage, 200 rows were ~60
/// sections, and hybrid answers strayed likewise.
pub const EF_SEARCH: usize = crate::rank::fusion::FUSION_HEAD;

/// Most candidates a graph search keeps, however many rows its sections have.
const MAX_EF_SEARCH: usize = 8 * EF_SEARCH;

/// The `ef` of a graph over `vectors`: [`EF_SEARCH`] times its rows per section (rounded up),
/// so that the rows it keeps span about `FUSION_HEAD` sections.
fn ef_search(vectors: &VectorsData) -> usize {
    let rows = vectors.count();
    let sections = 1 + vectors
        .row_section
        .windows(2)
        .filter(|w| w[0] != w[1])
        .count();
    (EF_SEARCH * rows.div_ceil(sections.max(1))).clamp(EF_SEARCH, MAX_EF_SEARCH)
}

/// Seed of the graph's random layers: builds stay byte-for-byte deterministic.
const SEED: u64 = 0x6d69_6461_7368_6921;

/// One row as a point of the graph: its levels (a stored row's, or a query's in int8) and
/// their scale.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    values: Vec<i8>,
    scale: f32,
}

impl Row {
    fn quantize(v: &[f32]) -> Row {
        let (values, scale) = crate::vectors::quantize(v);
        Row { values, scale }
    }
}

impl Point for Row {
    /// Cosine distance of two L2-normalised rows.
    fn distance(&self, other: &Self) -> f32 {
        let dot: i32 = self
            .values
            .iter()
            .zip(&other.values)
            .map(|(&a, &b)| i32::from(a) * i32::from(b))
            .sum();
        1.0 - dot as f32 * self.scale * other.scale
    }
}

/// The payload of the ANN file: the graph, and for each of its points the vectors row.
#[derive(Serialize, Deserialize)]
pub struct AnnData {
    graph: Hnsw<Row>,
    /// Graph point id → row of the vectors file.
    rows: Vec<u32>,
}

/// The graph is a third-party type: read through serde (the one payload that still is).
impl Decode for AnnData {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(AnnData {
            graph: r.serde()?,
            rows: Decode::decode(r)?,
        })
    }
}

impl std::fmt::Debug for AnnData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnnData")
            .field("rows", &self.rows.len())
            .finish_non_exhaustive()
    }
}

impl AnnData {
    /// Builds the graph over every row of `vectors`. Deterministic: a fixed seed, and
    /// insertion on one thread (instant-distance inserts in parallel otherwise, and the
    /// graph would then depend on thread timing).
    pub fn build(vectors: &VectorsData) -> AnnData {
        let dims = vectors.dims as usize;
        let points: Vec<Row> = (0..vectors.count())
            .map(|r| Row {
                values: vectors.levels(r),
                scale: vectors.scale(r),
            })
            .collect();
        debug_assert!(points.iter().all(|p| p.values.len() == dims));
        let ef = ef_search(vectors);
        let build = || {
            Builder::default()
                .seed(SEED)
                .ef_search(ef)
                .build_hnsw(points)
        };
        let (graph, ids) = match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
            Ok(pool) => pool.install(build),
            Err(_) => build(),
        };
        // `ids[row]` is the row's point id; invert it.
        let mut rows = vec![0u32; ids.len()];
        for (row, id) in ids.iter().enumerate() {
            rows[id.into_inner() as usize] = row as u32;
        }
        AnnData { graph, rows }
    }

    /// Whether the graph covers exactly the rows of `vectors` (after decoding untrusted bytes).
    pub fn matches(&self, vectors: &VectorsData) -> bool {
        let n = vectors.count();
        let dims = vectors.dims as usize;
        self.rows.len() == n
            && self.rows.iter().all(|&r| (r as usize) < n)
            && self.graph.iter().all(|(_, p)| p.values.len() == dims)
    }

    /// Sections near `query` (L2-normalised), best row per section, scored exactly like
    /// [`VectorsData::scan`]; approximate in which sections come back, not in their scores.
    pub fn search(&self, vectors: &VectorsData, query: &[f32]) -> Vec<(u32, f32)> {
        if query.len() != vectors.dims as usize {
            return Vec::new();
        }
        let q = Row::quantize(query);
        let mut search = Search::default();
        let rows: Vec<usize> = self
            .graph
            .search(&q, &mut search)
            .map(|item| self.rows[item.pid.into_inner() as usize] as usize)
            .collect();
        vectors.score_rows(query, rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{decode, encode, FileKind};

    /// Unit vectors around a few directions, like embeddings of a few topics.
    fn vectors(n: usize, dims: usize) -> VectorsData {
        let mut v = VectorsData::new(dims as u32);
        for r in 0..n {
            let mut x: Vec<f32> = (0..dims)
                .map(|i| ((r % 7) as f32 + 1.0) * ((i * 31 + r * 17) % 13) as f32 - 6.0)
                .collect();
            x[r % dims] += 40.0;
            let norm = x.iter().map(|a| a * a).sum::<f32>().sqrt();
            x.iter_mut().for_each(|a| *a /= norm);
            // Two rows per section, like a section embedded as two windows.
            v.push((r / 2) as u32, &x);
        }
        v
    }

    #[test]
    fn graph_finds_what_the_scan_finds_with_the_same_scores() {
        let v = vectors(300, 48);
        let ann = AnnData::build(&v);
        assert!(ann.matches(&v));
        for r in [0usize, 57, 123, 299] {
            let mut q: Vec<f32> = v.levels(r).into_iter().map(f32::from).collect();
            let norm = q.iter().map(|a| a * a).sum::<f32>().sqrt();
            q.iter_mut().for_each(|a| *a /= norm);
            let exact = v.scan(&q);
            let approx = ann.search(&v, &q);
            assert_eq!(approx[0], exact[0], "query from row {r}");
            // Every section the graph returns carries its exact score.
            for (s, score) in &approx {
                let e = exact.iter().find(|h| h.0 == *s).unwrap();
                assert_eq!(e.1, *score);
            }
            let top: Vec<u32> = exact.iter().take(10).map(|h| h.0).collect();
            let found = approx
                .iter()
                .take(10)
                .filter(|h| top.contains(&h.0))
                .count();
            assert!(found >= 9, "recall@10 {found}/10 for row {r}");
        }
        assert!(
            ann.search(&v, &[1.0, 0.0]).is_empty(),
            "wrong dims: nothing, no panic"
        );
    }

    #[test]
    fn builds_are_deterministic_and_round_trip() {
        let v = vectors(200, 16);
        let a = encode(FileKind::Ann, &AnnData::build(&v)).unwrap();
        let b = encode(FileKind::Ann, &AnnData::build(&v)).unwrap();
        assert_eq!(a, b, "same vectors, same graph bytes");
        let back: AnnData = decode(FileKind::Ann, "ann", &a).unwrap();
        assert!(back.matches(&v));
        assert!(
            !back.matches(&vectors(199, 16)),
            "a graph of other vectors is refused"
        );
    }
}
