//! What an agent may pass to each tool. The doc comments become the JSON Schema descriptions
//! the agent reads in `tools/list`, so they say what each argument does and its default.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;

/// Arguments of `search`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchParams {
    /// What to look for: words, an identifier, a phrase, or a question (English, Japanese, …).
    /// `"exact words"` must appear in that order; `-word` leaves out sections holding it.
    pub query: String,
    /// "keyword" (BM25F), "semantic" (sentence vectors; needs the embedding model), "hybrid"
    /// (both, fused) or "auto" (the default: hybrid when the index has vectors and the model is
    /// loaded, keyword otherwise).
    pub mode: Option<String>,
    /// Results to return, 1–1000 (default 10).
    pub limit: Option<usize>,
    /// Only sections of these depths: 0 = whole document, 1–6 = heading level (default: all).
    pub depth: Option<Vec<u8>>,
    /// Only documents whose path starts with this, e.g. "guide/".
    pub path: Option<String>,
    /// Only documents of this product version (e.g. "7.4"), on a versioned docs site.
    /// Without it, a section present in several versions is returned once (its newest
    /// version), naming the other versions.
    pub version: Option<String>,
    /// Lines of each section's source shown in its preview (default 5).
    pub preview_lines: Option<usize>,
    /// Stop adding results before their tokens would pass this many (counted on the text of
    /// each result as returned). Results are never cut in the middle.
    pub token_budget: Option<usize>,
}

/// Arguments of `get_document`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetDocumentParams {
    /// The document's path as search results and list_documents show it, e.g. "guide/intro.md".
    pub path: String,
    /// One section of the document: the 16-hex-digit id from a search result's `id:` line, or
    /// the section's heading anchor. Without it the whole document is returned.
    pub section_id: Option<String>,
}

/// Arguments of `list_documents`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListDocumentsParams {
    /// Only documents whose path starts with this, e.g. "guide/" (default: all).
    pub path: Option<String>,
    /// Documents to list at most, 1–10000 (default 200).
    pub limit: Option<usize>,
}
