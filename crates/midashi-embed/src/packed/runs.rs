//! The layout `q4` and `q6` share, writer beside reader: a matrix's rows in runs of
//! [`BLOCK`], each run an f16 scale per column, then the run's rows in order, each packed into
//! the same number of bytes. Rows come out in the order a tensor holds them, so expanding is
//! one sequential pass (natively on MiniLM, block-by-block writes made 4-bit loads 95 ms
//! slower than 8-bit ones).

use half::f16;

#[cfg(feature = "onnx")]
use super::Grid;

/// Rows per run (a scale per column each): llama.cpp's Q4_0 block.
pub(super) const BLOCK: usize = 32;

/// The runs of an entry, their length checked against the shape.
#[derive(Debug)]
pub(super) struct Runs<'a> {
    pub rows: usize,
    pub columns: usize,
    row_bytes: usize,
    bytes: &'a [u8],
}

impl<'a> Runs<'a> {
    /// The runs after an entry's header, for a tensor of shape `dims` whose rows take
    /// `row_bytes` each; `None` unless `bytes` is exactly that long.
    pub(super) fn new(dims: &[usize], row_bytes: usize, bytes: &'a [u8]) -> Option<Self> {
        let columns = *dims.last()?;
        let count = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
        if columns == 0 {
            return None;
        }
        let rows = count / columns;
        // Every run has its scales; whole runs and the last one's rows follow them. (In closed
        // form: the word table is read again for each token's row.)
        let expected = rows
            .div_ceil(BLOCK)
            .checked_mul(columns.checked_mul(2)?)?
            .checked_add(rows.checked_mul(row_bytes)?)?;
        (bytes.len() == expected).then_some(Runs {
            rows,
            columns,
            row_bytes,
            bytes,
        })
    }

    /// Each row's packed bytes with its run's scales, in order.
    pub(super) fn for_each(&self, mut f: impl FnMut(&[f32], &[u8])) {
        let mut scales = vec![0f32; self.columns];
        let mut bytes = self.bytes;
        let mut first = 0;
        while first < self.rows {
            let run = BLOCK.min(self.rows - first);
            let (head, body) = bytes.split_at(self.columns * 2);
            read_scales(head, &mut scales);
            let (block, tail) = body.split_at(run * self.row_bytes);
            bytes = tail;
            for packed in block.chunks_exact(self.row_bytes) {
                f(&scales, packed);
            }
            first += run;
        }
    }

    /// Row `row`'s packed bytes and its run's scales; `None` past the last row.
    pub(super) fn row(&self, row: usize) -> Option<(Vec<f32>, &'a [u8])> {
        if row >= self.rows {
            return None;
        }
        // Every run before the last is whole.
        let at = row / BLOCK * (self.columns * 2 + BLOCK * self.row_bytes);
        let mut scales = vec![0f32; self.columns];
        read_scales(self.bytes.get(at..at + self.columns * 2)?, &mut scales);
        let start = at + self.columns * 2 + row % BLOCK * self.row_bytes;
        Some((scales, self.bytes.get(start..start + self.row_bytes)?))
    }
}

fn read_scales(head: &[u8], scales: &mut [f32]) {
    for (s, b) in scales.iter_mut().zip(head.chunks_exact(2)) {
        *s = f16::from_le_bytes([b[0], b[1]]).to_f32();
    }
}

/// Rows and columns of `values`, if they fill `dims` (at least one column) and are finite.
#[cfg(feature = "onnx")]
pub(super) fn checked(values: &[f32], dims: &[usize]) -> Option<(usize, usize)> {
    let columns = *dims.last()?;
    (columns > 0
        && values.len() == dims.iter().product::<usize>()
        && values.iter().all(|v| v.is_finite()))
    .then(|| (values.len() / columns, columns))
}

/// Writes `values` (`rows × columns`) as runs: per run, each column's block quantised by
/// `quantise` (scale and levels), then each row packed by `pack_row` from its columns' levels.
#[cfg(feature = "onnx")]
pub(super) fn write(
    out: &mut Vec<u8>,
    values: &[f32],
    (rows, columns): (usize, usize),
    mut quantise: impl FnMut(&[f32]) -> (f16, Vec<u8>),
    mut pack_row: impl FnMut(&mut Vec<u8>, &[u8]),
) {
    let mut block = Vec::with_capacity(BLOCK);
    for first in (0..rows).step_by(BLOCK) {
        let run = BLOCK.min(rows - first);
        let mut levels = vec![Vec::new(); columns];
        for (c, column) in levels.iter_mut().enumerate() {
            block.clear();
            block.extend((0..run).map(|j| values[(first + j) * columns + c]));
            let (scale, l) = quantise(&block);
            out.extend(scale.to_le_bytes());
            *column = l;
        }
        let mut row = vec![0u8; columns];
        for j in 0..run {
            for (r, column) in row.iter_mut().zip(&levels) {
                *r = column[j];
            }
            pack_row(out, &row);
        }
    }
}

/// The block quantiser `write` takes: with `hessian` (the layer's inputs on calibration
/// text), GPTQ's scales and levels (`super::gptq`) in the order `write` asks for them; without
/// one, or if that fails, each block to nearest ([`quantise`]).
#[cfg(feature = "onnx")]
pub(super) fn quantiser(
    values: &[f32],
    shape: (usize, usize),
    hessian: Option<&super::gptq::Hessian>,
    grid: Grid,
) -> impl FnMut(&[f32]) -> (f16, Vec<u8>) {
    let planned = hessian
        .and_then(|h| super::gptq::round(values, shape, h, BLOCK, grid, |b| quantise(b, grid).0));
    let mut planned = planned.map(Vec::into_iter);
    move |block| {
        planned
            .as_mut()
            .and_then(Iterator::next)
            .unwrap_or_else(|| quantise(block, grid))
    }
}

/// One block's scale and levels (stored `level + zero`): the value of largest magnitude taken
/// as −`below` × scale, and smaller scales down to −(`below` + `spread`) beside it (clipping
/// that value a little can place the rest better), whichever leaves the least squared error,
/// as llama.cpp's later quantisers do; each candidate scale as the grid keeps it. Measured
/// with MiniLM in 4 bits (SciFact semantic nDCG@10, every weight in 4 bits): Q4_0's scale
/// alone 0.675, the best of 17 0.682.
#[cfg(feature = "onnx")]
pub(super) fn quantise(block: &[f32], grid: Grid) -> (f16, Vec<u8>) {
    const TRIES: u8 = 16;
    let extreme = block
        .iter()
        .copied()
        .fold(0f32, |m, v| if v.abs() > m.abs() { v } else { m });
    let mut best = (f16::ZERO, vec![grid.zero as u8; block.len()], f32::INFINITY);
    if extreme == 0.0 {
        return (best.0, best.1);
    }
    for t in 0..=TRIES {
        let step = grid.below + f32::from(t) * grid.spread / f32::from(TRIES);
        let scale = grid.scale(f16::from_f32(extreme / -step));
        let s = scale.to_f32();
        if s == 0.0 || !s.is_finite() {
            continue;
        }
        let levels: Vec<u8> = block.iter().map(|&v| grid.level32(v, s)).collect();
        let error: f32 = block
            .iter()
            .zip(&levels)
            .map(|(&v, &l)| ((f32::from(l) - grid.zero) * s - v).powi(2))
            .sum();
        if error < best.2 {
            best = (scale, levels, error);
        }
    }
    (best.0, best.1)
}
