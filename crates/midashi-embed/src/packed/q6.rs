//! The `MQ6G` entry format, writer beside reader: a weight matrix in 6 bits a value — for
//! the weights 4 bits round too coarsely (a feed-forward down-projection sums four times as
//! many rounded products per output as the other weights: in 4 bits SciFact semantic fell
//! from 0.6895 to 0.682, `q4` says so), where 8 bits were a quarter more bytes than needed.
//! Rounded to nearest only: with a site's text in view (`gptq`) 4 bits hold them.
//!
//! Laid out as `q4`'s blocks: per run of 32 rows, each column's f16 scale, then the run's rows
//! in order, each as its columns' values four in three bytes (little-endian, 6 bits each,
//! column 4k in the low bits). Value = (q − 32) × its column's scale.

use super::runs::Runs;
#[cfg(test)]
use super::{Unpacked, Values};

const MAGIC: &[u8; 4] = b"MQ6G";

/// Every level, each block's extreme at −32 or a little further in, scales as f16 has them.
#[cfg(feature = "onnx")]
const GRID: super::Grid = super::Grid {
    zero: 32.0,
    below: 32.0,
    spread: 4.0,
    scale_bits: 10,
};

fn row_bytes(columns: usize) -> usize {
    columns.div_ceil(4) * 3
}

/// An `MQ6G` entry read in place, its length checked.
#[derive(Debug)]
pub(crate) struct Table<'a> {
    /// The tensor's shape.
    pub dims: Vec<usize>,
    runs: Runs<'a>,
}

impl<'a> Table<'a> {
    /// The entry's header read and its length checked against it; `None` if damaged.
    pub(crate) fn read(bytes: &'a [u8]) -> Option<Self> {
        let (dims, rest) = super::shape::dims_at(bytes.strip_prefix(MAGIC)?)?;
        let runs = Runs::new(&dims, row_bytes(*dims.last()?), rest)?;
        Some(Table { dims, runs })
    }

    /// Each row expanded, in order, to `f` with its index.
    pub(crate) fn for_each_row(&self, mut f: impl FnMut(usize, &[f32])) {
        let columns = self.runs.columns;
        let mut row = vec![0f32; columns.div_ceil(4) * 4];
        let mut padded = vec![0f32; row.len()];
        let mut index = 0;
        self.runs.for_each(|scales, packed| {
            padded[..columns].copy_from_slice(scales);
            expand(packed, &padded, &mut row);
            f(index, &row[..columns]);
            index += 1;
        });
    }
}

impl Table<'_> {
    /// Each row's integer values (q − 32) with its run's scales, in order, for the integer
    /// dense layers (`crate::bert::integer`).
    pub(crate) fn for_each_int_row(&self, mut f: impl FnMut(usize, &[f32], &[i8])) {
        let mut ints = vec![0i8; self.runs.columns.div_ceil(4) * 4];
        let mut index = 0;
        self.runs.for_each(|scales, packed| {
            for (three, four) in packed.chunks_exact(3).zip(ints.chunks_exact_mut(4)) {
                let bits =
                    u32::from(three[0]) | u32::from(three[1]) << 8 | u32::from(three[2]) << 16;
                for (j, v) in four.iter_mut().enumerate() {
                    *v = ((bits >> (6 * j)) & 63) as i8 - 32;
                }
            }
            f(index, scales, &ints[..scales.len()]);
            index += 1;
        });
    }
}

/// One row: four values from each three bytes, times their columns' scales. A call per row:
/// V8 optimises a function between calls, not during one (see `q4`).
#[inline(never)]
fn expand(packed: &[u8], scales: &[f32], row: &mut [f32]) {
    for ((three, four), s) in packed
        .chunks_exact(3)
        .zip(row.chunks_exact_mut(4))
        .zip(scales.chunks_exact(4))
    {
        let bits = u32::from(three[0]) | u32::from(three[1]) << 8 | u32::from(three[2]) << 16;
        for (j, v) in four.iter_mut().enumerate() {
            *v = (((bits >> (6 * j)) & 63) as f32 - 32.0) * s[j];
        }
    }
}

/// The entry expanded whole (the encoder reads it row by row; tests compare it whole).
#[cfg(test)]
fn unpack(bytes: &[u8]) -> Option<Unpacked> {
    let table = Table::read(bytes)?;
    let mut out = Vec::with_capacity(table.runs.rows * table.runs.columns);
    table.for_each_row(|_, row| out.extend_from_slice(row));
    Some(Unpacked {
        dims: table.dims,
        values: Values::F32(out),
    })
}

/// `values` (row-major, `dims` its shape) as an `MQ6G` entry; `None` for a non-finite value.
/// Each block's scale puts its extreme at −32 or a little further in (`runs::quantise`).
#[cfg(feature = "onnx")]
pub(crate) fn pack(values: &[f32], dims: &[usize]) -> Option<Vec<u8>> {
    let shape = super::runs::checked(values, dims)?;
    let mut out = MAGIC.to_vec();
    super::shape::push_dims(&mut out, dims);
    super::runs::write(
        &mut out,
        values,
        shape,
        |block| super::runs::quantise(block, GRID),
        |out, levels| {
            for four in levels.chunks(4) {
                let bits = (0..4).fold(0u32, |b, k| {
                    b | u32::from(four.get(k).copied().unwrap_or(32)) << (6 * k)
                });
                out.extend(&bits.to_le_bytes()[..3]);
            }
        },
    );
    Some(out)
}

#[cfg(all(test, feature = "onnx"))]
mod tests {
    use super::super::runs::BLOCK;
    use super::*;

    #[test]
    fn values_come_back_within_a_step_and_damage_is_refused() {
        // 70 rows (two whole runs and a short one) × 6 columns (one padded group of four).
        let dims = [70usize, 6];
        let values: Vec<f32> = (0..420)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) * [0.001, 0.1, 3.0][i % 3])
            .collect();
        let packed = pack(&values, &dims).unwrap();
        let Values::F32(back) = unpack(&packed).unwrap().values else {
            panic!("f32 values");
        };
        for c in 0..6 {
            for first in (0..70).step_by(BLOCK) {
                let rows = first..70.min(first + BLOCK);
                let extreme = rows
                    .clone()
                    .fold(0f32, |m, r| m.max(values[r * 6 + c].abs()));
                for r in rows {
                    let (v, b) = (values[r * 6 + c], back[r * 6 + c]);
                    // Within half a step, or within the clipping of the block's extreme (scales down
                    // to extreme / 36 are tried).
                    assert!(
                        (v - b).abs() <= extreme * 0.12 + 1e-6,
                        "row {r} col {c}: {v} -> {b}"
                    );
                }
            }
        }
        assert!(unpack(&packed[..packed.len() - 1]).is_none());
        assert!(unpack(&[packed.as_slice(), &[0]].concat()).is_none());
        assert!(unpack(b"MQ6G").is_none());
    }
}
