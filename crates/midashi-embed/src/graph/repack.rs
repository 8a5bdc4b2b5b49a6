//! The prepared graph's tar, rewritten from tract's NNEF: large weights packed (`.q8c`, or
//! `.q4g` for [`WeightBits::Four`]), entries in a fixed order with fixed metadata.

use super::WeightBits;
use crate::packed::{q4, q8c};

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
        entries.push((name, data));
    }
    let tables = entries
        .iter()
        .find(|(name, _)| name == "graph.nnef")
        .map(|(_, text)| tables(&String::from_utf8_lossy(text)))
        .unwrap_or_default();
    for (name, data) in &mut entries {
        let Some(label) = name.strip_suffix(".dat") else {
            continue;
        };
        if let Some((ext, p)) = packed(data, bits, tables.contains(label)) {
            *name = format!("{label}.{ext}");
            *data = p;
        }
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

/// Labels of the variables the graph only reads rows of (`tract_core_gather`, `slice`): the
/// word, position and token-type tables, as against the weights it multiplies.
fn tables(graph: &str) -> std::collections::HashSet<String> {
    let mut variables = Vec::new();
    for line in graph.lines() {
        if let Some((id, rest)) = line.split_once(" = variable") {
            if let Some(label) = rest
                .split_once("label = \"")
                .and_then(|(_, r)| r.split_once('"'))
            {
                variables.push((id.trim(), label.0));
            }
        }
    }
    variables
        .into_iter()
        .filter(|(id, _)| {
            let mut uses = graph
                .lines()
                .filter(|l| !l.contains(" = variable") && mentions(l, id))
                .peekable();
            uses.peek().is_some()
                && uses.all(|l| {
                    l.contains(&format!("tract_core_gather({id},"))
                        || l.contains(&format!("slice({id},"))
                })
        })
        .map(|(_, label)| label.to_string())
        .collect()
}

/// Whether `line` names the identifier `id` (not one that merely starts or ends like it).
fn mentions(line: &str, id: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(id)
        .any(|(at, _)| !line[..at].ends_with(word) && !line[at + id.len()..].starts_with(word))
}

/// A `.dat` tensor (tract's NNEF tensor file: 128-byte header, then the data) as a
/// packed entry and its extension: `.q8c` if it is f32, large, and exactly int8 × a scale per
/// column; with `bits: Four`, `.q4g` instead for such a weight and for an int8 table of the
/// shapes `super::q4` takes, and `.q8c` rounded for a `table` kept in f32 (the position
/// embeddings).
fn packed(dat: &[u8], bits: WeightBits, table: bool) -> Option<(&'static str, Vec<u8>)> {
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
    let Some(exact) = q8c::pack(&values, tensor.shape()) else {
        // Not a weight-only quantised weight. A table kept in f32 (the position embeddings:
        // 0.8 MB of MiniLM's) goes to 8 bits, rounded: SciFact semantic nDCG@10 0.6895 either
        // way, where 4 bits gave 0.6880 and moved a long text's vector to cosine 0.957.
        // Anything else (an fp32 model's weights, norms) is stored as it is.
        return (four && table && q4::suits_table(tensor.shape()))
            .then(|| q8c::pack_rounded(&values, tensor.shape()))
            .flatten()
            .map(|p| (q8c::EXTENSION, p));
    };
    if four {
        if let Some(p) = q4::pack(&values, tensor.shape(), false).filter(|p| {
            q4::suits_weight(tensor.shape()) || q4::nearly_exact(&values, tensor.shape(), p)
        }) {
            return Some((q4::EXTENSION, p));
        }
    }
    Some((q8c::EXTENSION, exact))
}

#[cfg(test)]
mod tests {
    use super::tables;

    #[test]
    fn tables_are_the_variables_only_looked_up() {
        // As tract writes MiniLM's graph.nnef: the word table gathered, the position table
        // sliced, a weight multiplied, and one identifier the prefix of another.
        let graph = r#"
  words = variable<scalar>(label = "embeddings.word_embeddings.q.0", shape = [30522, 384]);
  n1_Gather = tract_core_gather(words, input_ids, axis = 0);
  positions = variable<scalar>(label = "embeddings.position_embeddings.weight.0", shape = [1, 512, 384]);
  n7_Slice = slice(positions, axes = [1], begin = [0], end = [sequence]);
  w = variable<scalar>(label = "n51_MatMul.fix_b", shape = [384, 384]);
  n51 = matmul(n7_Slice, w, transposeA = false, transposeB = false);
  w_2 = variable<scalar>(label = "both", shape = [64, 64]);
  n60 = tract_core_gather(w_2, input_ids, axis = 0);
  n61 = matmul(n60, w_2, transposeA = false, transposeB = false);
"#;
        let mut found: Vec<String> = tables(graph).into_iter().collect();
        found.sort();
        assert_eq!(
            found,
            [
                "embeddings.position_embeddings.weight.0",
                "embeddings.word_embeddings.q.0"
            ]
        );
    }
}
