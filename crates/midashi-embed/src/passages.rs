//! What of a section is embedded: passages of a few whole sentences, each led by the
//! section's context (`Title > Heading > Subheading`).
//!
//! Why passages, not the whole section: one vector averages everything a section says, and a
//! question about one of its sentences matches that average weakly. A section scores by its
//! best passage (`midashi_core::vectors`), so a sentence that answers the question is found
//! however much else the section says. Why the context in each: a passage alone ("It is
//! dropped when it goes out of scope.") often does not say what it is about.
//!
//! Measured offline over each set's sections (onnxruntime, the same models; nDCG@10 of the
//! semantic leg, one vector per section → passages of up to [`PASSAGE_TOKENS`] tokens):
//! JSQuAD with multilingual-e5-small 0.905 → 0.929 (one vector per sentence 0.931, passages
//! of 128 tokens 0.914); `build-index eval` figures are in docs/ranking.md. The price is
//! rows: about two per JSQuAD paragraph, each a vector a browser downloads.

use crate::{EmbedError, Embedder};
use unicode_segmentation::UnicodeSegmentation;

/// Tokens of a section's own text (context and special tokens aside) a passage holds at
/// most. A sentence longer than this is a passage alone (cut at the model's limit, like any
/// text, by [`Embedder::embed_windows`]).
pub const PASSAGE_TOKENS: usize = 64;

impl Embedder {
    /// The texts a section is embedded as: its text cut at sentence boundaries (Unicode's,
    /// UAX #29: `。` and `. ` end a sentence, and so does a line break) into passages of
    /// whole sentences up to [`PASSAGE_TOKENS`] tokens, each led by `context` and a line
    /// break; `context` alone for a section without text.
    pub fn passages(&self, context: &str, text: &str) -> Result<Vec<String>, EmbedError> {
        let lead = |body: &str| {
            if context.is_empty() {
                body.to_string()
            } else {
                format!("{context}\n{body}")
            }
        };
        let mut out = Vec::new();
        let mut body = String::new();
        let mut tokens = 0;
        for sentence in text.split_sentence_bounds() {
            let n = self.count_plain_tokens(sentence)?;
            if tokens > 0 && tokens + n > PASSAGE_TOKENS {
                out.push(lead(body.trim()));
                body.clear();
                tokens = 0;
            }
            body.push_str(sentence);
            tokens += n;
        }
        if !body.trim().is_empty() {
            out.push(lead(body.trim()));
        }
        if out.is_empty() {
            out.push(context.to_string());
        }
        Ok(out)
    }

    /// One vector per passage of a section ([`Embedder::passages`]; more than one for a
    /// passage longer than the model's limit, as [`Embedder::embed_windows`] cuts it).
    pub fn embed_passages(&self, context: &str, text: &str) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_texts(&self.passages(context, text)?)
    }

    /// The vectors of texts already cut into passages, in order: each passage's windows
    /// ([`Embedder::embed_windows`]). What the build encodes a section's cached passages with.
    pub fn embed_texts(&self, passages: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::new();
        for passage in passages {
            out.extend(self.embed_windows(passage)?);
        }
        Ok(out)
    }

    /// The texts an embedding server is sent for passages, in order: each passage's windows
    /// ([`Embedder::window_texts`]), one per vector [`Embedder::embed_texts`] makes.
    pub fn window_texts_of(&self, passages: &[String]) -> Result<Vec<String>, EmbedError> {
        let mut out = Vec::new();
        for passage in passages {
            out.extend(self.window_texts(passage)?);
        }
        Ok(out)
    }
}
