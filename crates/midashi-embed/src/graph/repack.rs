//! The prepared graph's tar, rewritten from tract's NNEF: large weights packed (`.q8c`, or
//! `.q4g` for [`WeightBits::Four`]), entries in a fixed order with fixed metadata.

use super::{q4, q8c, WeightBits};

/// Tensors smaller than this stay `.dat`: not worth a second format.
const MIN_VALUES: usize = 4096;

/// Rewrites tract's NNEF tar: every f32 `.dat` tensor that decomposes exactly into int8 ×
/// a scale per column (a weight-only quantised weight) becomes a `.q8c` entry, or with
/// `bits: Four` a `.q4g` one; entries are sorted by name with fixed metadata (deterministic
/// bytes).
pub(super) fn repack(nnef_tar: &[u8], bits: WeightBits) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let mut archive = tar::Archive::new(nnef_tar);
    for entry in archive.entries()? {
        let mut entry = entry?;
        let name = entry.path()?.to_string_lossy().into_owned();
        let mut data = Vec::new();
        entry.read_to_end(&mut data)?;
        entries.push(
            match name
                .strip_suffix(".dat")
                .and_then(|label| packed(&data, bits).map(|(ext, p)| (format!("{label}.{ext}"), p)))
            {
                Some(packed) => packed,
                None => (name, data),
            },
        );
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = tar::Builder::new(Vec::new());
    for (name, data) in entries {
        let mut header = tar::Header::new_ustar();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        out.append_data(&mut header, &name, data.as_slice())?;
    }
    out.into_inner()
}

/// A `.dat` tensor (tract's NNEF tensor file: 128-byte header, then the data) as a
/// packed entry and its extension: `.q8c` if it is f32, large, and exactly int8 × a scale per
/// column; with `bits: Four`, `.q4g` instead for such a weight and for an int8 table of the
/// shapes `super::q4` takes.
fn packed(dat: &[u8], bits: WeightBits) -> Option<(&'static str, Vec<u8>)> {
    use tract_onnx::prelude::DatumType;
    let tensor = tract_nnef::tensors::read_tensor(dat).ok()?;
    if tensor.len() < MIN_VALUES || tensor.rank() == 0 {
        return None;
    }
    let four = bits == WeightBits::Four;
    if tensor.datum_type() == DatumType::I8 {
        if !four || !q4::suits_table(tensor.shape()) {
            return None;
        }
        let view = tensor.to_plain_array_view::<i8>().ok()?;
        let values: Vec<f32> = view.iter().map(|&v| f32::from(v)).collect();
        return q4::pack(&values, tensor.shape(), true).map(|p| (q4::EXTENSION, p));
    }
    if tensor.datum_type() != DatumType::F32 {
        return None;
    }
    let view = tensor.to_plain_array_view::<f32>().ok()?;
    let values: Vec<f32> = view.iter().copied().collect();
    // Only a weight-only quantised weight: a tensor the model keeps in f32 (position
    // embeddings, norms) is stored as it is.
    let exact = q8c::pack(&values, tensor.shape())?;
    if four {
        if let Some(p) = q4::pack(&values, tensor.shape(), false).filter(|p| {
            q4::suits_weight(tensor.shape()) || q4::nearly_exact(&values, tensor.shape(), p)
        }) {
            return Some((q4::EXTENSION, p));
        }
    }
    Some((q8c::EXTENSION, exact))
}
