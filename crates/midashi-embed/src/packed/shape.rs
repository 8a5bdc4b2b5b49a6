//! The shape header of a packed tensor entry (`.q8c`, `.q4g`): rank u32, then each
//! dimension u32.

/// A shape as entries store it: rank u32, then each dimension u32 (rank 1 to 8).
pub(crate) fn dims_at(b: &[u8]) -> Option<(Vec<usize>, &[u8])> {
    let (rank, mut rest) = u32_at(b)?;
    if rank == 0 || rank > 8 {
        return None;
    }
    let mut dims = Vec::with_capacity(rank as usize);
    for _ in 0..rank {
        let (d, r) = u32_at(rest)?;
        dims.push(d as usize);
        rest = r;
    }
    Some((dims, rest))
}

/// Writes a shape as [`dims_at`] reads it.
#[cfg(feature = "onnx")]
pub(crate) fn push_dims(out: &mut Vec<u8>, dims: &[usize]) {
    out.extend((dims.len() as u32).to_le_bytes());
    for &d in dims {
        out.extend((d as u32).to_le_bytes());
    }
}

fn u32_at(b: &[u8]) -> Option<(u32, &[u8])> {
    let (head, rest) = b.split_first_chunk::<4>()?;
    Some((u32::from_le_bytes(*head), rest))
}
