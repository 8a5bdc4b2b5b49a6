//! Weight tensors stored in fewer bits, writer beside reader: the entry formats both shipped
//! encoder forms use (the purpose-written encoder's file, `crate::bert`, and tract's prepared
//! graph, `crate::graph`). Plain Rust: the browser's module, which has no tract, reads them.

#[cfg(feature = "onnx")]
pub(crate) mod gptq;
#[cfg(feature = "onnx")]
mod grid;
pub(crate) mod q4;
pub(crate) mod q6;
pub(crate) mod q8c;
mod runs;
#[cfg(feature = "onnx")]
pub(crate) use grid::Grid;
pub(crate) mod shape;

/// A packed entry expanded: its shape and values in row-major order.
#[derive(Debug)]
#[cfg_attr(not(feature = "tract"), allow(dead_code))] // expanded whole by tract's loader
pub(crate) struct Unpacked {
    /// The tensor's shape.
    pub dims: Vec<usize>,
    /// Its values.
    pub values: Values,
}

/// What a packed entry expands to.
#[derive(Debug)]
#[cfg_attr(not(feature = "tract"), allow(dead_code))] // expanded whole by tract's loader
pub(crate) enum Values {
    /// f32 values (weights, the position table).
    F32(Vec<f32>),
    /// int8 values (a table gathered before it is scaled: the word table).
    I8(Vec<i8>),
}

/// How a shipped encoder (the encoder file, or tract's prepared graph) stores the weights of
/// a weight-only quantised model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeightBits {
    /// int8 and a scale per column, as the ONNX has them: runs exactly as the ONNX does.
    Eight,
    /// 4 bits a value (`q4`): half the bytes, for the copy a browser downloads; its outputs
    /// are checked against the exact graph's ([`FOUR_BITS_AGREEMENT`]).
    #[default]
    Four,
}

/// The least cosine similarity between the exact graph's sentence (mean) vectors and the
/// 4-bit graph's, on the probe sequences `prepare` runs, for 4 bits to be kept: a safety net for
/// a model whose weights 4 bits break (it ships with 8). The probes are arbitrary pieces, on
/// which a model agrees less than on text: all-MiniLM-L6-v2 gives 0.957, multilingual-e5-small
/// 0.999, where queries' nDCG@10 moves by −0.008 (SciFact semantic) and 0 (JSQuAD hybrid).
pub const FOUR_BITS_AGREEMENT: f32 = 0.9;
