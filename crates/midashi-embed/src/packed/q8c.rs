//! The `.q8c` entry format, writer beside reader: a weight-only quantised weight as its int8
//! values and a scale per column, expanded at load to the very f32 bits decluttering made.

/// Entry extension in tract's prepared graph (`<label>.q8c` in place of `<label>.dat`).
#[cfg_attr(not(feature = "tract"), allow(dead_code))] // the prepared graph's entries
pub(crate) const EXTENSION: &str = "q8c";
const MAGIC: &[u8; 4] = b"MQ8C";

/// `MQ8C`, rank u32, dims u32 × rank, scales f32 × last dim, values i8 × product:
/// value i of column c = (q[i] as f32) × scale[c] (f32 multiplication).
#[cfg_attr(not(feature = "tract"), allow(dead_code))] // expanded whole by tract's loader
pub(crate) fn unpack(bytes: &[u8]) -> Option<super::Unpacked> {
    let mut out = Vec::new();
    let dims = for_each_row(bytes, |_, row| out.extend_from_slice(row))?;
    Some(super::Unpacked {
        dims,
        values: super::Values::F32(out),
    })
}

/// The entry's shape, its length checked against it; `None` if damaged.
pub(crate) fn dims(bytes: &[u8]) -> Option<Vec<usize>> {
    header(bytes).map(|(dims, _, _)| dims)
}

/// Row `row` (all dimensions but the last flattened) expanded into `out` (as wide as the
/// last dimension); false if the entry is damaged or the row out of range.
pub(crate) fn row(bytes: &[u8], row: usize, out: &mut [f32]) -> bool {
    let Some((dims, scales, q)) = header(bytes) else {
        return false;
    };
    let columns = dims.last().copied().unwrap_or(0);
    let Some(values) = q.get(row * columns..(row + 1) * columns) else {
        return false;
    };
    if out.len() != columns {
        return false;
    }
    for ((o, &v), s) in out.iter_mut().zip(values).zip(scales.chunks_exact(4)) {
        *o = f32::from(v as i8) * f32::from_le_bytes([s[0], s[1], s[2], s[3]]);
    }
    true
}

/// Shape, scales and values of an entry whose length matches its shape.
fn header(bytes: &[u8]) -> Option<(Vec<usize>, &[u8], &[u8])> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (dims, rest) = super::shape::dims_at(rest)?;
    let columns = *dims.last()?;
    let count = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    if columns == 0 || rest.len() != columns.checked_mul(4)?.checked_add(count)? {
        return None;
    }
    let (scales, q) = rest.split_at(columns * 4);
    Some((dims, scales, q))
}

/// Each row of the entry (all dimensions but the last flattened) expanded, in order, to `f`
/// with its index; the shape, or `None` if the entry is damaged (then `f` saw no row).
pub(crate) fn for_each_row(bytes: &[u8], mut f: impl FnMut(usize, &[f32])) -> Option<Vec<usize>> {
    let mut row = Vec::new();
    // Row by row, so the inner loop is a plain multiply of two slices (SIMD in wasm too).
    rows(bytes, |i, scales, q| {
        row.resize(q.len(), 0.0);
        expand(&mut row, q, scales);
        f(i, &row);
    })
}

/// Each row's int8 values with the column scales, in order (the integer dense layers,
/// `crate::bert::integer`); `None` if the entry is damaged (then `f` saw no row).
pub(crate) fn for_each_int_row(
    bytes: &[u8],
    mut f: impl FnMut(usize, &[f32], &[i8]),
) -> Option<()> {
    let mut ints = Vec::new();
    rows(bytes, |i, scales, q| {
        ints.clear();
        ints.extend(q.iter().map(|&v| v as i8));
        f(i, scales, &ints);
    })
    .map(|_| ())
}

/// Each row's stored bytes with the column scales, in order; the shape, or `None` if the
/// entry is damaged.
fn rows(bytes: &[u8], mut f: impl FnMut(usize, &[f32], &[u8])) -> Option<Vec<usize>> {
    let (dims, scales, q) = header(bytes)?;
    let columns = *dims.last()?;
    let scales: Vec<f32> = scales
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    for (i, q_row) in q.chunks_exact(columns).enumerate() {
        f(i, &scales, q_row);
    }
    Some(dims)
}

/// One row of int8 values times their columns' scales. A call per row: see `q4`'s `expand`
/// on why (V8 optimises a function between calls, not during one).
#[inline(never)]
fn expand(row: &mut [f32], q: &[u8], scales: &[f32]) {
    for ((o, &v), &s) in row.iter_mut().zip(q).zip(scales) {
        *o = f32::from(v as i8) * s;
    }
}

/// Per column of `values` (row-major, `columns` wide): a scale and int8 values whose
/// products are exactly `values`, or `None` if some column has none. Quantisers set the
/// scale to max |w| / 127, so that is tried first (and its neighbouring floats, for the
/// rounding of the division); then smaller largest values, for a column that never
/// reached ±127.
#[cfg(feature = "onnx")]
fn decompose(values: &[f32], columns: usize) -> Option<(Vec<f32>, Vec<i8>)> {
    let rows = values.len() / columns;
    let mut scales = Vec::with_capacity(columns);
    let mut q = vec![0i8; values.len()];
    for c in 0..columns {
        let column = || (0..rows).map(|r| values[r * columns + c]);
        let max = column().fold(0f32, |m, v| m.max(v.abs()));
        if !max.is_finite() {
            return None;
        }
        if max == 0.0 {
            scales.push(1.0);
            continue;
        }
        let fits = |s: f32| {
            column()
                .all(|v| (v / s).round().abs() <= 127.0 && ((v / s).round() as i8 as f32) * s == v)
        };
        let scale = (1..=127u32).rev().find_map(|k| {
            let base = (max / k as f32).to_bits();
            [0i64, -1, 1, -2, 2]
                .into_iter()
                .map(|d| f32::from_bits((i64::from(base) + d) as u32))
                .find(|&s| s > 0.0 && s.is_finite() && fits(s))
        })?;
        for r in 0..rows {
            q[r * columns + c] = (values[r * columns + c] / scale).round() as i8;
        }
        scales.push(scale);
    }
    Some((scales, q))
}

/// `values` (row-major, `dims` its shape) rounded to int8 × a scale per column (max |w| / 127)
/// as a `.q8c` entry: for a table the model keeps in f32, whose rows 4 bits would move too
/// far (the position embeddings; `crate::graph`'s repack says why 8 bits). `None` for a non-finite
/// value.
#[cfg(feature = "onnx")]
pub(crate) fn pack_rounded(values: &[f32], dims: &[usize]) -> Option<Vec<u8>> {
    let columns = *dims.last()?;
    if columns == 0 || values.len() % columns != 0 || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut scales = vec![0f32; columns];
    for row in values.chunks_exact(columns) {
        for (s, v) in scales.iter_mut().zip(row) {
            *s = s.max(v.abs() / 127.0);
        }
    }
    for s in &mut scales {
        if *s == 0.0 {
            *s = 1.0;
        }
    }
    let mut out = MAGIC.to_vec();
    super::shape::push_dims(&mut out, dims);
    for s in &scales {
        out.extend(s.to_le_bytes());
    }
    for row in values.chunks_exact(columns) {
        out.extend(
            row.iter()
                .zip(&scales)
                .map(|(v, s)| (v / s).round().clamp(-127.0, 127.0) as i8 as u8),
        );
    }
    Some(out)
}

/// `values` (row-major, `dims` its shape) as a `.q8c` entry, if each column is exactly int8 ×
/// a scale (what weight-only per-channel quantisation makes) and reads back to the same bits.
#[cfg(feature = "onnx")]
pub(crate) fn pack(values: &[f32], dims: &[usize]) -> Option<Vec<u8>> {
    let (scales, q) = decompose(values, *dims.last()?)?;
    let mut out = MAGIC.to_vec();
    super::shape::push_dims(&mut out, dims);
    for s in scales {
        out.extend(s.to_le_bytes());
    }
    out.extend(q.iter().map(|&v| v as u8));
    // Refuse anything that would not read back to the same bits.
    let back = unpack(&out)?;
    let super::Values::F32(back) = back.values else {
        return None;
    };
    (back
        .iter()
        .map(|v| v.to_bits())
        .eq(values.iter().map(|v| v.to_bits())))
    .then_some(out)
}
