//! The purpose-written BERT encoder: what every surface runs to encode a query, from the
//! encoder file an index ships (`model.<hash>.bin`, `file.rs`).
//!
//! Why not tract, which builds the documents' vectors from the ONNX: the browser downloads
//! the encoder's code with the model, and tract was 2.27 MB brotli of the semantic leg's
//! 13.35 MB on the Rust book, compiled again on every page load; making its graph runnable
//! took ~0.45 s in Node. A BERT encoder is a short list of dense layers, layer norms, GELU and
//! attention (`math.rs`), and the models Midashi ships (all-MiniLM-L6-v2,
//! multilingual-e5-small) are BERT encoders written by one exporter
//! (`scripts/model/export_onnx.py`), whose tensor names the file keeps. `prepare.rs` writes the
//! file from that ONNX and checks, on probe sequences, that this encoder computes what tract
//! computes from the ONNX (`build-index` refuses the file otherwise).
//!
//! Weights are expanded to f32 at load except the word table, which stays packed and is read
//! a row per token (multilingual-e5-small's 250k rows would be 96 MB as int8).

mod file;
mod integer;
mod math;
#[cfg(feature = "onnx")]
mod prepare;
#[cfg(feature = "onnx")]
mod trim;

pub use file::is_encoder_file;
#[cfg(feature = "onnx")]
pub use prepare::{prepare, prepare_calibrated};
#[cfg(feature = "onnx")]
pub use trim::trim_words;

use crate::error::EmbedError;
use crate::packed::{q4, q8c, WeightBits};
use file::Entries;
use integer::IntDense;
use math::Dense;

/// The additive attention bias of a padded position (as the exporter's graph adds it).
const MASK_BIAS: f32 = -10000.0;

/// A loaded encoder: `[tokens] → [tokens, hidden]`.
#[derive(Debug)]
pub struct BertEncoder {
    hidden: usize,
    heads: usize,
    eps: f32,
    words: Words,
    /// The per-row scales of an int8 word table.
    scale: Option<Vec<f32>>,
    /// Rows of the word table.
    rows: usize,
    /// `[positions, hidden]`.
    positions: Vec<f32>,
    /// `[token types, hidden]`.
    types: Vec<f32>,
    norm: Norm,
    layers: Vec<Layer>,
}

/// The word table: packed (an `MQ4G` or `MQ8C` entry, read a row at a time: it is most of a
/// model's parameters, and a query reads a few rows) or, plain, as its f32 values.
#[derive(Debug)]
enum Words {
    Packed(Vec<u8>),
    Expanded(Vec<f32>),
}

#[derive(Debug)]
struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

#[derive(Debug)]
struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    up: Linear,
    down: Linear,
    out_norm: Norm,
}

/// What a dense layer of an encoder layer is given (`BertEncoder::observed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Input {
    /// The layer's input: query, key and value read it.
    Attention,
    /// The heads' context: the attention output reads it.
    Context,
    /// After attention and its norm: the feed-forward's expansion reads it.
    Up,
    /// After GELU: the down-projection reads it.
    Down,
}

/// A dense layer: on integers when its weights are stored as integers times block scales
/// (`integer`: every shipped model's), else on f32 (`math::Dense`).
#[derive(Debug)]
enum Linear {
    Int(IntDense),
    F32(Dense),
}

impl Linear {
    fn forward(&self, x: &[f32], y: &mut [f32]) {
        match self {
            Linear::Int(d) => d.forward(x, y),
            Linear::F32(d) => d.forward(x, y),
        }
    }

    fn outputs(&self) -> usize {
        match self {
            Linear::Int(d) => d.outputs(),
            Linear::F32(d) => d.outputs(),
        }
    }
}

/// The word table's tensor names: an int8 table and its row scales, or an f32 one.
const WORDS_INT8: &str = "embeddings.word_embeddings.q";
const WORDS_SCALE: &str = "embeddings.word_embeddings.scale";
const WORDS_F32: &str = "embeddings.word_embeddings.weight";

/// How an encoder file stores its weights: [`WeightBits::Four`] if any tensor is 4-bit.
/// (Bytes that are no encoder file count as 8.)
pub fn weight_bits(bytes: &[u8]) -> WeightBits {
    let four = Entries::read(bytes).is_ok_and(|e| {
        e.tensors
            .iter()
            .any(|(_, entry)| entry.starts_with(b"MQ4G"))
    });
    if four {
        WeightBits::Four
    } else {
        WeightBits::Eight
    }
}

impl BertEncoder {
    /// Reads an encoder file (see `file.rs`). A damaged, truncated or newer file is an error
    /// that says so; shapes that do not fit together are too.
    pub fn read(bytes: &[u8]) -> Result<Self, EmbedError> {
        let entries = Entries::read(bytes)?;
        let bad = |what: String| EmbedError::BadModel(format!("the encoder file: {what}"));
        let (pdims, positions) = entries.f32("embeddings.position_embeddings.weight")?;
        let hidden = *pdims.last().unwrap_or(&0);
        if hidden == 0 || entries.heads == 0 || hidden % entries.heads != 0 {
            return Err(bad(format!(
                "{} heads do not divide a width of {hidden}",
                entries.heads
            )));
        }
        let (_, types) = entries.f32("embeddings.token_type_embeddings.weight")?;
        let vector = |name: &str| -> Result<Vec<f32>, EmbedError> {
            let (_, v) = entries.f32(name)?;
            if v.len() != hidden {
                return Err(bad(format!("{name} has {} values, not {hidden}", v.len())));
            }
            Ok(v)
        };
        let norm = |prefix: &str| -> Result<Norm, EmbedError> {
            Ok(Norm {
                gamma: vector(&format!("{prefix}.weight"))?,
                beta: vector(&format!("{prefix}.bias"))?,
            })
        };
        // Every layer reads `inputs` values a token; all but the feed-forward's expansion
        // write `hidden` (a shape that does not fit is refused here, not met mid-encode).
        let dense = |prefix: &str, inputs: usize, outputs: Option<usize>| {
            let weight = format!("{prefix}.weight");
            let dims = entries.dims(&weight)?;
            let (_, b) = entries.f32(&format!("{prefix}.bias"))?;
            match dims[..] {
                [i, o] if b.len() == o && i == inputs && outputs.is_none_or(|n| n == o) => {
                    // On integers when the entry stores its weights so (every shipped
                    // model's), else on f32.
                    let mut int = IntDense::zeros(i, o, &b);
                    if entries.int_rows(&weight, |k, scales, ints| int.set_row(k, scales, ints))? {
                        if let Some(int) = int.finish() {
                            return Ok(Linear::Int(int));
                        }
                    }
                    let mut dense = Dense::zeros(i, o, &b);
                    entries.rows(&weight, |k, row| dense.set_row(k, row))?;
                    Ok(Linear::F32(dense))
                }
                _ => Err(bad(format!("{prefix} has shape {dims:?}"))),
            }
        };
        let (words, rows, width) = match (entries.get(WORDS_INT8), entries.get(WORDS_F32)) {
            (Some(entry), _) if entry.starts_with(b"MQ4G") || entry.starts_with(b"MQ8C") => {
                let dims = entries.dims(WORDS_INT8)?;
                let width = dims.last().copied().unwrap_or(0);
                let rows = dims.iter().rev().skip(1).product();
                (Words::Packed(entry.to_vec()), rows, width)
            }
            (int8, _) => {
                let (dims, v) = entries.f32(if int8.is_some() {
                    WORDS_INT8
                } else {
                    WORDS_F32
                })?;
                let width = dims.last().copied().unwrap_or(0);
                (
                    Words::Expanded(v),
                    dims.iter().rev().skip(1).product(),
                    width,
                )
            }
        };
        if width != hidden {
            return Err(bad(format!("word vectors {width} wide, not {hidden}")));
        }
        if types.len() < hidden || types.len() % hidden != 0 {
            return Err(bad("the token type table".into()));
        }
        let scale = match entries.get(WORDS_SCALE) {
            Some(_) => Some(entries.f32(WORDS_SCALE)?.1),
            None => None,
        };
        if scale.as_ref().is_some_and(|s| s.len() != rows) {
            return Err(bad("the word table's scales".into()));
        }
        let mut layers = Vec::new();
        while entries
            .get(&format!(
                "encoder.layer.{}.attention.self.query.weight",
                layers.len()
            ))
            .is_some()
        {
            let p = format!("encoder.layer.{}.", layers.len());
            let up = dense(&format!("{p}intermediate.dense"), hidden, None)?;
            let square = |name: &str| dense(&format!("{p}{name}"), hidden, Some(hidden));
            layers.push(Layer {
                query: square("attention.self.query")?,
                key: square("attention.self.key")?,
                value: square("attention.self.value")?,
                attention_out: square("attention.output.dense")?,
                attention_norm: norm(&format!("{p}attention.output.LayerNorm"))?,
                down: dense(&format!("{p}output.dense"), up.outputs(), Some(hidden))?,
                up,
                out_norm: norm(&format!("{p}output.LayerNorm"))?,
            });
        }
        if layers.is_empty() {
            return Err(bad("no layers".into()));
        }
        Ok(BertEncoder {
            hidden,
            heads: entries.heads,
            eps: entries.eps,
            words,
            scale,
            rows,
            positions,
            types,
            norm: norm("embeddings.LayerNorm")?,
            layers,
        })
    }

    /// Width of the token vectors.
    pub fn width(&self) -> usize {
        self.hidden
    }

    /// The last hidden state (`ids.len() × hidden`, row-major) of one token sequence.
    /// `type_ids` and `mask` are as long as `ids`; a mask of 0 hides that token from the
    /// others' attention (its own row is still computed, as the ONNX graph does).
    pub fn hidden_states(
        &self,
        ids: &[u32],
        type_ids: &[u32],
        mask: &[u32],
    ) -> Result<Vec<f32>, EmbedError> {
        self.observed(ids, type_ids, mask, &mut |_, _, _| {})
    }

    /// [`BertEncoder::hidden_states`], showing `observe` what each dense layer of each
    /// encoder layer is given (`prepare` sums it to round weights with their inputs in view).
    pub(crate) fn observed(
        &self,
        ids: &[u32],
        type_ids: &[u32],
        mask: &[u32],
        observe: &mut dyn FnMut(usize, Input, &[f32]),
    ) -> Result<Vec<f32>, EmbedError> {
        let (n, h) = (ids.len(), self.hidden);
        if type_ids.len() != n || mask.len() != n {
            return Err(EmbedError::Inference(
                "ids, type ids and mask differ in length".into(),
            ));
        }
        if n == 0 {
            return Ok(Vec::new());
        }
        if n * h > self.positions.len() {
            return Err(EmbedError::Inference(format!(
                "{n} tokens, more than the encoder's {} positions",
                self.positions.len() / h
            )));
        }
        let mut x = vec![0f32; n * h];
        for (t, row) in x.chunks_exact_mut(h).enumerate() {
            self.word(ids[t], row)?;
            let kind = type_ids[t] as usize;
            let types = self.types.get(kind * h..(kind + 1) * h).ok_or_else(|| {
                EmbedError::Inference(format!("token type {kind} is not in the encoder"))
            })?;
            let position = &self.positions[t * h..(t + 1) * h];
            for ((v, p), k) in row.iter_mut().zip(position).zip(types) {
                *v = *v + p + k;
            }
        }
        math::layer_norm(&mut x, &self.norm.gamma, &self.norm.beta, self.eps);
        let bias: Vec<f32> = mask
            .iter()
            .map(|&m| if m == 0 { MASK_BIAS } else { 0.0 })
            .collect();
        let (mut q, mut k, mut v, mut ctx, mut out) = (
            vec![0f32; n * h],
            vec![0f32; n * h],
            vec![0f32; n * h],
            vec![0f32; n * h],
            vec![0f32; n * h],
        );
        let mut inner = Vec::new();
        for (l, layer) in self.layers.iter().enumerate() {
            observe(l, Input::Attention, &x);
            layer.query.forward(&x, &mut q);
            layer.key.forward(&x, &mut k);
            layer.value.forward(&x, &mut v);
            math::attention(&q, &k, &v, &bias, self.heads, &mut ctx);
            observe(l, Input::Context, &ctx);
            layer.attention_out.forward(&ctx, &mut out);
            out.iter_mut().zip(&x).for_each(|(o, r)| *o += r);
            let norm = &layer.attention_norm;
            math::layer_norm(&mut out, &norm.gamma, &norm.beta, self.eps);
            std::mem::swap(&mut x, &mut out);
            inner.resize(n * layer.up.outputs(), 0.0);
            observe(l, Input::Up, &x);
            layer.up.forward(&x, &mut inner);
            math::gelu(&mut inner);
            observe(l, Input::Down, &inner);
            layer.down.forward(&inner, &mut out);
            out.iter_mut().zip(&x).for_each(|(o, r)| *o += r);
            let norm = &layer.out_norm;
            math::layer_norm(&mut out, &norm.gamma, &norm.beta, self.eps);
            std::mem::swap(&mut x, &mut out);
        }
        Ok(x)
    }

    /// Row `id` of the word table into `row`, scaled.
    fn word(&self, id: u32, row: &mut [f32]) -> Result<(), EmbedError> {
        let id = id as usize;
        let outside = || {
            EmbedError::Inference(format!(
                "token id {id} is outside the encoder's vocabulary of {}",
                self.rows
            ))
        };
        if id >= self.rows {
            return Err(outside());
        }
        match &self.words {
            Words::Packed(entry) => {
                let read = match q4::Table::read(entry) {
                    Some(table) => table.row(id, row),
                    None => q8c::row(entry, id, row),
                };
                if !read {
                    return Err(outside());
                }
            }
            Words::Expanded(values) => {
                row.copy_from_slice(&values[id * row.len()..(id + 1) * row.len()])
            }
        }
        if let Some(scale) = &self.scale {
            let s = scale[id];
            row.iter_mut().for_each(|v| *v *= s);
        }
        Ok(())
    }
}

#[cfg(all(test, feature = "onnx"))]
mod tests {
    use super::file::{pack_plain, write};
    use super::*;

    /// A tiny encoder (8 wide, 2 heads, 1 layer, 16 inner, 40 words, 6 positions) with
    /// arbitrary weights, in every entry kind the file has.
    fn tiny() -> Vec<u8> {
        tiny_with(false)
    }

    /// [`tiny`], its word table in 8 bits (`MQ8C`) with `eight`.
    fn tiny_with(eight: bool) -> Vec<u8> {
        let mut seed = 7u32;
        let mut values = |n: usize| -> Vec<f32> {
            (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (seed >> 8) as f32 / (1 << 24) as f32 - 0.5
                })
                .collect()
        };
        let plain =
            |name: &str, v: Vec<f32>, dims: &[usize]| (name.to_string(), pack_plain(&v, dims));
        let words: Vec<f32> = values(40 * 8).iter().map(|v| (v * 200.0).round()).collect();
        let mut t = vec![
            (
                WORDS_INT8.to_string(),
                if eight {
                    q8c::pack(&words, &[40, 8]).unwrap()
                } else {
                    q4::pack(&words, &[40, 8], true).unwrap()
                },
            ),
            plain(WORDS_SCALE, values(40), &[40]),
            (
                "embeddings.position_embeddings.weight".to_string(),
                crate::packed::q8c::pack_rounded(&values(48), &[6, 8]).unwrap(),
            ),
            plain(
                "embeddings.token_type_embeddings.weight",
                values(16),
                &[2, 8],
            ),
            plain("embeddings.LayerNorm.weight", values(8), &[8]),
            plain("embeddings.LayerNorm.bias", values(8), &[8]),
        ];
        let p = "encoder.layer.0.";
        for (name, i, o) in [
            ("attention.self.query", 8, 8),
            ("attention.self.key", 8, 8),
            ("attention.self.value", 8, 8),
            ("attention.output.dense", 8, 8),
            ("intermediate.dense", 8, 16),
            ("output.dense", 16, 8),
        ] {
            let w = values(i * o);
            let entry = if o == 16 {
                q4::pack(&w, &[i, o], false).unwrap()
            } else {
                pack_plain(&w, &[i, o])
            };
            t.push((format!("{p}{name}.weight"), entry));
            t.push(plain(&format!("{p}{name}.bias"), values(o), &[o]));
        }
        for norm in ["attention.output.LayerNorm", "output.LayerNorm"] {
            t.push(plain(&format!("{p}{norm}.weight"), values(8), &[8]));
            t.push(plain(&format!("{p}{norm}.bias"), values(8), &[8]));
        }
        write(2, 1e-12, &t)
    }

    fn with_crc(mut body: Vec<u8>) -> Vec<u8> {
        let crc = crc32fast::hash(&body);
        body.extend(crc.to_le_bytes());
        body
    }

    #[test]
    fn a_tiny_encoder_runs_and_refuses_what_it_cannot_encode() {
        let encoder = BertEncoder::read(&tiny()).unwrap();
        assert_eq!(encoder.width(), 8);
        let out = encoder
            .hidden_states(&[1, 39, 3], &[0, 1, 0], &[1, 1, 0])
            .unwrap();
        assert_eq!(out.len(), 24);
        assert!(out.iter().all(|v| v.is_finite()));
        for (ids, types, mask) in [
            (&[40u32][..], &[0u32][..], &[1u32][..]),
            (&[1], &[2], &[1]),
            (&[1, 2], &[0], &[1, 1]),
            (&[1; 7], &[0; 7], &[1; 7]),
        ] {
            assert!(
                encoder.hidden_states(ids, types, mask).is_err(),
                "{ids:?} {types:?}"
            );
        }
        assert!(encoder.hidden_states(&[], &[], &[]).unwrap().is_empty());
        // An 8-bit word table is read a row at a time too, and holds the table's very values.
        let eight = BertEncoder::read(&tiny_with(true)).unwrap();
        assert!(matches!(eight.words, Words::Packed(_)));
        let mut a = vec![0f32; 8];
        let scale = eight.scale.clone().unwrap();
        for id in [0, 17, 39] {
            eight.word(id, &mut a).unwrap();
            // The table's int8 values (from values × 200, rounded) times the row's scale.
            for v in &a {
                let q = v / scale[id as usize];
                assert!(
                    (q - q.round()).abs() < 1e-3 && q.abs() <= 100.0,
                    "{id}: {q}"
                );
            }
        }
        assert!(eight.word(40, &mut a).is_err());
    }

    /// Damage that keeps the checksum right (a writer's bug, a crafted file): bytes changed
    /// and files cut short, each an error or an encoder that runs, never a panic.
    #[test]
    fn damage_behind_a_valid_checksum_never_panics() {
        let file = tiny();
        let body = &file[..file.len() - 4];
        let mut seed = 11u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as usize % n
        };
        let mut cases: Vec<Vec<u8>> = (0..body.len())
            .step_by(7)
            .map(|n| with_crc(body[..n].to_vec()))
            .collect();
        for _ in 0..3000 {
            let mut b = body.to_vec();
            for _ in 0..1 + next(3) {
                let at = next(b.len());
                b[at] = match next(3) {
                    0 => 0xff,
                    1 => 0,
                    _ => b[at] ^ (1 << next(8)),
                };
            }
            cases.push(with_crc(b));
        }
        for case in cases {
            let run = std::panic::catch_unwind(|| {
                if let Ok(e) = BertEncoder::read(&case) {
                    let _ = e.hidden_states(&[1, 2, 3], &[0, 0, 0], &[1, 1, 1]);
                }
            });
            assert!(
                run.is_ok(),
                "panicked on a damaged file of {} bytes",
                case.len()
            );
        }
    }
}
