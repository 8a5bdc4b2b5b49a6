//! The `MQ6G` entry format, writer beside reader: a weight matrix in 6 bits a value — for
//! the weights 4 bits round too coarsely (a feed-forward down-projection sums four times as
//! many rounded products per output as the other weights: in 4 bits SciFact semantic fell
//! from 0.6895 to 0.682, `q4` says so), where 8 bits were a quarter more bytes than needed.
//!
//! Laid out as `q4`'s blocks: per run of 32 rows, each column's f16 scale, then the run's rows
//! in order, each as its columns' values four in three bytes (little-endian, 6 bits each,
//! column 4k in the low bits). Value = (q − 32) × its column's scale.

use super::{Unpacked, Values};
use half::f16;

const MAGIC: &[u8; 4] = b"MQ6G";
/// Rows per run (a scale per column each).
const BLOCK: usize = 32;

fn row_bytes(columns: usize) -> usize {
    columns.div_ceil(4) * 3
}

/// An `MQ6G` entry read in place, its length checked.
#[derive(Debug)]
pub(crate) struct Table<'a> {
    /// The tensor's shape.
    pub dims: Vec<usize>,
    rows: usize,
    columns: usize,
    runs: &'a [u8],
}

impl<'a> Table<'a> {
    /// The entry's header read and its length checked against it; `None` if damaged.
    pub(crate) fn read(bytes: &'a [u8]) -> Option<Self> {
        let (dims, rest) = super::shape::dims_at(bytes.strip_prefix(MAGIC)?)?;
        let columns = *dims.last()?;
        let count = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
        if columns == 0 {
            return None;
        }
        let rows = count / columns;
        let expected = (0..rows.div_ceil(BLOCK)).try_fold(0usize, |a, b| {
            let run = BLOCK.min(rows - b * BLOCK);
            a.checked_add(
                columns
                    .checked_mul(2)?
                    .checked_add(run.checked_mul(row_bytes(columns))?)?,
            )
        })?;
        (rest.len() == expected).then_some(Table {
            dims,
            rows,
            columns,
            runs: rest,
        })
    }

    /// Each row expanded, in order, to `f` with its index.
    pub(crate) fn for_each_row(&self, mut f: impl FnMut(usize, &[f32])) {
        let width = row_bytes(self.columns);
        let mut scales = vec![0f32; self.columns];
        let mut row = vec![0f32; self.columns.div_ceil(4) * 4];
        let mut bytes = self.runs;
        let mut index = 0;
        while index < self.rows {
            let run = BLOCK.min(self.rows - index);
            let (head, body) = bytes.split_at(self.columns * 2);
            for (s, b) in scales.iter_mut().zip(head.chunks_exact(2)) {
                *s = f16::from_le_bytes([b[0], b[1]]).to_f32();
            }
            scales.resize(row.len(), 0.0);
            let (block, tail) = body.split_at(run * width);
            bytes = tail;
            for packed in block.chunks_exact(width) {
                expand(packed, &scales, &mut row);
                f(index, &row[..self.columns]);
                index += 1;
            }
            scales.truncate(self.columns);
        }
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

/// The entry expanded whole.
pub(crate) fn unpack(bytes: &[u8]) -> Option<Unpacked> {
    let table = Table::read(bytes)?;
    let mut out = Vec::with_capacity(table.rows * table.columns);
    table.for_each_row(|_, row| out.extend_from_slice(row));
    Some(Unpacked {
        dims: table.dims,
        values: Values::F32(out),
    })
}

/// `values` (row-major, `dims` its shape) as an `MQ6G` entry; `None` for a non-finite value.
#[cfg(feature = "onnx")]
pub(crate) fn pack(values: &[f32], dims: &[usize]) -> Option<Vec<u8>> {
    let columns = *dims.last()?;
    if columns == 0
        || values.len() != dims.iter().product::<usize>()
        || values.iter().any(|v| !v.is_finite())
    {
        return None;
    }
    let rows = values.len() / columns;
    let mut out = MAGIC.to_vec();
    super::shape::push_dims(&mut out, dims);
    let padded = columns.div_ceil(4) * 4;
    for first in (0..rows).step_by(BLOCK) {
        let run = BLOCK.min(rows - first);
        let mut q = vec![[32u8; BLOCK]; padded];
        for (c, column) in q.iter_mut().enumerate().take(columns) {
            let block: Vec<f32> = (0..run)
                .map(|j| values[(first + j) * columns + c])
                .collect();
            let (scale, levels) = quantise(&block);
            out.extend(scale.to_le_bytes());
            column[..run].copy_from_slice(&levels);
        }
        for j in 0..run {
            for four in q.chunks_exact(4) {
                let bits = (0..4).fold(0u32, |b, k| b | u32::from(four[k][j]) << (6 * k));
                out.extend(&bits.to_le_bytes()[..3]);
            }
        }
    }
    Some(out)
}

/// One block's scale and levels (0..63, 32 being zero): the scale that puts the value of
/// largest magnitude at −32, or a little further in (clipping it can place the rest better),
/// whichever leaves the least squared error.
#[cfg(feature = "onnx")]
fn quantise(block: &[f32]) -> (f16, Vec<u8>) {
    const TRIES: u8 = 16;
    let extreme = block
        .iter()
        .copied()
        .fold(0f32, |m, v| if v.abs() > m.abs() { v } else { m });
    let mut best = (f16::ZERO, vec![32u8; block.len()], f32::INFINITY);
    if extreme == 0.0 {
        return (best.0, best.1);
    }
    for t in 0..=TRIES {
        let scale = f16::from_f32(extreme / -(32.0 + f32::from(t) * 4.0 / f32::from(TRIES)));
        let s = scale.to_f32();
        if s == 0.0 || !s.is_finite() {
            continue;
        }
        let mut error = 0f32;
        let levels: Vec<u8> = block
            .iter()
            .map(|&v| {
                let q = (v / s).round().clamp(-32.0, 31.0);
                error += (q * s - v).powi(2);
                (q + 32.0) as u8
            })
            .collect();
        if error < best.2 {
            best = (scale, levels, error);
        }
    }
    (best.0, best.1)
}

#[cfg(all(test, feature = "onnx"))]
mod tests {
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
