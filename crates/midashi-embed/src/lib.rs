//! Text → vector for Midashi's semantic leg.
//!
//! An [`Embedder`] couples a model's `tokenizer.json` (Hugging Face `tokenizers`), a sentence
//! encoder and the pooling/normalisation its sentence-transformers config prescribes. The
//! encoder is tract running the model's ONNX (build-index embeds the documents with it,
//! feature `tract`) or the purpose-written BERT encoder ([`bert`]) running the file an index
//! ships, which every surface — CLI, MCP, Node, the browser — encodes queries with; `prepare`
//! checks that the two compute the same. Tokenizer and pooling are one code for both.
//!
//! The default model is all-MiniLM-L6-v2 as written by `scripts/fetch-model.sh`
//! (`models/all-MiniLM-L6-v2/`: weight-only int8 `model.onnx`, `tokenizer.json`,
//! `midashi-model.json`). Any sentence-transformers ONNX export with a `tokenizer.json` works
//! too: see [`ModelConfig::from_sentence_transformers`].
//!
//! ```no_run
//! # fn main() -> Result<(), midashi_embed::EmbedError> {
//! let embedder = midashi_embed::Embedder::load_dir("models/all-MiniLM-L6-v2".as_ref())?;
//! let query = embedder.embed("how do I configure the index?")?; // 384 floats, unit length
//! let windows = embedder.embed_windows("a long section …")?;    // one vector per window
//! # Ok(()) }
//! ```

pub mod bert;
mod config;
#[cfg(feature = "onnx")]
pub mod distill;
mod encoder;
mod error;
#[cfg(feature = "tract")]
pub mod graph;
mod packed;
mod passages;
#[cfg(feature = "onnx")]
pub mod trim;

#[cfg(not(target_arch = "wasm32"))]
pub use config::ModelDir;
pub use config::{ModelConfig, Pooling, MODEL_CONFIG_FILE};
pub use error::EmbedError;
pub use packed::{WeightBits, FOUR_BITS_AGREEMENT};
pub use passages::PASSAGE_TOKENS;

/// Cosine similarity of two vectors (0 for a zero one): how closely two encoders, or two
/// copies of one, embed the same text.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let norm = |v: &[f32]| v.iter().map(|p| p * p).sum::<f32>().sqrt();
    let dot: f32 = a.iter().zip(b).map(|(p, q)| p * q).sum();
    dot / (norm(a) * norm(b)).max(f32::MIN_POSITIVE)
}

use tokenizers::{Encoding, Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

/// A loaded model: tokenizer + optimised encoder plan + pooling. Cheap to share across threads
/// (`Send + Sync`; every call uses its own execution state).
pub struct Embedder {
    config: ModelConfig,
    /// Truncates at `max_tokens` (queries, [`Embedder::token_ids`]).
    tokenizer: Tokenizer,
    /// No truncation ([`Embedder::count_tokens`], document windows): made on first use. A
    /// browser only embeds queries, and cloning a tokenizer is not free (a Unigram
    /// vocabulary's trie: half a second for multilingual-e5-small's whole one).
    counter: std::sync::OnceLock<Tokenizer>,
    /// Special tokens the tokenizer puts before and after a single text ([CLS] / [SEP] for
    /// BERT) with their type ids: each document window is wrapped in them. Learnt from the
    /// tokenizer's own template at load.
    template: Template,
    encoder: Box<dyn encoder::Encode>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Tokens shared by consecutive document windows, so a sentence cut at a window edge is
/// still whole in one of them. An eighth of the window: 32 tokens for MiniLM's 256.
fn window_overlap(max_tokens: usize) -> usize {
    (max_tokens / 8).max(1)
}

fn truncation(max_length: usize, stride: usize) -> TruncationParams {
    TruncationParams {
        direction: TruncationDirection::Right,
        max_length,
        strategy: TruncationStrategy::LongestFirst,
        stride,
    }
}

impl Embedder {
    /// Builds an embedder from the bytes of an encoder — the file an index ships
    /// ([`bert::prepare`]), or with feature `tract` an ONNX or the prepared graph older
    /// indexes shipped; told apart by their bytes — and a `tokenizer.json`.
    ///
    /// The encoder must take some of `input_ids`, `attention_mask`, `token_type_ids` (int64
    /// `[batch, sequence]`) and return token vectors `[batch, sequence, dims]` (pooled here)
    /// or sentence vectors `[batch, dims]`. The tokenizer's own padding and truncation
    /// settings are replaced: no padding, truncation at `config.max_tokens`.
    pub fn from_bytes(
        onnx: &[u8],
        tokenizer_json: &[u8],
        config: ModelConfig,
    ) -> Result<Self, EmbedError> {
        config.validate()?;
        let mut tokenizer = Tokenizer::from_bytes(tokenizer_json)
            .map_err(|e| EmbedError::Tokenizer(format!("cannot read tokenizer.json: {e}")))?;
        // We encode one text at a time: padding would only add work.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(truncation(config.max_tokens, 0)))
            .map_err(|e| EmbedError::Tokenizer(format!("cannot set truncation: {e}")))?;
        let counter = std::sync::OnceLock::new();
        let template = Template::learn(&tokenizer, config.max_tokens, &config.document_prefix)?;

        let encoder = encoder::load(onnx, config.dims)?;
        Ok(Embedder {
            config,
            tokenizer,
            counter,
            template,
            encoder,
        })
    }

    /// Loads a model folder: `midashi-model.json` + the files it names (as written by
    /// `scripts/fetch-model.sh`), or a sentence-transformers export (`1_Pooling/config.json`,
    /// `tokenizer.json`, and `model.onnx` or `onnx/model.onnx`). See [`ModelDir::read`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_dir(dir: &std::path::Path) -> Result<Self, EmbedError> {
        let files = ModelDir::read(dir)?;
        Self::from_bytes(&files.onnx, &files.tokenizer, files.config)
    }

    /// The tokenizer without truncation, made from the truncating one on first use.
    fn counter(&self) -> &Tokenizer {
        self.counter.get_or_init(|| {
            let mut t = self.tokenizer.clone();
            // Only fails for a stride larger than the limit; there is no limit here.
            let _ = t.with_truncation(None);
            t
        })
    }

    /// The model's configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// Length of the vectors this embedder returns.
    pub fn dims(&self) -> usize {
        self.config.dims
    }

    /// Token ids of `text` as the encoder sees them: special tokens included, truncated at
    /// `max_tokens`.
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        Ok(self.encode(&self.tokenizer, text)?.get_ids().to_vec())
    }

    /// Token ids of `text` without special tokens, prefixes or truncation: the pieces a
    /// static table (`distill`) looks up.
    pub fn piece_ids(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        Ok(self
            .encode_with(self.counter(), text, false)?
            .get_ids()
            .to_vec())
    }

    /// The text of vocabulary piece `id` (`##ing`, `▁東京`), if there is one.
    pub fn piece(&self, id: u32) -> Option<String> {
        self.tokenizer.id_to_token(id)
    }

    /// The tokenizer as its `tokenizer.json` says it, for a reader of its kind and settings
    /// (a static table's cutter, in build-index).
    pub fn tokenizer_json(&self) -> Option<serde_json::Value> {
        let json = self.tokenizer.to_string(false).ok()?;
        serde_json::from_str(&json).ok()
    }

    /// How many pieces the tokenizer's vocabulary holds (added tokens included).
    pub fn vocab_size(&self) -> usize {
        self.tokenizer.get_vocab_size(true)
    }

    /// The encoder's output for one vocabulary piece alone between the special tokens that
    /// open and close a text, averaged over the three positions and not normalised: the row
    /// a static table starts from (`distill`).
    pub fn embed_piece(&self, piece: u32) -> Result<Vec<f32>, EmbedError> {
        let t = &self.template;
        let ids: Vec<u32> = t
            .prefix
            .first()
            .map(|&(id, _)| id)
            .into_iter()
            .chain([piece])
            .chain(t.suffix.iter().map(|&(id, _)| id))
            .collect();
        let zeros = vec![0u32; ids.len()];
        let ones = vec![1u32; ids.len()];
        Ok(match self.encoder.encode(&ids, &zeros, &ones)? {
            encoder::Output::Tokens(states) => {
                pool(Pooling::Mean, &states, self.config.dims, &ones)
            }
            encoder::Output::Sentence(vector) => vector,
        })
    }

    /// Each window [`Embedder::embed_windows`] encodes, with the encoder's output for every
    /// token beside the window's vector: what a static table learns a site's contexts from
    /// (`distill::ContextMeans`), in the same pass that gives the vectors.
    pub fn window_states(&self, text: &str) -> Result<Vec<Window>, EmbedError> {
        self.windows(text)?
            .into_iter()
            .map(|w| {
                let (states, vector) = match self.encoder.encode(&w.ids, &w.type_ids, &w.mask)? {
                    encoder::Output::Tokens(states) => {
                        let vector = self.finish(pool(
                            self.config.pooling,
                            &states,
                            self.config.dims,
                            &w.mask,
                        ));
                        (states, vector)
                    }
                    encoder::Output::Sentence(vector) => (Vec::new(), self.finish(vector)),
                };
                Ok(Window {
                    ids: w.ids,
                    states,
                    vector,
                })
            })
            .collect()
    }

    /// Number of tokens in `text` with special tokens, without truncation: more than
    /// `max_tokens` means [`Embedder::embed_windows`] will split it. 0 if the tokenizer
    /// rejects the text (it never does for valid UTF-8 with the BERT tokenizer).
    pub fn count_tokens(&self, text: &str) -> usize {
        self.encode(self.counter(), text)
            .map(|e| e.len())
            .unwrap_or(0)
    }

    /// Number of tokens in `text` without special tokens or truncation.
    fn count_plain_tokens(&self, text: &str) -> Result<usize, EmbedError> {
        Ok(self.encode_with(self.counter(), text, false)?.len())
    }

    /// The sentence vector of a query, truncated at `max_tokens`, with the model's
    /// `query_prefix` before it.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let text = prefixed(&self.config.query_prefix, text);
        let encoding = self.encode(&self.tokenizer, &text)?;
        self.run(&Tokens::from(&encoding))
    }

    /// One vector per window of a document: the text is split at the token limit into
    /// windows that overlap by an eighth of a window, each encoded with its own special
    /// tokens and the model's `document_prefix`. For a model without prefixes, a text within
    /// the limit gives exactly one vector, equal to [`Embedder::embed`]'s.
    pub fn embed_windows(&self, text: &str) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.windows(text)?.iter().map(|w| self.run(w)).collect()
    }

    /// The token ids of each window [`Embedder::embed_windows`] would encode.
    pub fn window_token_ids(&self, text: &str) -> Result<Vec<Vec<u32>>, EmbedError> {
        Ok(self.windows(text)?.iter().map(|w| w.ids.clone()).collect())
    }

    /// The text of each window [`Embedder::embed_windows`] would encode, for an embedding
    /// server that takes text: the text itself when it fits in one window (so the server's
    /// vector is the one this model makes), else each window's tokens decoded back to text.
    /// Re-tokenised, a decoded window gives the same word pieces, up to the tokenizer's
    /// normalisation (lower case, accents for BERT's): vectors close to the local ones. The
    /// model's `document_prefix` leads each text, as a server embeds exactly what it is sent.
    pub fn window_texts(&self, text: &str) -> Result<Vec<String>, EmbedError> {
        let windows = self.windows(text)?;
        let prefix = &self.config.document_prefix;
        if windows.len() == 1 {
            return Ok(vec![prefixed(prefix, text).into_owned()]);
        }
        windows
            .iter()
            .map(|w| {
                self.counter()
                    .decode(&w.ids, true)
                    .map_err(|e| EmbedError::Tokenizer(e.to_string()))
            })
            .collect()
    }

    /// Splits a text into windows of at most `max_tokens` tokens, special tokens included.
    ///
    /// Done here rather than with the tokenizer's truncation stride: with tokenizers 0.23 the
    /// overflowing pieces lose the middle windows once the template post-processor has run
    /// (measured: a 590-token text gave windows of 256 and 36 tokens).
    fn windows(&self, text: &str) -> Result<Vec<Tokens>, EmbedError> {
        let full = self.encode_with(self.counter(), text, false)?;
        let t = &self.template;
        let (ids, type_ids) = (full.get_ids(), full.get_type_ids());
        let capacity = self.config.max_tokens - t.prefix.len() - t.suffix.len();
        let step = capacity - window_overlap(self.config.max_tokens).min(capacity / 2);
        let mut out = Vec::new();
        let mut start = 0;
        loop {
            let end = (start + capacity).min(ids.len());
            out.push(t.wrap(&ids[start..end], &type_ids[start..end]));
            if end == ids.len() {
                return Ok(out);
            }
            start += step;
        }
    }

    fn encode(&self, tokenizer: &Tokenizer, text: &str) -> Result<Encoding, EmbedError> {
        self.encode_with(tokenizer, text, true)
    }

    fn encode_with(
        &self,
        tokenizer: &Tokenizer,
        text: &str,
        special: bool,
    ) -> Result<Encoding, EmbedError> {
        // encode_fast: no character offsets, which we never use.
        tokenizer
            .encode_fast(text, special)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))
    }

    /// Runs the encoder on one token sequence and pools its output.
    fn run(&self, tokens: &Tokens) -> Result<Vec<f32>, EmbedError> {
        let mask = &tokens.mask[..];
        let vector = match self.encoder.encode(&tokens.ids, &tokens.type_ids, mask)? {
            encoder::Output::Tokens(states) => {
                pool(self.config.pooling, &states, self.config.dims, mask)
            }
            encoder::Output::Sentence(vector) => vector,
        };
        Ok(self.finish(vector))
    }

    /// A pooled vector as the model's config finishes it (normalised or not).
    fn finish(&self, mut vector: Vec<f32>) -> Vec<f32> {
        if self.config.normalize {
            normalize(&mut vector);
        }
        vector
    }
}

/// Scales `vector` to unit length (a zero vector stays zero).
pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|v| *v /= norm);
    }
}

/// One window of a text as the encoder saw it ([`Embedder::window_states`]).
#[derive(Debug, Clone)]
pub struct Window {
    /// Its token ids, special tokens and prefix included.
    pub ids: Vec<u32>,
    /// The encoder's output for each token, `ids.len() × dims` values (empty for a model
    /// whose graph pools inside).
    pub states: Vec<f32>,
    /// The window's vector, as [`Embedder::embed_windows`] gives it.
    pub vector: Vec<f32>,
}

/// One encoder input: token ids, their type ids and the attention mask, equally long.
struct Tokens {
    ids: Vec<u32>,
    type_ids: Vec<u32>,
    mask: Vec<u32>,
}

impl From<&Encoding> for Tokens {
    fn from(e: &Encoding) -> Self {
        Tokens {
            ids: e.get_ids().to_vec(),
            type_ids: e.get_type_ids().to_vec(),
            mask: e.get_attention_mask().to_vec(),
        }
    }
}

/// What surrounds a document window: the special tokens a tokenizer's post-processor wraps
/// a single text in, and the model's document prefix between the first of them and the text.
#[derive(Debug, Clone)]
struct Template {
    /// (id, type id) of the tokens before the text: specials, then the document prefix.
    prefix: Vec<(u32, u32)>,
    /// (id, type id) of the tokens after the text.
    suffix: Vec<(u32, u32)>,
}

impl Template {
    /// Encodes a one-word probe with special tokens and reads off what surrounds the text
    /// (tokens whose sequence id is none are the template's). The document prefix is
    /// tokenised on its own without its trailing space: "passage: " + text gives the same
    /// pieces as "passage:" then text, as a word-splitting tokenizer cuts at that space.
    fn learn(
        tokenizer: &Tokenizer,
        max_tokens: usize,
        document_prefix: &str,
    ) -> Result<Self, EmbedError> {
        let probe = tokenizer
            .encode_fast("a", true)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        let seq = probe.get_sequence_ids();
        let first = seq.iter().position(Option::is_some);
        let last = seq.iter().rposition(Option::is_some);
        let (Some(first), Some(last)) = (first, last) else {
            return Err(EmbedError::Tokenizer(
                "the tokenizer encodes \"a\" to no tokens".into(),
            ));
        };
        let pairs = |range: std::ops::Range<usize>| -> Vec<(u32, u32)> {
            range
                .map(|i| (probe.get_ids()[i], probe.get_type_ids()[i]))
                .collect()
        };
        let mut template = Template {
            prefix: pairs(0..first),
            suffix: pairs(last + 1..probe.len()),
        };
        let document_prefix = document_prefix.trim_end();
        if !document_prefix.is_empty() {
            let doc = tokenizer
                .encode_fast(document_prefix, false)
                .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
            let kinds = doc.get_ids().iter().zip(doc.get_type_ids());
            template
                .prefix
                .extend(kinds.map(|(&id, &type_id)| (id, type_id)));
        }
        if template.prefix.len() + template.suffix.len() + 4 > max_tokens {
            return Err(EmbedError::BadModel(format!(
                "max_tokens {max_tokens} leaves no room for text"
            )));
        }
        Ok(template)
    }

    /// A window: the template's prefix, `ids`, the suffix; mask all ones.
    fn wrap(&self, ids: &[u32], type_ids: &[u32]) -> Tokens {
        let mut out = Tokens {
            ids: Vec::new(),
            type_ids: Vec::new(),
            mask: Vec::new(),
        };
        let content = ids.iter().copied().zip(type_ids.iter().copied());
        for (id, type_id) in self
            .prefix
            .iter()
            .copied()
            .chain(content)
            .chain(self.suffix.iter().copied())
        {
            out.ids.push(id);
            out.type_ids.push(type_id);
            out.mask.push(1);
        }
        out
    }
}

/// `prefix` + `text`, borrowed when there is no prefix (most models).
fn prefixed<'a>(prefix: &str, text: &'a str) -> std::borrow::Cow<'a, str> {
    if prefix.is_empty() {
        text.into()
    } else {
        format!("{prefix}{text}").into()
    }
}

/// Pools token vectors `[len, dims]` (row-major) into one vector, ignoring positions whose
/// mask is 0.
fn pool(pooling: Pooling, tokens: &[f32], dims: usize, mask: &[u32]) -> Vec<f32> {
    let kept = || {
        tokens
            .chunks_exact(dims)
            .zip(mask)
            .filter(|(_, &m)| m != 0)
            .map(|(row, _)| row)
    };
    match pooling {
        Pooling::Cls => tokens[..dims.min(tokens.len())].to_vec(),
        Pooling::Mean => {
            // Sum in f64: 256 tokens of f32 lose a few ulps otherwise, and this is cheap.
            let mut sum = vec![0f64; dims];
            let mut n = 0usize;
            for row in kept() {
                sum.iter_mut().zip(row).for_each(|(s, &v)| *s += v as f64);
                n += 1;
            }
            let n = n.max(1) as f64;
            sum.into_iter().map(|s| (s / n) as f32).collect()
        }
        Pooling::Max => {
            let mut max = vec![f32::NEG_INFINITY; dims];
            for row in kept() {
                max.iter_mut().zip(row).for_each(|(m, &v)| *m = m.max(v));
            }
            max
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_midashi_model_json_and_ignores_notes() {
        let c = ModelConfig::from_json(
            r#"{"name":"m","dims":384,"max_tokens":256,"pooling":"mean","normalize":true,"sha256":"ab","check":{"int8":0.9994}}"#,
        )
        .unwrap();
        assert_eq!(
            (c.dims, c.max_tokens, c.pooling, c.normalize),
            (384, 256, Pooling::Mean, true)
        );
        assert_eq!(c.sha256.as_deref(), Some("ab"));
        let err = ModelConfig::from_json(r#"{"dims":384}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("midashi-model.json") && err.contains("max_tokens"),
            "{err}"
        );
    }

    #[test]
    fn reads_sentence_transformers_config() {
        let pooling = r#"{"word_embedding_dimension":384,"pooling_mode_cls_token":false,"pooling_mode_mean_tokens":true,"pooling_mode_max_tokens":false,"pooling_mode_mean_sqrt_len_tokens":false}"#;
        let modules = r#"[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},{"idx":2,"name":"2","path":"2_Normalize","type":"sentence_transformers.models.Normalize"}]"#;
        let c = ModelConfig::from_sentence_transformers(
            pooling,
            Some(modules),
            Some(r#"{"max_seq_length":256,"do_lower_case":false}"#),
        )
        .unwrap();
        assert_eq!(
            (c.dims, c.max_tokens, c.pooling, c.normalize),
            (384, 256, Pooling::Mean, true)
        );
        let c = ModelConfig::from_sentence_transformers(
            &pooling
                .replace("cls_token\":false", "cls_token\":true")
                .replace("mean_tokens\":true", "mean_tokens\":false"),
            None,
            None,
        )
        .unwrap();
        assert_eq!(
            (c.pooling, c.normalize, c.max_tokens),
            (Pooling::Cls, false, 512)
        );
    }

    #[test]
    fn embedder_can_be_shared_across_threads() {
        // build-index encodes documents in parallel with one Embedder.
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Embedder>();
    }

    #[test]
    fn pooling_ignores_masked_tokens() {
        let tokens = [1.0f32, 2.0, 3.0, 4.0, 100.0, -100.0];
        let mask = [1, 1, 0];
        assert_eq!(pool(Pooling::Mean, &tokens, 2, &mask), vec![2.0, 3.0]);
        assert_eq!(pool(Pooling::Max, &tokens, 2, &mask), vec![3.0, 4.0]);
        assert_eq!(pool(Pooling::Cls, &tokens, 2, &mask), vec![1.0, 2.0]);
    }
}
