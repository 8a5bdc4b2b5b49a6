//! The encoder graph: read from ONNX as exported, or from the *prepared* form an index ships,
//! and written to that form.
//!
//! Why a prepared form: a browser loads the model on every page load, and tract spends most
//! of that time not running the graph but making it — parsing the ONNX protobuf, inferring
//! every type and shape (`into_typed`), then simplifying (`declutter`) and compiling
//! (`optimise`). Natively, all-MiniLM-L6-v2: parse 45 ms, typing 105, declutter 25,
//! optimise 45. The prepared form is the graph *after* typing and decluttering, stored as
//! tract's NNEF (a tar of `graph.nnef` text and one file per tensor): loading it is a parse
//! of a small text plus the tensors, then only the optimise step (22 + 62 ms). Both forms run
//! the same optimised graph; [`prepare`] checks that outputs agree bit for bit.
//!
//! Decluttering folds the int8 weights' `DequantizeLinear` into f32 constants, which would
//! make the file ~2.4× larger (55 MB instead of 23.5 for MiniLM). So each f32 tensor that is
//! exactly `q × scale[column]` for int8 `q` (what weight-only per-channel quantisation makes)
//! is stored as a `.q8c` entry — scales and int8 values — and expanded back at load by
//! `Q8ColumnsLoader`, to the very same f32 bits. Tensors that are not (position embeddings,
//! an fp32 model's weights) stay `.dat` as tract wrote them.

use crate::error::EmbedError;
use std::io::Read;
use std::sync::Arc;
use tract_nnef::internal::{Nnef, Registry, Resource, ResourceLoader, StaticName};
use tract_onnx::prelude::*;

/// Names of the encoder inputs we know how to fill. BERT-style exports take all three;
/// others (RoBERTa family) omit `token_type_ids`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum InputKind {
    Ids,
    Mask,
    TypeIds,
}

/// The encoder's inputs for one token sequence, in the order `inputs` names them (int64,
/// `[1, len]`): one definition for encoding and for [`prepare`]'s check.
pub(crate) fn feeds(
    inputs: &[InputKind],
    ids: &[u32],
    mask: &[u32],
    type_ids: &[u32],
) -> Result<TVec<TValue>, EmbedError> {
    let column = |values: &[u32]| -> Result<TValue, EmbedError> {
        let data: Vec<i64> = values.iter().map(|&v| i64::from(v)).collect();
        tract_ndarray::Array2::from_shape_vec((1, values.len()), data)
            .map(|a| a.into_tensor().into_tvalue())
            .map_err(|e| EmbedError::Inference(e.to_string()))
    };
    inputs
        .iter()
        .map(|kind| match kind {
            InputKind::Ids => column(ids),
            InputKind::Mask => column(mask),
            InputKind::TypeIds => column(type_ids),
        })
        .collect()
}

/// An encoder ready to run, and which input is which.
pub(crate) type Plan = (Arc<TypedRunnableModel>, Vec<InputKind>);

/// Whether `bytes` are a prepared graph (a tar: `ustar` at offset 257) rather than ONNX
/// (a protobuf, which never has those bytes there in a model of any size).
pub fn is_prepared(bytes: &[u8]) -> bool {
    bytes.get(257..262) == Some(b"ustar")
}

/// Loads either form and optimises it once (for ONNX, tract folds the int8 weights'
/// `DequantizeLinear` into f32 constants while decluttering, so runs are fp32).
pub(crate) fn load_plan(bytes: &[u8], dims: usize) -> Result<Plan, EmbedError> {
    let (optimised, inputs) = optimised(bytes)?;
    let out_fact = optimised.output_fact(0).map_err(|e| bad("outputs", e))?;
    let last = out_fact
        .shape
        .last()
        .and_then(|d| d.to_i64().ok().map(|v| v as usize));
    if last != Some(dims) {
        return Err(EmbedError::BadModel(format!(
            "encoder output {:?} does not end in dims = {dims} from the model config",
            out_fact.shape
        )));
    }
    let plan = optimised.into_runnable().map_err(|e| bad("plan", e))?;
    Ok((plan, inputs))
}

/// The optimised graph of either form. A prepared graph was decluttered when it was made,
/// so it goes straight to code generation (decluttering again was a third of its load).
fn optimised(bytes: &[u8]) -> Result<(TypedModel, Vec<InputKind>), EmbedError> {
    let mut typed = if is_prepared(bytes) {
        read_prepared(bytes)?
    } else {
        typed_from_onnx(bytes)?
            .into_decluttered()
            .map_err(|e| bad("declutter", e))?
    };
    let inputs = input_kinds(&typed)?;
    typed.optimize().map_err(|e| bad("optimisation", e))?;
    Ok((typed, inputs))
}

/// The prepared form of an ONNX encoder (see the module docs): deterministic bytes, so a
/// rebuild ships the same file under the same content hash.
#[cfg(not(target_arch = "wasm32"))]
pub fn prepare(onnx: &[u8]) -> Result<Vec<u8>, EmbedError> {
    let decluttered = typed_from_onnx(onnx)?
        .into_decluttered()
        .map_err(|e| bad("declutter", e))?;
    let mut nnef_tar = Vec::new();
    nnef()
        .write_to_tar_with_config(&decluttered, &mut nnef_tar, false, true)
        .map_err(|e| bad("writing the prepared graph", e))?;
    let prepared = pack::repack(&nnef_tar).map_err(|e| {
        EmbedError::BadModel(format!("repacking the prepared graph's tensors: {e}"))
    })?;
    // The point of the form is that it runs exactly as the ONNX does: check on one input,
    // the ONNX's side from the graph decluttered above (not parsed a second time).
    let probe = |mut model: TypedModel| -> Result<Vec<f32>, EmbedError> {
        let inputs = input_kinds(&model)?;
        model.optimize().map_err(|e| bad("optimisation", e))?;
        let plan = model.into_runnable().map_err(|e| bad("plan", e))?;
        let ids = [101u32, 2023, 2003, 1037, 3231, 102];
        let out = plan
            .run(feeds(&inputs, &ids, &[1; 6], &[0; 6])?)
            .map_err(|e| bad("probe run", e))?;
        let view = out[0]
            .to_plain_array_view::<f32>()
            .map_err(|e| bad("probe output", e))?;
        Ok(view.iter().copied().collect())
    };
    let (a, b) = (probe(decluttered)?, probe(read_prepared(&prepared)?)?);
    if a.len() != b.len() || a.iter().zip(&b).any(|(x, y)| x.to_bits() != y.to_bits()) {
        return Err(EmbedError::BadModel(
            "the prepared graph does not compute what the ONNX does; ship the ONNX as it is".into(),
        ));
    }
    Ok(prepared)
}

fn bad(stage: &str, e: TractError) -> EmbedError {
    EmbedError::BadModel(format!("ONNX {stage}: {e:#}"))
}

/// Parses ONNX and types it with batch = 1 and a symbolic sequence length, keeping only the
/// first output (token or sentence vectors; a pooler output costs time).
fn typed_from_onnx(onnx: &[u8]) -> Result<TypedModel, EmbedError> {
    let mut model = tract_onnx::onnx()
        .model_for_read(&mut std::io::Cursor::new(onnx))
        .map_err(|e| bad("parse", e))?;
    let n_inputs = model.input_outlets().map_err(|e| bad("inputs", e))?.len();
    let seq = model.symbols.sym("sequence");
    for i in 0..n_inputs {
        let fact = i64::fact([1.to_dim(), seq.to_dim()]);
        model
            .set_input_fact(i, fact.into())
            .map_err(|e| bad("input facts", e))?;
    }
    let first_output = model.output_outlets().map_err(|e| bad("outputs", e))?[0];
    model
        .select_output_outlets(&[first_output])
        .map_err(|e| bad("outputs", e))?;
    model.into_typed().map_err(|e| bad("typing", e))
}

fn read_prepared(bytes: &[u8]) -> Result<TypedModel, EmbedError> {
    nnef()
        .with_resource_loader(Q8ColumnsLoader)
        .model_for_read(&mut std::io::Cursor::new(bytes))
        .map_err(|e| {
            EmbedError::BadModel(format!(
                "the prepared encoder graph cannot be read ({e:#}); fetch or copy the index \
                 folder again, or rebuild it"
            ))
        })
}

fn input_kinds(model: &TypedModel) -> Result<Vec<InputKind>, EmbedError> {
    let mut inputs = Vec::new();
    for o in model.input_outlets().map_err(|e| bad("inputs", e))? {
        inputs.push(match model.node(o.node).name.as_str() {
            "input_ids" => InputKind::Ids,
            "attention_mask" => InputKind::Mask,
            "token_type_ids" => InputKind::TypeIds,
            other => {
                return Err(EmbedError::BadModel(format!(
                    "unexpected encoder input '{other}' (know input_ids, attention_mask, token_type_ids)"
                )))
            }
        });
    }
    if !inputs.iter().any(|k| matches!(k, InputKind::Ids)) {
        return Err(EmbedError::BadModel(
            "the encoder has no input_ids input".into(),
        ));
    }
    Ok(inputs)
}

/// tract's NNEF with the ONNX operators and the one decluttered op it has no serialiser for
/// in this version (exact GELU, `x · Φ(x)`, which BERT-family encoders use).
fn nnef() -> Nnef {
    use tract_onnx::prelude::WithOnnx;
    let mut registry = Registry::new("midashi");
    registry.register_unit_element_wise(
        "midashi_gelu_exact",
        &tract_onnx::tract_core::ops::nn::GeluExact {},
    );
    tract_nnef::nnef().with_onnx().with_registry(registry)
}

/// Reads the `.q8c` entries [`pack::repack`] writes back into the f32 tensors they were.
struct Q8ColumnsLoader;

impl ResourceLoader for Q8ColumnsLoader {
    fn name(&self) -> StaticName {
        "Q8ColumnsLoader".into()
    }

    fn try_load(
        &self,
        path: &std::path::Path,
        reader: &mut dyn Read,
        _framework: &Nnef,
    ) -> TractResult<Option<(String, Arc<dyn Resource>)>> {
        if path.extension().is_none_or(|e| e != pack::EXTENSION) {
            return Ok(None);
        }
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        let tensor = pack::unpack(&bytes)
            .ok_or_else(|| TractError::msg(format!("{path:?} is not a q8c tensor (damaged?)")))?;
        // The tensor's id is its path without the extension, as tract's .dat loader names it.
        let id = path.with_extension("").to_string_lossy().into_owned();
        Ok(Some((id, Arc::new(tensor))))
    }
}

/// The `.q8c` entry format, writer beside reader.
mod pack {
    /// Entry extension (`<label>.q8c` in place of `<label>.dat`).
    pub(super) const EXTENSION: &str = "q8c";
    const MAGIC: &[u8; 4] = b"MQ8C";
    /// Tensors smaller than this stay `.dat`: not worth a second format.
    #[cfg(not(target_arch = "wasm32"))]
    const MIN_VALUES: usize = 4096;

    /// `MQ8C`, rank u32, dims u32 × rank, scales f32 × last dim, values i8 × product:
    /// value i of column c = (q[i] as f32) × scale[c] (f32 multiplication).
    pub(super) fn unpack(bytes: &[u8]) -> Option<tract_onnx::prelude::Tensor> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let (rank, mut rest) = u32_at(rest)?;
        if rank == 0 || rank > 8 {
            return None;
        }
        let mut dims = Vec::with_capacity(rank as usize);
        for _ in 0..rank {
            let (d, r) = u32_at(rest)?;
            dims.push(d as usize);
            rest = r;
        }
        let columns = *dims.last()?;
        let count = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
        if columns == 0 || rest.len() != columns.checked_mul(4)?.checked_add(count)? {
            return None;
        }
        let (scales, q) = rest.split_at(columns * 4);
        let scales: Vec<f32> = scales
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let mut tensor = tract_onnx::prelude::Tensor::zero::<f32>(&dims).ok()?;
        let mut view = tensor.to_plain_array_view_mut::<f32>().ok()?;
        let out = view.as_slice_mut()?;
        // Row by row, so the inner loop is a plain multiply of two slices (SIMD in wasm too).
        for (row, q_row) in out.chunks_exact_mut(columns).zip(q.chunks_exact(columns)) {
            for ((o, &v), &s) in row.iter_mut().zip(q_row).zip(&scales) {
                *o = f32::from(v as i8) * s;
            }
        }
        Some(tensor)
    }

    fn u32_at(b: &[u8]) -> Option<(u32, &[u8])> {
        let (head, rest) = b.split_first_chunk::<4>()?;
        Some((u32::from_le_bytes(*head), rest))
    }

    /// Per column of `values` (row-major, `columns` wide): a scale and int8 values whose
    /// products are exactly `values`, or `None` if some column has none. Quantisers set the
    /// scale to max |w| / 127, so that is tried first (and its neighbouring floats, for the
    /// rounding of the division); then smaller largest values, for a column that never
    /// reached ±127.
    #[cfg(not(target_arch = "wasm32"))]
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
                column().all(|v| {
                    (v / s).round().abs() <= 127.0 && ((v / s).round() as i8 as f32) * s == v
                })
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

    /// Rewrites tract's NNEF tar: every f32 `.dat` tensor that decomposes exactly becomes a
    /// `.q8c` entry; entries are sorted by name with fixed metadata (deterministic bytes).
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn repack(nnef_tar: &[u8]) -> std::io::Result<Vec<u8>> {
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
                    .and_then(|label| packed(&data).map(|p| (format!("{label}.{EXTENSION}"), p)))
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
    /// `.q8c` entry, if it is f32, large, and exactly int8 × per-column scale.
    #[cfg(not(target_arch = "wasm32"))]
    fn packed(dat: &[u8]) -> Option<Vec<u8>> {
        let tensor = tract_nnef::tensors::read_tensor(dat).ok()?;
        if tensor.datum_type() != tract_onnx::prelude::DatumType::F32
            || tensor.len() < MIN_VALUES
            || tensor.rank() == 0
        {
            return None;
        }
        let view = tensor.to_plain_array_view::<f32>().ok()?;
        let values: Vec<f32> = view.iter().copied().collect();
        let columns = *tensor.shape().last()?;
        let (scales, q) = decompose(&values, columns)?;
        let mut out = MAGIC.to_vec();
        out.extend((tensor.rank() as u32).to_le_bytes());
        for &d in tensor.shape() {
            out.extend((d as u32).to_le_bytes());
        }
        for s in scales {
            out.extend(s.to_le_bytes());
        }
        out.extend(q.iter().map(|&v| v as u8));
        // Refuse anything that would not read back to the same bits.
        let back = unpack(&out)?;
        let back = back.to_plain_array_view::<f32>().ok()?;
        (back
            .iter()
            .map(|v| v.to_bits())
            .eq(values.iter().map(|v| v.to_bits())))
        .then_some(out)
    }
}
