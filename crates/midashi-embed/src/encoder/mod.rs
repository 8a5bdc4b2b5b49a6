//! Which encoder runs a model's bytes: the purpose-written BERT encoder for the file an index
//! ships (`crate::bert`), tract for an ONNX or the prepared graph indexes shipped before it
//! (feature `tract`; the browser's module has neither and says how to get the file it reads).

#[cfg_attr(not(feature = "tract"), path = "tract_off.rs")]
mod tract;

use crate::bert::{is_encoder_file, BertEncoder};
use crate::error::EmbedError;

/// What an encoder gives for one token sequence.
pub(crate) enum Output {
    /// Token vectors, `[tokens, dims]` row-major (pooled by the embedder).
    Tokens(Vec<f32>),
    /// A sentence vector (an export with pooling inside the graph; tract's only).
    #[cfg_attr(not(feature = "tract"), allow(dead_code))]
    Sentence(Vec<f32>),
}

/// An encoder: token ids, their type ids and the attention mask (equally long) in, vectors out.
pub(crate) trait Encode: Send + Sync {
    fn encode(&self, ids: &[u32], type_ids: &[u32], mask: &[u32]) -> Result<Output, EmbedError>;
}

impl Encode for BertEncoder {
    fn encode(&self, ids: &[u32], type_ids: &[u32], mask: &[u32]) -> Result<Output, EmbedError> {
        self.hidden_states(ids, type_ids, mask).map(Output::Tokens)
    }
}

/// The encoder for `bytes` (told apart by their first bytes), whose vectors must be `dims` wide.
pub(crate) fn load(bytes: &[u8], dims: usize) -> Result<Box<dyn Encode>, EmbedError> {
    if is_encoder_file(bytes) {
        let encoder = BertEncoder::read(bytes)?;
        if encoder.width() != dims {
            return Err(EmbedError::BadModel(format!(
                "the encoder's vectors are {} wide, the model config says dims = {dims}",
                encoder.width()
            )));
        }
        return Ok(Box::new(encoder));
    }
    tract::load(bytes, dims)
}
