//! An encoder file's word table cut to the pieces a site keeps ([`crate::trim`]): the file
//! `build-index prepare-model` writes (the npm model packages) has no ONNX graph to cut, and
//! its word table is most of it (6.6 of MiniLM's 13.9 MB).
//!
//! Rows of a 4-bit table share their columns' scales in runs of 32 (`packed::q4`), so the
//! kept rows are rounded again in runs of their own: `build-index` ships the cut copy only
//! when its queries embed as the whole file's do (`shipped_model::trim_for_site`).

use super::file::{pack_plain, write, Entries};
use super::{WORDS_F32, WORDS_INT8, WORDS_SCALE};
use crate::error::EmbedError;
use crate::packed::{q4, q8c};

/// The encoder file `bytes` with only the word-table rows `keep` names (ascending ids), each
/// other tensor as it was.
pub fn trim_words(bytes: &[u8], keep: &[u32]) -> Result<Vec<u8>, EmbedError> {
    let entries = Entries::read(bytes)?;
    let bad = |what: &str| EmbedError::BadModel(format!("trimming the encoder file: {what}"));
    let mut tensors = Vec::with_capacity(entries.tensors.len());
    for &(name, entry) in &entries.tensors {
        let cut = match name {
            WORDS_INT8 | WORDS_F32 => {
                let dims = entries.dims(name)?;
                let [_, columns] = dims[..] else {
                    return Err(bad("the word table is not a matrix"));
                };
                let mut values = Vec::with_capacity(keep.len() * columns);
                let mut next = keep.iter().peekable();
                entries.rows(name, |i, row| {
                    if next.next_if(|&&k| k as usize == i).is_some() {
                        values.extend_from_slice(row);
                    }
                })?;
                // Ascending ids: one left over is past the table's last row.
                if next.peek().is_some() {
                    return Err(bad("a kept piece is outside the word table"));
                }
                let dims = [keep.len(), columns];
                let int8 = name == WORDS_INT8;
                let packed = if entry.starts_with(b"MQ4G") {
                    q4::pack_with(&values, &dims, int8, None, q4::WORDS)
                } else if entry.starts_with(b"MQ8C") {
                    q8c::pack(&values, &dims)
                } else {
                    Some(pack_plain(&values, &dims))
                };
                packed.ok_or_else(|| bad("the kept rows do not pack"))?
            }
            WORDS_SCALE => {
                let (_, scales) = entries.f32(name)?;
                let kept: Option<Vec<f32>> = keep
                    .iter()
                    .map(|&k| scales.get(k as usize).copied())
                    .collect();
                let kept = kept.ok_or_else(|| bad("a kept piece has no scale"))?;
                pack_plain(&kept, &[kept.len()])
            }
            _ => entry.to_vec(),
        };
        tensors.push((name.to_string(), cut));
    }
    Ok(write(entries.heads, entries.eps, &tensors))
}
