//! Section vectors for semantic search: 4- or 8-bit rows kept as raw bytes (postcard would
//! otherwise decode them element by element), one row per embedding window, and an exact
//! scan that scores a section by its best window.
//!
//! Why 4 bits: the vectors are the second largest thing the semantic leg downloads, after
//! the model (the Rust book: 1.55 MB brotli in int8, which hardly compresses; 0.69 in 4
//! bits). Rounding each row to 15 levels of its largest value moved SciFact semantic nDCG@10
//! by −0.0003 (0.6958 → 0.6955, hybrid 0.7413 → 0.7409); 7 levels (3 bits) cost 0.018. Queries
//! stay f32: only one side of each similarity is rounded.
//!
//! Why 8 bits still: a model whose vectors crowd into one direction (multilingual-e5-small's:
//! the rows' mean vector has a squared length of 0.84 on vue-docs-ja, so two sections lie at
//! cosine 0.84 on average, against 0.17 for all-MiniLM-L6-v2 on the Rust book) separates sections by small differences, which 4
//! bits blur: JSQuAD hybrid 0.9602 → 0.9591–0.9596 (with or without taking the mean and each
//! dimension's spread out first), while its semantic leg alone held (0.9283 → 0.9280).
//! [`bits_for`] decides by that measure.

pub mod ann;
pub mod noise;
pub mod pieces;
pub mod table;
pub mod unigram;

use crate::format::reader::{Decode, ReadResult, Reader};
use serde::{Deserialize, Serialize};

/// Largest stored level of a row value: values are `−LEVELS..=LEVELS` times the row's scale.
const LEVELS: f32 = 7.0;
/// What a stored nibble is offset by (nibble = level + 8, so 1..=15; 8 is zero, the padding
/// of an odd last dimension).
const OFFSET: i8 = 8;

/// The squared length of the rows' mean vector from which they are stored in 8 bits
/// (see the module docs): between MiniLM's 0.17 and e5's 0.84 (build-index prints it).
pub const CROWDED: f32 = 0.4;

/// How much `rows` (L2-normalised vectors) crowd into one direction: the squared length of
/// their mean, which is the mean cosine of two of them (0: spread evenly; 1: all the same).
pub fn crowding<'a>(rows: impl Iterator<Item = &'a [f32]>) -> f32 {
    let mut sum: Vec<f64> = Vec::new();
    let mut count = 0usize;
    for row in rows {
        if sum.len() < row.len() {
            sum.resize(row.len(), 0.0);
        }
        for (s, v) in sum.iter_mut().zip(row) {
            *s += f64::from(*v);
        }
        count += 1;
    }
    let n = count.max(1) as f64;
    sum.iter().map(|s| (s / n).powi(2)).sum::<f64>() as f32
}

/// The bits a row takes for rows of this [`crowding`]: 8 from [`CROWDED`], else 4.
pub fn bits_for(crowding: f32) -> u8 {
    if crowding >= CROWDED {
        8
    } else {
        4
    }
}

/// The payload of the vectors file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorsData {
    /// Dimensions per row.
    pub dims: u32,
    /// For each row, the ordinal of its section.
    pub row_section: Vec<u32>,
    /// Per-row dequantisation scale (`value ≈ scale * level`), f32 LE bytes.
    #[serde(with = "serde_bytes")]
    pub scales: Vec<u8>,
    /// Rows of `dims` levels. In 4 bits, `dims.div_ceil(2)` bytes a row: dimension `2k` in
    /// the low nibble of byte `k`, `2k + 1` in the high one, each `level + 8`; in 8, `dims`
    /// int8 values.
    #[serde(with = "serde_bytes")]
    pub data: Vec<u8>,
    /// Bits a row value takes: 4 or 8 ([`bits_for`]).
    pub bits: u8,
    /// The best similarity nonsense reaches (see [`noise`]): a query whose words match
    /// nothing keeps its semantic results only above it. `None` before format 1.10, or for
    /// vectors not made by a model (no floor is applied then).
    pub noise_floor: Option<f32>,
}

/// The int8 quantisation of a vector: values and the scale with `value ≈ scale * int8`. The
/// ANN graph's query points (its stored points are the vectors file's rows, expanded).
pub fn quantize(vector: &[f32]) -> (Vec<i8>, f32) {
    quantize_to(vector, 127.0)
}

/// `vector` rounded to `−levels..=levels` times a scale (its largest magnitude / `levels`).
fn quantize_to(vector: &[f32], levels: f32) -> (Vec<i8>, f32) {
    let max = vector.iter().fold(0f32, |m, v| m.max(v.abs()));
    let scale = if max > 0.0 { max / levels } else { 1.0 };
    let values = vector
        .iter()
        .map(|v| (v / scale).round().clamp(-levels, levels) as i8)
        .collect();
    (values, scale)
}

/// `vector` as a row of `bits` (4 or 8) a value gives it back, by the rule [`VectorsData::push`]
/// stores rows with, and a static table's rows too (`table`): one rule for both.
pub fn rounded(vector: &[f32], bits: u8) -> Vec<f32> {
    let levels = if bits == 8 { 127.0 } else { LEVELS };
    let (values, scale) = quantize_to(vector, levels);
    values.iter().map(|&v| f32::from(v) * scale).collect()
}

/// The level a nibble stores.
#[inline(always)]
fn level(nibble: u8) -> i8 {
    (nibble & 15) as i8 - OFFSET
}

impl VectorsData {
    /// An empty set of `dims`-dimensional rows.
    pub fn new(dims: u32) -> Self {
        VectorsData {
            dims,
            row_section: Vec::new(),
            scales: Vec::new(),
            data: Vec::new(),
            bits: 4,
            noise_floor: None,
        }
    }

    /// An empty set of `dims`-dimensional rows of `bits` (4 or 8) a value.
    pub fn with_bits(dims: u32, bits: u8) -> Self {
        VectorsData {
            bits,
            ..VectorsData::new(dims)
        }
    }

    /// Whether rows are in 8 bits.
    fn eight(&self) -> bool {
        self.bits == 8
    }

    /// Whether a query's best similarity `best` lies above the noise floor (always, when
    /// the vectors have none).
    pub fn clearly_above_noise(&self, best: f32) -> bool {
        self.noise_floor.is_none_or(|floor| best > floor)
    }

    /// The similarity from which a section that holds none of a query's words still counts
    /// as a result of it: the noise floor (none without one).
    pub fn relevance_floor(&self) -> f32 {
        self.noise_floor.unwrap_or(f32::NEG_INFINITY)
    }

    /// Number of rows.
    pub fn count(&self) -> usize {
        self.row_section.len()
    }

    /// Bytes a row takes.
    fn row_bytes(&self) -> usize {
        if self.eight() {
            self.dims as usize
        } else {
            (self.dims as usize).div_ceil(2)
        }
    }

    /// Quantises and appends one row (an L2-normalised vector) for `section`.
    pub fn push(&mut self, section: u32, vector: &[f32]) {
        self.row_section.push(section);
        if self.eight() {
            let (values, scale) = quantize(vector);
            self.scales.extend_from_slice(&scale.to_le_bytes());
            self.data.extend(values.iter().map(|&v| v as u8));
            return;
        }
        let (values, scale) = quantize_to(vector, LEVELS);
        self.scales.extend_from_slice(&scale.to_le_bytes());
        self.data.extend(values.chunks(2).map(|pair| {
            let nibble = |v: i8| (v + OFFSET) as u8;
            nibble(pair[0]) | nibble(pair.get(1).copied().unwrap_or(0)) << 4
        }));
    }

    /// Checks the internal lengths agree (after decoding untrusted bytes).
    pub fn is_consistent(&self) -> bool {
        let n = self.row_section.len();
        matches!(self.bits, 4 | 8)
            && n.checked_mul(4) == Some(self.scales.len())
            && n.checked_mul(self.row_bytes()) == Some(self.data.len())
    }

    /// Row `r`'s packed bytes.
    fn row(&self, r: usize) -> &[u8] {
        let bytes = self.row_bytes();
        &self.data[r * bytes..(r + 1) * bytes]
    }

    /// Row `r`'s levels (`value ≈ scale * level`), one per dimension.
    pub fn levels(&self, r: usize) -> Vec<i8> {
        if self.eight() {
            return self.row(r).iter().map(|&b| b as i8).collect();
        }
        let mut out: Vec<i8> = self
            .row(r)
            .iter()
            .flat_map(|&b| [level(b), level(b >> 4)])
            .collect();
        out.truncate(self.dims as usize);
        out
    }

    /// Row `r` as floats (its levels times the row's scale): what the index holds for
    /// that window, for tools that hand the same vectors to another engine.
    pub fn dequantized(&self, r: usize) -> Vec<f32> {
        let scale = self.scale(r);
        self.levels(r)
            .into_iter()
            .map(|l| f32::from(l) * scale)
            .collect()
    }

    /// Row `r`'s dequantisation scale.
    pub fn scale(&self, r: usize) -> f32 {
        let s = &self.scales[r * 4..r * 4 + 4];
        f32::from_le_bytes([s[0], s[1], s[2], s[3]])
    }

    /// Cosine similarity of `query` (L2-normalised) with row `r`.
    fn score(&self, query: &[f32], r: usize) -> f32 {
        let row = self.row(r);
        if self.eight() {
            let dot: f32 = row
                .iter()
                .zip(query)
                .map(|(&q, &x)| f32::from(q as i8) * x)
                .sum();
            return dot * self.scale(r);
        }
        let pairs = query.chunks_exact(2);
        // An odd last dimension sits alone in the low nibble of the row's last byte.
        let last = pairs
            .remainder()
            .first()
            .map_or(0.0, |&x| f32::from(level(row[row.len() - 1])) * x);
        let dot: f32 = row
            .iter()
            .zip(pairs)
            .map(|(&b, x)| f32::from(level(b)) * x[0] + f32::from(level(b >> 4)) * x[1])
            .sum();
        (dot + last) * self.scale(r)
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
            bits: r.byte()?,
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

    #[test]
    fn rounded_keeps_fifteen_levels_of_the_largest_value_in_four_bits() {
        let r = rounded(&[0.7, -0.3, 0.04, 0.0], 4);
        assert_eq!(r.len(), 4);
        assert!((r[0] - 0.7).abs() < 1e-6 && (r[1] + 0.3).abs() < 1e-6);
        assert_eq!(r[2], 0.0);
        assert_eq!(rounded(&[0.0, 0.0], 4), vec![0.0, 0.0]);
        let mut data = VectorsData::with_bits(4, 4);
        data.push(0, &[0.7, -0.3, 0.04, 0.0]);
        assert_eq!(data.dequantized(0), r);
    }

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

    #[test]
    fn crowded_rows_keep_8_bits_and_score_alike() {
        let norm = |x: Vec<f32>| {
            let n = (x.iter().map(|a| a * a).sum::<f32>()).sqrt();
            x.iter().map(|a| a / n).collect::<Vec<f32>>()
        };
        // Spread out (mean's squared length small), and crowded around one direction.
        let spread: Vec<Vec<f32>> = (0..8)
            .map(|i| norm((0..8).map(|d| if d == i { 1.0 } else { 0.05 }).collect()))
            .collect();
        let crowded: Vec<Vec<f32>> = (0..8)
            .map(|i| {
                norm(
                    (0..8)
                        .map(|d| 1.0 + 0.1 * ((i * 3 + d) % 5) as f32)
                        .collect(),
                )
            })
            .collect();
        assert_eq!(bits_for(crowding(spread.iter().map(Vec::as_slice))), 4);
        assert_eq!(bits_for(crowding(crowded.iter().map(Vec::as_slice))), 8);
        let same = [crowded[0].clone(), crowded[0].clone()];
        assert!((crowding(same.iter().map(Vec::as_slice)) - 1.0).abs() < 1e-5);
        let mut eight = VectorsData::with_bits(8, 8);
        for (s, r) in crowded.iter().enumerate() {
            eight.push(s as u32, r);
        }
        assert!(eight.is_consistent());
        assert_eq!(eight.data.len(), 64, "a byte a value");
        let bytes = crate::format::encode(crate::format::FileKind::Vectors, &eight).unwrap();
        let back: VectorsData =
            crate::format::decode(crate::format::FileKind::Vectors, "v", &bytes).unwrap();
        assert_eq!(back, eight);
        for (section, score) in back.scan(&crowded[2]) {
            let exact: f32 = crowded[section as usize]
                .iter()
                .zip(&crowded[2])
                .map(|(a, b)| a * b)
                .sum();
            assert!(
                (score - exact).abs() < 0.01,
                "{section}: {score} vs {exact}"
            );
        }
        assert_eq!(back.levels(0).len(), 8);
        let mut wrong = back.clone();
        wrong.bits = 5;
        assert!(!wrong.is_consistent(), "only 4 and 8 bits are read");
    }

    #[test]
    fn rows_are_4_bit_and_score_as_their_levels_do() {
        // Odd and even dimensions: the odd last one sits alone in its byte.
        for dims in [5usize, 6] {
            let mut v = VectorsData::new(dims as u32);
            let x: Vec<f32> = (0..dims).map(|i| (i as f32 - 2.2) / 4.0).collect();
            let q: Vec<f32> = (0..dims).map(|i| 0.3 - 0.1 * i as f32).collect();
            v.push(7, &x);
            assert_eq!(v.data.len(), dims.div_ceil(2), "two dimensions a byte");
            assert!(v.is_consistent());
            let levels = v.levels(0);
            assert_eq!(levels.len(), dims);
            assert!(levels.iter().all(|l| (-7..=7).contains(l)));
            assert!(levels.iter().any(|l| l.abs() == 7), "the largest is ±7");
            let back = v.dequantized(0);
            for (a, b) in x.iter().zip(&back) {
                assert!((a - b).abs() <= v.scale(0) / 2.0 + 1e-6, "{a} vs {b}");
            }
            let expected: f32 = back.iter().zip(&q).map(|(a, b)| a * b).sum();
            let (section, score) = v.scan(&q)[0];
            assert_eq!(section, 7);
            assert!((score - expected).abs() < 1e-5, "{score} vs {expected}");
        }
    }
}
