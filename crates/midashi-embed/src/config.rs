//! How a model is to be used (pooling, token limit, languages) and the files of a model
//! folder.

use crate::error::EmbedError;
use serde::{Deserialize, Serialize};

/// The file in a model folder that says how to use the model (written by fetch-model.sh).
pub const MODEL_CONFIG_FILE: &str = "midashi-model.json";

/// How a sequence of token vectors becomes one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// Average of the token vectors, padding excluded (sentence-transformers' default).
    Mean,
    /// The first token's vector (`[CLS]`).
    Cls,
    /// Element-wise maximum over the token vectors.
    Max,
}

/// What Midashi needs to know about a model besides its graph and tokenizer.
///
/// Read from `midashi-model.json` ([`ModelConfig::from_json`]) or derived from a
/// sentence-transformers export ([`ModelConfig::from_sentence_transformers`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    /// Human-readable model name (reports, index metadata).
    #[serde(default)]
    pub name: String,
    /// Length of the sentence vector.
    pub dims: usize,
    /// Token limit of one encoder run, special tokens included. Longer queries are
    /// truncated; longer documents are split into windows.
    pub max_tokens: usize,
    /// How token vectors become a sentence vector.
    pub pooling: Pooling,
    /// Whether the sentence vector is scaled to unit length (cosine = dot product).
    pub normalize: bool,
    /// Languages the model was trained on (ISO 639-1 codes); empty when unknown. Search
    /// leaves the semantic leg out of an automatic query in a script the model does not
    /// cover (a Japanese query with an English-only model).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<String>,
    /// Text an instruction-tuned model wants before every query (`"query: "` for the e5
    /// family); empty for models trained without one. [`crate::Embedder::embed`] adds it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub query_prefix: String,
    /// Text such a model wants before every document (`"passage: "` for e5), added to each
    /// window by [`crate::Embedder::embed_windows`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub document_prefix: String,
    /// ONNX file name inside the model folder (default `model.onnx`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onnx: Option<String>,
    /// Tokenizer file name inside the model folder (default `tokenizer.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokenizer: Option<String>,
    /// sha256 of the ONNX file, as recorded by the exporter. Not checked at load (hashing
    /// 23 MB on every start is not free); callers use it to key caches of embeddings, so a
    /// new model never reuses vectors of the old one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// sha256 of the encoder file an index ships in place of the ONNX
    /// ([`crate::bert::prepare`]; the name is from when that was tract's prepared graph);
    /// written by build-index into the shipped copy's
    /// configuration, so a browser can check the bytes it fetched. `sha256` stays the
    /// model's identity (the ONNX the vectors were made with).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_sha256: Option<String>,
}

impl ModelConfig {
    /// Parses `midashi-model.json`. Unknown keys are ignored (the exporter adds notes).
    pub fn from_json(json: &str) -> Result<Self, EmbedError> {
        let config: ModelConfig = serde_json::from_str(json)
            .map_err(|e| EmbedError::BadModel(format!("{MODEL_CONFIG_FILE}: {e}")))?;
        config.validate()?;
        Ok(config)
    }

    /// Derives the configuration of a sentence-transformers export from its files' contents:
    /// `1_Pooling/config.json` (dims, pooling), `modules.json` (a `Normalize` module means
    /// normalised output) and `sentence_bert_config.json` (`max_seq_length`; 512 if absent).
    /// Contents rather than paths so the browser can pass what it fetched.
    pub fn from_sentence_transformers(
        pooling_json: &str,
        modules_json: Option<&str>,
        sentence_bert_json: Option<&str>,
    ) -> Result<Self, EmbedError> {
        let bad = |file: &str, e: serde_json::Error| EmbedError::BadModel(format!("{file}: {e}"));

        #[derive(Deserialize)]
        struct PoolingFile {
            word_embedding_dimension: usize,
            #[serde(default)]
            pooling_mode_cls_token: bool,
            #[serde(default)]
            pooling_mode_max_tokens: bool,
            #[serde(default)]
            pooling_mode_mean_tokens: bool,
        }
        let p: PoolingFile =
            serde_json::from_str(pooling_json).map_err(|e| bad("1_Pooling/config.json", e))?;
        let pooling = match (
            p.pooling_mode_mean_tokens,
            p.pooling_mode_cls_token,
            p.pooling_mode_max_tokens,
        ) {
            (true, false, false) => Pooling::Mean,
            (false, true, false) => Pooling::Cls,
            (false, false, true) => Pooling::Max,
            _ => return Err(EmbedError::BadModel(
                "1_Pooling/config.json: exactly one of mean, cls or max pooling must be enabled"
                    .into(),
            )),
        };

        #[derive(Deserialize)]
        struct Module {
            #[serde(rename = "type", default)]
            kind: String,
        }
        let normalize = match modules_json {
            Some(json) => serde_json::from_str::<Vec<Module>>(json)
                .map_err(|e| bad("modules.json", e))?
                .iter()
                .any(|m| m.kind.ends_with(".Normalize")),
            None => false,
        };

        #[derive(Deserialize)]
        struct SentenceBert {
            max_seq_length: Option<usize>,
        }
        let max_tokens = match sentence_bert_json {
            Some(json) => serde_json::from_str::<SentenceBert>(json)
                .map_err(|e| bad("sentence_bert_config.json", e))?
                .max_seq_length
                .unwrap_or(512),
            None => 512,
        };

        let config = ModelConfig {
            name: String::new(),
            dims: p.word_embedding_dimension,
            max_tokens,
            pooling,
            normalize,
            languages: Vec::new(),
            query_prefix: String::new(),
            document_prefix: String::new(),
            onnx: None,
            tokenizer: None,
            sha256: None,
            graph_sha256: None,
        };
        config.validate()?;
        Ok(config)
    }

    pub(crate) fn validate(&self) -> Result<(), EmbedError> {
        if self.dims == 0 {
            return Err(EmbedError::BadModel("dims must be > 0".into()));
        }
        // Room for [CLS] + [SEP] and at least a few content tokens per window.
        if self.max_tokens < 8 {
            return Err(EmbedError::BadModel(format!(
                "max_tokens {} is too small (need at least 8)",
                self.max_tokens
            )));
        }
        Ok(())
    }
}

/// A model folder's files, read but not loaded: what [`Embedder::load_dir`] runs, and what
/// `build-index` ships inside an index so a browser embeds queries with the same model.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone)]
pub struct ModelDir {
    /// How to use the model (from `midashi-model.json`, or derived from a
    /// sentence-transformers export).
    pub config: ModelConfig,
    /// The ONNX graph's bytes.
    pub onnx: Vec<u8>,
    /// `tokenizer.json`'s bytes.
    pub tokenizer: Vec<u8>,
}

#[cfg(not(target_arch = "wasm32"))]
impl ModelDir {
    /// Reads `midashi-model.json` + the files it names, or a sentence-transformers export.
    /// A missing folder or file is [`EmbedError::ModelMissing`], whose message says how to
    /// get a model.
    pub fn read(dir: &std::path::Path) -> Result<Self, EmbedError> {
        let missing = |path: &std::path::Path, what: &str| EmbedError::ModelMissing {
            path: path.display().to_string(),
            what: what.to_string(),
        };
        if !dir.is_dir() {
            return Err(missing(dir, "no such folder"));
        }
        let read_text = |name: &str| -> Result<Option<String>, EmbedError> {
            let path = dir.join(name);
            match std::fs::read_to_string(&path) {
                Ok(s) => Ok(Some(s)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(EmbedError::BadModel(format!(
                    "cannot read {}: {e}",
                    path.display()
                ))),
            }
        };

        let config = if let Some(json) = read_text(MODEL_CONFIG_FILE)? {
            ModelConfig::from_json(&json)?
        } else if let Some(pooling) = read_text("1_Pooling/config.json")? {
            let mut c = ModelConfig::from_sentence_transformers(
                &pooling,
                read_text("modules.json")?.as_deref(),
                read_text("sentence_bert_config.json")?.as_deref(),
            )?;
            c.name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            c
        } else {
            return Err(missing(
                dir,
                &format!("neither {MODEL_CONFIG_FILE} nor a sentence-transformers 1_Pooling/config.json in the folder"),
            ));
        };

        let onnx_path = match &config.onnx {
            Some(name) => dir.join(name),
            None => ["model.onnx", "onnx/model.onnx"]
                .iter()
                .map(|n| dir.join(n))
                .find(|p| p.is_file())
                .unwrap_or_else(|| dir.join("model.onnx")),
        };
        let tokenizer_path = dir.join(config.tokenizer.as_deref().unwrap_or("tokenizer.json"));
        let read = |path: &std::path::Path| {
            std::fs::read(path).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => missing(path, "file missing"),
                _ => EmbedError::BadModel(format!("cannot read {}: {e}", path.display())),
            })
        };
        let onnx = read(&onnx_path)?;
        let tokenizer = read(&tokenizer_path)?;
        Ok(ModelDir {
            config,
            onnx,
            tokenizer,
        })
    }

    /// The configuration as the browser's module takes it (`midashi-model.json`), without
    /// the folder-relative file names.
    pub fn config_json(&self) -> String {
        let mut c = self.config.clone();
        c.onnx = None;
        c.tokenizer = None;
        serde_json::to_string_pretty(&c).unwrap_or_default()
    }
}
