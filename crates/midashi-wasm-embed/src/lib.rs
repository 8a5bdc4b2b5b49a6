//! The wasm-bindgen face of [`midashi_embed`]: query embedding in the browser and in Node.
//!
//! ```js
//! import init, { WasmEmbedder } from "./midashi_wasm_embed.js";
//! await init();
//! const embedder = new WasmEmbedder(graphBytes, tokenizerBytes, configJson);
//! const vector = embedder.embed("how do I configure the index?"); // Float32Array(384)
//! ```
//!
//! The model files are the ones an index ships (`model.<hash>.bin`, `tokenizer.<hash>.json`,
//! `model-config.<hash>.json`) or `build-index prepare-model` writes (`model.bin`,
//! `tokenizer.json`, `midashi-model.json`): the encoder file the purpose-written BERT encoder
//! runs ([`midashi_embed::bert`]). This module has no tract and reads no ONNX: tract was
//! 2.27 MB brotli of every visitor's download. The caller fetches the files, so this module
//! does no I/O and works the same in a page, a Web Worker and Node.

use midashi_embed::{Embedder, ModelConfig};
use wasm_bindgen::prelude::*;

/// A loaded embedding model. Construct once (expanding the weights takes tens of
/// milliseconds) and reuse for every query.
#[wasm_bindgen]
pub struct WasmEmbedder {
    inner: Embedder,
}

#[wasm_bindgen]
impl WasmEmbedder {
    /// Loads a model from the bytes of its encoder file and `tokenizer.json`, and the text of
    /// its `midashi-model.json`. Throws an Error whose message says what is wrong with which
    /// file (an ONNX: that `build-index prepare-model` makes the encoder file from it).
    #[wasm_bindgen(constructor)]
    pub fn new(
        graph: &[u8],
        tokenizer_json: &[u8],
        config_json: &str,
    ) -> Result<WasmEmbedder, JsError> {
        // Panics (bugs) then show their message in the console instead of "unreachable".
        console_error_panic_hook::set_once();
        let config = ModelConfig::from_json(config_json)?;
        Ok(WasmEmbedder {
            inner: Embedder::from_bytes(graph, tokenizer_json, config)?,
        })
    }

    /// The sentence vector of one query (a Float32Array of `dims` values), truncated at the
    /// model's token limit.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, JsError> {
        Ok(self.inner.embed(text)?)
    }

    /// One vector per window of a long text, concatenated into one Float32Array of
    /// `windows × dims` values (wasm-bindgen cannot return nested arrays cheaply).
    #[wasm_bindgen(js_name = embedWindows)]
    pub fn embed_windows(&self, text: &str) -> Result<Vec<f32>, JsError> {
        Ok(self.inner.embed_windows(text)?.concat())
    }

    /// Token ids the encoder sees for `text` (special tokens included, truncated at the
    /// limit): a Uint32Array, for tests that compare tokenizers across platforms.
    #[wasm_bindgen(js_name = tokenIds)]
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, JsError> {
        Ok(self.inner.token_ids(text)?)
    }

    /// Number of tokens in `text`, special tokens included, without truncation.
    #[wasm_bindgen(js_name = countTokens)]
    pub fn count_tokens(&self, text: &str) -> usize {
        self.inner.count_tokens(text)
    }

    /// Length of the vectors [`WasmEmbedder::embed`] returns.
    #[wasm_bindgen(getter)]
    pub fn dims(&self) -> usize {
        self.inner.dims()
    }

    /// The model's token limit per encoder run.
    #[wasm_bindgen(getter, js_name = maxTokens)]
    pub fn max_tokens(&self) -> usize {
        self.inner.config().max_tokens
    }
}
