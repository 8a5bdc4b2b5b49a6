//! Without tract (the browser's module): only the encoder file an index ships.

use super::Encode;
use crate::error::EmbedError;

pub(super) fn load(_: &[u8], _: usize) -> Result<Box<dyn Encode>, EmbedError> {
    Err(EmbedError::BadModel(
        "this is not the encoder file an index ships (model.<hash>.bin): an index an older \
         midashi built ships tract's graph (model.<hash>.tar), and this build reads neither it \
         nor ONNX. Rebuild the index with this midashi, or write the model files with \
         `build-index prepare-model <model folder> --out <folder>` and point modelUrl at them"
            .into(),
    ))
}
