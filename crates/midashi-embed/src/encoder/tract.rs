//! tract running an ONNX encoder or a prepared graph (`crate::graph`).

use super::{Encode, Output};
use crate::error::EmbedError;
use crate::graph::{self, InputKind};
use std::sync::Arc;
use tract_nnef::prelude::*;

struct TractEncoder {
    plan: Arc<TypedRunnableModel>,
    inputs: Vec<InputKind>,
    dims: usize,
}

pub(super) fn load(bytes: &[u8], dims: usize) -> Result<Box<dyn Encode>, EmbedError> {
    let (plan, inputs) = graph::load_plan(bytes, dims)?;
    Ok(Box::new(TractEncoder { plan, inputs, dims }))
}

impl Encode for TractEncoder {
    fn encode(&self, ids: &[u32], type_ids: &[u32], mask: &[u32]) -> Result<Output, EmbedError> {
        let len = ids.len();
        let feeds = graph::feeds(&self.inputs, ids, mask, type_ids)?;
        let outputs = self
            .plan
            .run(feeds)
            .map_err(|e| EmbedError::Inference(format!("{e:#}")))?;
        let output = outputs[0]
            .to_plain_array_view::<f32>()
            .map_err(|e| EmbedError::Inference(format!("encoder output is not f32: {e}")))?;
        let dims = self.dims;
        match output.shape() {
            [1, n, d] if *n == len && *d == dims => {
                Ok(Output::Tokens(output.iter().copied().collect()))
            }
            [1, d] if *d == dims => Ok(Output::Sentence(output.iter().copied().collect())),
            shape => Err(EmbedError::BadModel(format!(
                "encoder output has shape {shape:?}, expected [1, {len}, {dims}] or [1, {dims}]"
            ))),
        }
    }
}
