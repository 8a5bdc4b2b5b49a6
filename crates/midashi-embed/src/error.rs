//! Errors of loading and running a model.

/// Why a model could not be loaded or run. Messages say what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The model folder or one of its files does not exist.
    #[error("embedding model not found: {what} ({path}); run scripts/fetch-model.sh or pass --model <dir>")]
    ModelMissing {
        /// The folder or file that was looked for.
        path: String,
        /// What is missing, in words.
        what: String,
    },
    /// The files exist but do not form a usable model (bad ONNX, wrong shapes, bad config).
    #[error("embedding model unusable: {0}; re-run scripts/fetch-model.sh --force or check the --model folder")]
    BadModel(String),
    /// The tokenizer rejected its file or the text.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// The encoder failed on this input (tract, or the purpose-written encoder).
    #[error("encoder failed: {0}")]
    Inference(String),
}
