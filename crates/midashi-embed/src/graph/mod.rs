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
//! the same optimised graph; with 8-bit weights [`prepare`] checks that outputs agree bit for
//! bit.
//!
//! Decluttering folds the int8 weights' `DequantizeLinear` into f32 constants, which would
//! make the file ~2.4× larger (55 MB instead of 23.5 for MiniLM). So each f32 tensor that is
//! exactly `q × scale[column]` for int8 `q` (what weight-only per-channel quantisation makes)
//! is stored as a `.q8c` entry — scales and int8 values — and expanded back at load by
//! `PackedLoader`, to the very same f32 bits. Tensors that are not (an fp32 model's weights,
//! norms) stay `.dat` as tract wrote them. By default most weights go further, to 4 bits
//! (`.q4g`, [`WeightBits`]; `q4.rs` says which and what it costs), and a table the graph only
//! looks rows up in but keeps in f32 (the position embeddings) to 8, rounded (`repack.rs`).

use crate::error::EmbedError;
use crate::packed::{q4, q8c, Values};
use std::io::Read;
use std::sync::Arc;
use tract_nnef::internal::{Nnef, Registry, Resource, ResourceLoader, StaticName};
use tract_nnef::prelude::*;

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
        decluttered_from_onnx(bytes)?
    };
    let inputs = input_kinds(&typed)?;
    typed.optimize().map_err(|e| bad("optimisation", e))?;
    Ok((typed, inputs))
}

pub use crate::packed::{WeightBits, FOUR_BITS_AGREEMENT};

/// How a prepared graph stores its weights: [`WeightBits::Four`] if any tensor is 4-bit.
/// (An ONNX, or bytes that are no tar, count as 8.)
pub fn weight_bits(prepared: &[u8]) -> WeightBits {
    let four = is_prepared(prepared)
        && tar::Archive::new(prepared).entries().is_ok_and(|entries| {
            entries.flatten().any(|e| {
                e.path()
                    .is_ok_and(|p| p.extension().is_some_and(|x| x == q4::EXTENSION))
            })
        });
    if four {
        WeightBits::Four
    } else {
        WeightBits::Eight
    }
}

/// The prepared form of an ONNX encoder (see the module docs): deterministic bytes, so a
/// rebuild ships the same file under the same content hash. With [`WeightBits::Four`] the
/// weights are stored in 4 bits when the outputs agree with the exact graph's, else in 8.
#[cfg(feature = "onnx")]
pub fn prepare(onnx: &[u8], bits: WeightBits) -> Result<Vec<u8>, EmbedError> {
    let decluttered = typed_from_onnx(onnx)?
        .into_decluttered()
        .map_err(|e| bad("declutter", e))?;
    let mut nnef_tar = Vec::new();
    nnef()
        .write_to_tar_with_config(&decluttered, &mut nnef_tar, false, true)
        .map_err(|e| bad("writing the prepared graph", e))?;
    let repack = |bits| {
        repack::repack(&nnef_tar, bits).map_err(|e| {
            EmbedError::BadModel(format!("repacking the prepared graph's tensors: {e}"))
        })
    };
    let exact = probe(decluttered)?;
    if bits == WeightBits::Four {
        let prepared = repack(WeightBits::Four)?;
        if agreement(&exact, &probe(read_prepared(&prepared)?)?) >= FOUR_BITS_AGREEMENT {
            return Ok(prepared);
        }
    }
    let prepared = repack(WeightBits::Eight)?;
    // The point of the 8-bit form is that it runs exactly as the ONNX does: check on the
    // probes, the ONNX's side from the graph decluttered above (not parsed a second time).
    if !same_bits(&exact, &probe(read_prepared(&prepared)?)?) {
        return Err(EmbedError::BadModel(
            "the prepared graph does not compute what the ONNX does; ship the ONNX as it is".into(),
        ));
    }
    Ok(prepared)
}

/// What the graph gives for one probe sequence: its token vectors (flat) and their mean
/// (what mean pooling makes a sentence vector of).
#[cfg(feature = "onnx")]
pub(crate) struct Probed {
    pub tokens: Vec<f32>,
    mean: Vec<f32>,
}

#[cfg(feature = "onnx")]
impl Probed {
    /// From token vectors `width` wide (flat).
    pub(crate) fn new(tokens: Vec<f32>, width: usize) -> Self {
        let width = width.max(1);
        let count = (tokens.len() / width).max(1) as f32;
        let mut mean = vec![0f32; width];
        for token in tokens.chunks(width) {
            for (m, v) in mean.iter_mut().zip(token) {
                *m += v / count;
            }
        }
        Probed { tokens, mean }
    }
}

/// A few id sequences to compare encoders on (ids below 2,000, which every vocabulary,
/// trimmed or not, has: specials, punctuation, short pieces).
#[cfg(feature = "onnx")]
pub(crate) const PROBES: [&[u32]; 3] = [
    &[101, 1023, 1003, 1037, 1231, 102],
    &[0, 5, 17, 1999, 60, 250, 7, 1500, 2],
    &[1, 300, 301, 302, 303, 304, 305, 306, 307, 308, 309, 310, 3],
];

/// What tract computes from `onnx` for each of [`PROBES`] (type ids 0, mask 1). The
/// reference the purpose-written encoder is checked against.
#[cfg(feature = "onnx")]
pub(crate) fn reference_states(onnx: &[u8]) -> Result<Vec<Probed>, EmbedError> {
    probe(decluttered_from_onnx(onnx)?)
}

/// The graph's outputs for [`PROBES`].
#[cfg(feature = "onnx")]
fn probe(mut model: TypedModel) -> Result<Vec<Probed>, EmbedError> {
    let inputs = input_kinds(&model)?;
    model.optimize().map_err(|e| bad("optimisation", e))?;
    let plan = model.into_runnable().map_err(|e| bad("plan", e))?;
    let mut out = Vec::new();
    for ids in PROBES {
        let ones = vec![1u32; ids.len()];
        let zeros = vec![0u32; ids.len()];
        let result = plan
            .run(feeds(&inputs, ids, &ones, &zeros)?)
            .map_err(|e| bad("probe run", e))?;
        let view = result[0]
            .to_plain_array_view::<f32>()
            .map_err(|e| bad("probe output", e))?;
        let width = view.shape().last().copied().unwrap_or(1);
        out.push(Probed::new(view.iter().copied().collect(), width));
    }
    Ok(out)
}

/// Whether two runs of the probes gave the same bits.
#[cfg(feature = "onnx")]
fn same_bits(a: &[Probed], b: &[Probed]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.tokens.len() == y.tokens.len()
                && x.tokens
                    .iter()
                    .zip(&y.tokens)
                    .all(|(p, q)| p.to_bits() == q.to_bits())
        })
}

/// How closely the 4-bit graph follows the exact one: the least cosine similarity between
/// the probes' sentence (mean) vectors.
#[cfg(feature = "onnx")]
pub(crate) fn agreement(a: &[Probed], b: &[Probed]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter()
        .zip(b)
        .map(|(x, y)| crate::cosine(&x.mean, &y.mean))
        .fold(1.0, f32::min)
}

fn bad(stage: &str, e: TractError) -> EmbedError {
    EmbedError::BadModel(format!("ONNX {stage}: {e:#}"))
}

/// An ONNX graph typed and decluttered.
#[cfg(feature = "onnx")]
fn decluttered_from_onnx(onnx: &[u8]) -> Result<TypedModel, EmbedError> {
    typed_from_onnx(onnx)?
        .into_decluttered()
        .map_err(|e| bad("declutter", e))
}

/// Without ONNX's parser (the browser's module): only the prepared graph an index ships.
#[cfg(not(feature = "onnx"))]
fn decluttered_from_onnx(_: &[u8]) -> Result<TypedModel, EmbedError> {
    Err(EmbedError::BadModel(
        "this is not the prepared encoder graph an index ships (model.<hash>.tar) and this \
         build reads no ONNX: point modelUrl at an index's model files, or write them with \
         `build-index prepare-model <model folder> --out <folder>`"
            .into(),
    ))
}

/// Parses ONNX and types it with batch = 1 and a symbolic sequence length, keeping only the
/// first output (token or sentence vectors; a pooler output costs time).
#[cfg(feature = "onnx")]
fn typed_from_onnx(bytes: &[u8]) -> Result<TypedModel, EmbedError> {
    use tract_onnx::prelude::*;
    let mut model = tract_onnx::onnx()
        .model_for_read(&mut std::io::Cursor::new(bytes))
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
        .with_resource_loader(PackedLoader)
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
    use tract_onnx_opl::WithOnnx;
    let mut registry = Registry::new("midashi");
    registry.register_unit_element_wise(
        "midashi_gelu_exact",
        &tract_nnef::tract_core::ops::nn::GeluExact {},
    );
    tract_nnef::nnef().with_onnx().with_registry(registry)
}

/// Reads the `.q8c` and `.q4g` entries `repack` writes back into tensors.
struct PackedLoader;

impl ResourceLoader for PackedLoader {
    fn name(&self) -> StaticName {
        "MidashiPackedLoader".into()
    }

    fn try_load(
        &self,
        path: &std::path::Path,
        reader: &mut dyn Read,
        _framework: &Nnef,
    ) -> TractResult<Option<(String, Arc<dyn Resource>)>> {
        let unpack = match path.extension().and_then(|e| e.to_str()) {
            Some(q8c::EXTENSION) => q8c::unpack,
            Some(q4::EXTENSION) => q4::unpack,
            _ => return Ok(None),
        };
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        let unpacked = unpack(&bytes).ok_or_else(|| {
            TractError::msg(format!("{path:?} is not a packed tensor (damaged?)"))
        })?;
        let shape = unpacked.dims;
        let tensor = match unpacked.values {
            Values::F32(v) => tract_ndarray::ArrayD::from_shape_vec(shape, v)?.into_tensor(),
            Values::I8(v) => tract_ndarray::ArrayD::from_shape_vec(shape, v)?.into_tensor(),
        };
        // The tensor's id is its path without the extension, as tract's .dat loader names it.
        let id = path.with_extension("").to_string_lossy().into_owned();
        Ok(Some((id, Arc::new(tensor))))
    }
}

#[cfg(feature = "onnx")]
mod repack;
