//! Section vectors for semantic search: int8-quantised rows kept as raw bytes (postcard would
//! otherwise decode them element by element), one row per embedding window, and an exact
//! scan that scores a section by its best window.

pub mod ann;
pub mod noise;

use crate::format::reader::{Decode, ReadResult, Reader};
use serde::{Deserialize, Serialize};

/// The payload of the vectors file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorsData {
    /// Dimensions per row.
    pub dims: u32,
    /// For each row, the ordinal of its section.
    pub row_section: Vec<u32>,
    /// Per-row dequantisation scale (`value ≈ scale * int8`), f32 LE bytes.
    #[serde(with = "serde_bytes")]
    pub scales: Vec<u8>,
    /// Rows of `dims` int8 values.
    #[serde(with = "serde_bytes")]
    pub data: Vec<u8>,
    /// The best similarity nonsense reaches (see [`noise`]): a query whose words match
    /// nothing keeps its semantic results only above it. `None` before format 1.10, or for
    /// vectors not made by a model (no floor is applied then).
    pub noise_floor: Option<f32>,
}

/// The int8 quantisation of a vector: values and the scale with `value ≈ scale * int8`. The
/// one rule for stored rows and for the ANN graph's query points.
pub fn quantize(vector: &[f32]) -> (Vec<i8>, f32) {
    let max = vector.iter().fold(0f32, |m, v| m.max(v.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let values = vector
        .iter()
        .map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (values, scale)
}

impl VectorsData {
    /// An empty set of `dims`-dimensional rows.
    pub fn new(dims: u32) -> Self {
        VectorsData {
            dims,
            row_section: Vec::new(),
            scales: Vec::new(),
            data: Vec::new(),
            noise_floor: None,
        }
    }

    /// Whether a query's best similarity `best` lies above the noise floor (always, when
    /// the vectors have none).
    pub fn clearly_above_noise(&self, best: f32) -> bool {
        self.noise_floor.is_none_or(|floor| best > floor)
    }

    /// Number of rows.
    pub fn count(&self) -> usize {
        self.row_section.len()
    }

    /// Quantises and appends one row (an L2-normalised vector) for `section`.
    pub fn push(&mut self, section: u32, vector: &[f32]) {
        let (values, scale) = quantize(vector);
        self.row_section.push(section);
        self.scales.extend_from_slice(&scale.to_le_bytes());
        self.data.extend(values.iter().map(|&v| v as u8));
    }

    /// Checks the internal lengths agree (after decoding untrusted bytes).
    pub fn is_consistent(&self) -> bool {
        let n = self.row_section.len();
        n.checked_mul(4) == Some(self.scales.len())
            && n.checked_mul(self.dims as usize) == Some(self.data.len())
    }

    /// Row `r`'s int8 values (as bytes).
    pub fn row(&self, r: usize) -> &[u8] {
        let dims = self.dims as usize;
        &self.data[r * dims..(r + 1) * dims]
    }

    /// Row `r` as floats (the int8 values times the row's scale): what the index holds for
    /// that window, for tools that hand the same vectors to another engine.
    pub fn dequantized(&self, r: usize) -> Vec<f32> {
        let scale = self.scale(r);
        self.row(r)
            .iter()
            .map(|&b| f32::from(b as i8) * scale)
            .collect()
    }

    /// Row `r`'s dequantisation scale.
    pub fn scale(&self, r: usize) -> f32 {
        let s = &self.scales[r * 4..r * 4 + 4];
        f32::from_le_bytes([s[0], s[1], s[2], s[3]])
    }

    /// Cosine similarity of `query` (L2-normalised) with row `r`.
    fn score(&self, query: &[f32], r: usize) -> f32 {
        let dot: f32 = self
            .row(r)
            .iter()
            .zip(query)
            .map(|(&q, &x)| f32::from(q as i8) * x)
            .sum();
        dot * self.scale(r)
    }

    /// Cosine similarity of `query` (L2-normalised) with every row, best row per section:
    /// `(section, score)` sorted by score, then section. Exact; a few ms for 100k rows.
    pub fn scan(&self, query: &[f32]) -> Vec<(u32, f32)> {
        self.score_rows(query, 0..self.count())
    }

    /// [`VectorsData::scan`] over some rows only (the candidates of an ANN search).
    pub fn score_rows(
        &self,
        query: &[f32],
        rows: impl IntoIterator<Item = usize>,
    ) -> Vec<(u32, f32)> {
        let dims = self.dims as usize;
        if query.len() != dims || !self.is_consistent() || dims == 0 {
            return Vec::new();
        }
        let mut best: Vec<(u32, f32)> = Vec::new();
        for row in rows {
            let score = self.score(query, row);
            let section = self.row_section[row];
            // Rows of one section are contiguous: keep only its best window.
            match best.last_mut() {
                Some(last) if last.0 == section => last.1 = last.1.max(score),
                _ => best.push((section, score)),
            }
        }
        crate::rank::bm25::sort_ranked(&mut best);
        // Candidates from a graph are not contiguous by section: keep each section's best.
        let mut seen = rustc_hash::FxHashSet::default();
        best.retain(|(s, _)| seen.insert(*s));
        best
    }
}

impl Decode for VectorsData {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(VectorsData {
            dims: r.u32()?,
            row_section: Decode::decode(r)?,
            scales: r.bytes()?,
            data: r.bytes()?,
            // Format 1.10 appended it; a 1.9 file ends before.
            noise_floor: if r.remaining() > 0 {
                r.option(|r| r.f32())?
            } else {
                None
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_window_per_section_and_quantisation_is_close() {
        let mut v = VectorsData::new(3);
        let norm = |x: [f32; 3]| {
            let n = (x.iter().map(|a| a * a).sum::<f32>()).sqrt();
            x.map(|a| a / n)
        };
        v.push(0, &norm([1.0, 0.0, 0.0]));
        v.push(0, &norm([0.0, 1.0, 0.0]));
        v.push(1, &norm([1.0, 1.0, 0.0]));
        let hits = v.scan(&norm([0.0, 1.0, 0.0]));
        assert_eq!(hits[0].0, 0);
        assert!((hits[0].1 - 1.0).abs() < 0.01);
        assert!((hits[1].1 - std::f32::consts::FRAC_1_SQRT_2).abs() < 0.01);
        assert!(
            v.scan(&[1.0]).is_empty(),
            "wrong dims give nothing, not a panic"
        );
    }
}
