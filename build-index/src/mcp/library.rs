//! The index (and model) the MCP server answers from, loaded once, and the answers of its three
//! tools: text in the CLI's quoted format for the agent to read, plus the same facts as JSON.
//!
//! Nothing here knows about the protocol, so the formatting and the token budget are tested
//! without a client.

use super::params::{GetDocumentParams, ListDocumentsParams, SearchParams};
use crate::embedding::{load_model, resolve_model_dir};
use crate::error::CliError;
use crate::folder::{
    check_model, command_line_options, open_index, parse_mode, query_vector, response_json,
    shipped_model,
};
use midashi_core::answer::quote::{quote_document, quote_search, quote_section, QuoteRequest};
use midashi_core::section::SectionId;
use midashi_core::{Mode, SearchHit, SearchIndex, SearchOptions};
use midashi_embed::Embedder;
use serde_json::{json, Value};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How a quoted answer tells the agent to read a whole section.
const READ_MORE: &str = "get_document with its path and sectionId = the id: line";

/// Results per search when the agent does not say.
const DEFAULT_LIMIT: usize = 10;
/// Preview lines when the agent does not say.
const DEFAULT_PREVIEW_LINES: usize = 5;
/// Documents per listing when the agent does not say: enough for a docs site's section, few
/// enough not to flood a context window.
const DEFAULT_LIST_LIMIT: usize = 200;
/// The most documents one listing returns.
const MAX_LIST_LIMIT: usize = 10_000;

/// A tool call the server cannot answer, with a message the agent can act on.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The engine, the model or an argument refused (empty query, bad limit, unknown mode,
    /// semantic search without a model, …).
    #[error(transparent)]
    Cli(#[from] CliError),
    /// The engine refused the query.
    #[error(transparent)]
    Engine(#[from] midashi_core::Error),
    /// An argument out of range.
    #[error("invalid argument {name}: {detail}")]
    Invalid {
        /// The argument, as the agent spells it.
        name: &'static str,
        /// What is wrong and what would do.
        detail: String,
    },
    /// A path the index does not have.
    #[error("no document {0:?} in this index: list_documents shows the paths (search results show them too)")]
    NoDocument(String),
    /// A section id or anchor the document does not have.
    #[error("no section {id:?} in {path}: pass the 16-hex-digit id of a search result's `id:` line, or one of the document's heading anchors (get_document without sectionId shows the whole document)")]
    NoSection {
        /// The document.
        path: String,
        /// What the agent passed.
        id: String,
    },
    /// A section id of another document.
    #[error("section {id} is in {actual}, not in {path}: call get_document with path {actual:?}")]
    OtherDocument {
        /// The section id.
        id: String,
        /// The path the agent passed.
        path: String,
        /// The section's own document.
        actual: String,
    },
}

/// The text the agent reads and the same answer as JSON (the tool result's structured content).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// What the agent reads.
    pub text: String,
    /// The same facts, structured.
    pub json: Value,
}

/// The embedding model, when one is at hand.
struct Model {
    embedder: Embedder,
    /// Tokens the tokenizer adds to every text ([CLS] and [SEP]): not part of the text's size.
    specials: usize,
    /// Why it cannot embed queries for this index (vectors made with another model), if so.
    mismatch: Option<String>,
}

/// A loaded index, ready to answer tool calls.
pub struct Library {
    index: SearchIndex,
    dir: PathBuf,
    model: Option<Model>,
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("dir", &self.dir)
            .field("model", &self.model.as_ref().map(|m| &m.embedder))
            .finish_non_exhaustive()
    }
}

impl Library {
    /// Loads the index in `dir` and the model: `model` if given (it must load), else the
    /// default model folder if present. A model that does not match the index's vectors is
    /// kept for counting tokens; semantic queries then say why they cannot run.
    pub fn open(dir: &Path, model: Option<&Path>) -> Result<Library, CliError> {
        let index = open_index(dir, true)?;
        // The model the index ships is its vectors' own: preferred unless --model is given.
        let shipped = match model {
            None => shipped_model(dir, index.manifest())?,
            Some(_) => None,
        };
        let model = match shipped {
            Some(embedder) => Some(Model {
                specials: embedder.count_tokens(""),
                embedder,
                mismatch: None,
            }),
            None => match resolve_model_dir(model)? {
                Some(model_dir) => {
                    let (embedder, _) = load_model(&model_dir)?;
                    let specials = embedder.count_tokens("");
                    let mismatch = if index.has_vectors() {
                        check_model(&index, &embedder, &model_dir)
                            .err()
                            .map(|e| e.to_string())
                    } else {
                        None
                    };
                    Some(Model {
                        embedder,
                        specials,
                        mismatch,
                    })
                }
                None => None,
            },
        };
        Ok(Library::new(index, dir.to_path_buf(), model))
    }

    fn new(index: SearchIndex, dir: PathBuf, model: Option<Model>) -> Library {
        Library { index, dir, model }
    }

    /// A keyword-only library over an index built in memory (tests).
    #[cfg(test)]
    pub fn from_index(index: SearchIndex) -> Library {
        Library::new(index, PathBuf::from("(memory)"), None)
    }

    /// Whether semantic and hybrid queries can run.
    pub fn semantic_ready(&self) -> bool {
        self.index.has_vectors() && self.model.as_ref().is_some_and(|m| m.mismatch.is_none())
    }

    /// How tokens are counted, for the agent and the JSON.
    pub fn token_counter(&self) -> String {
        match &self.model {
            Some(m) => format!("{} tokenizer", m.embedder.config().name),
            None => "estimate".to_string(),
        }
    }

    /// Tokens of `text`: the model tokenizer's count when a model is loaded, else the
    /// index's own estimate (one per CJK character, one per four other characters).
    pub fn count_tokens(&self, text: &str) -> usize {
        match &self.model {
            Some(m) => m.embedder.count_tokens(text).saturating_sub(m.specials),
            None => midashi_markdown::token_estimate(&[text]) as usize,
        }
    }

    /// What the server tells the agent at initialisation.
    pub fn instructions(&self) -> String {
        let docs = self.index.documents().len();
        let modes = if self.semantic_ready() {
            "keyword, semantic and hybrid search (hybrid by default)"
        } else {
            "keyword search"
        };
        format!(
            "Midashi documentation index ({docs} documents, {} sections; {modes}). \
             `search` finds sections and quotes the first lines of each with its path, heading \
             path, line numbers and section id; a preview is only the start of a section. \
             `get_document` with path and sectionId returns one whole section, without sectionId \
             the whole document. `list_documents` lists documents under a path prefix.",
            self.index.section_count()
        )
    }

    /// Startup summary for stderr.
    pub fn describe(&self) -> String {
        let semantic = match (&self.model, self.index.has_vectors()) {
            (_, false) => "keyword only (the index has no vectors)".to_string(),
            (None, true) => {
                "keyword only (no model: pass --model <dir> for semantic and hybrid)".to_string()
            }
            (Some(m), true) => match &m.mismatch {
                Some(why) => format!("keyword only ({why})"),
                None => format!("keyword, semantic, hybrid ({})", m.embedder.config().name),
            },
        };
        format!(
            "{}: {} documents, {} sections; {semantic}; tokens counted by {}",
            self.dir.display(),
            self.index.documents().len(),
            self.index.section_count(),
            self.token_counter()
        )
    }

    /// Tokens of a whole section as `get_document` returns it.
    fn section_tokens(&self, hit: &SearchHit) -> usize {
        SectionId::parse(&hit.id)
            .and_then(|id| self.index.get_section(id))
            .map_or(hit.token_estimate as usize, |view| {
                self.count_tokens(&quote_section(&view))
            })
    }

    /// The query's vector, when the mode calls for one and the model can make it.
    fn query_vector(&self, mode: Mode, query: &str) -> Result<Option<Vec<f32>>, ToolError> {
        let embedder = match &self.model {
            Some(m) => match (&m.mismatch, mode) {
                (Some(why), Mode::Semantic | Mode::Hybrid) if self.index.has_vectors() => {
                    return Err(CliError::Model(why.clone()).into())
                }
                (Some(_), _) => None,
                (None, _) => Some(&m.embedder),
            },
            None => None,
        };
        let vector = query_vector(&self.index, mode, query, embedder)?;
        Ok(vector)
    }

    /// `search`: the best sections for a query, quoted, within the token budget.
    pub fn search(&self, p: &SearchParams) -> Result<Answer, ToolError> {
        let mode = parse_mode(p.mode.as_deref().unwrap_or("auto").trim())?;
        if let Some(d) = p.depth.as_ref().and_then(|d| d.iter().find(|&&d| d > 6)) {
            return Err(ToolError::Invalid {
                name: "depth",
                detail: format!("{d} is not a depth: use 0 (whole document) to 6 (H6)"),
            });
        }
        if p.token_budget == Some(0) {
            return Err(ToolError::Invalid {
                name: "tokenBudget",
                detail: "0 leaves room for no result: give at least a few hundred".into(),
            });
        }
        let preview_lines = p.preview_lines.unwrap_or(DEFAULT_PREVIEW_LINES);
        let opts = SearchOptions {
            limit: p.limit.unwrap_or(DEFAULT_LIMIT),
            mode,
            path: p
                .path
                .as_deref()
                .map(|s| s.trim().trim_start_matches('/').to_string())
                .filter(|s| !s.is_empty()),
            depth: p.depth.clone().unwrap_or_default(),
            version: p
                .version
                .as_deref()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty()),
            preview_lines,
            ..command_line_options()
        };
        // The engine checks the query and the limit; the model is not run for a blank one
        // (whose answer is empty).
        let started = Instant::now();
        let vector = if p.query.trim().is_empty() {
            None
        } else {
            self.query_vector(mode, &p.query)?
        };
        let response = self.index.search(&p.query, &opts, vector.as_deref())?;
        let took_ms = started.elapsed().as_secs_f64() * 1000.0;
        let quoted = quote_search(
            &response,
            &QuoteRequest {
                query: &p.query,
                preview_lines,
                token_budget: p.token_budget,
                took_ms: Some(took_ms),
                read_more: READ_MORE,
            },
            &|t| self.count_tokens(t),
            &|hit| self.section_tokens(hit),
        );
        let results: Vec<Value> = quoted
            .kept
            .iter()
            .map(|k| {
                let mut value =
                    serde_json::to_value(&response.results[k.index]).unwrap_or(Value::Null);
                if let Value::Object(o) = &mut value {
                    o.insert("tokens".into(), json!(k.tokens));
                    o.insert("section_tokens".into(), json!(k.section_tokens));
                }
                value
            })
            .collect();
        let mut value = response_json(&response, took_ms);
        if let Value::Object(o) = &mut value {
            o.insert("query".into(), json!(p.query.trim()));
            o.insert("results".into(), Value::Array(results));
            o.insert("tokens".into(), json!(quoted.used));
            o.insert("token_budget".into(), json!(p.token_budget));
            o.insert("left_out".into(), json!(quoted.left_out));
            o.insert("token_counter".into(), json!(self.token_counter()));
        }
        Ok(Answer {
            text: quoted.text,
            json: value,
        })
    }

    /// `get_document`: a whole document, or one of its sections by id or anchor.
    pub fn get_document(&self, p: &GetDocumentParams) -> Result<Answer, ToolError> {
        let path = p.path.trim().trim_start_matches('/');
        if path.is_empty() {
            return Err(ToolError::Invalid {
                name: "path",
                detail: "empty: pass a document path (list_documents shows them)".into(),
            });
        }
        let doc = self
            .index
            .get_document(path)
            .ok_or_else(|| ToolError::NoDocument(path.to_string()))?;
        let Some(wanted) = p.section_id.as_deref().map(str::trim) else {
            let text = quote_document(&doc);
            let tokens = self.count_tokens(&text);
            let mut value = serde_json::to_value(&doc).unwrap_or(Value::Null);
            if let Value::Object(o) = &mut value {
                o.insert("tokens".into(), json!(tokens));
            }
            return Ok(Answer { text, json: value });
        };
        let no_section = || ToolError::NoSection {
            path: doc.path.clone(),
            id: wanted.to_string(),
        };
        let id = match SectionId::parse(wanted) {
            Some(id) => id,
            None => self
                .index
                .find_anchor(&doc.path, wanted.trim_start_matches('#'))
                .ok_or_else(no_section)?,
        };
        let view = self.index.get_section(id).ok_or_else(no_section)?;
        if view.hit.path != doc.path {
            return Err(ToolError::OtherDocument {
                id: view.hit.id.clone(),
                path: doc.path.clone(),
                actual: view.hit.path.clone(),
            });
        }
        let text = quote_section(&view);
        let tokens = self.count_tokens(&text);
        let mut value = serde_json::to_value(&view).unwrap_or(Value::Null);
        if let Value::Object(o) = &mut value {
            o.insert("tokens".into(), json!(tokens));
        }
        Ok(Answer { text, json: value })
    }

    /// `list_documents`: documents under a path prefix, with titles and section counts.
    pub fn list_documents(&self, p: &ListDocumentsParams) -> Result<Answer, ToolError> {
        let limit = p.limit.unwrap_or(DEFAULT_LIST_LIMIT);
        if limit == 0 || limit > MAX_LIST_LIMIT {
            return Err(ToolError::Invalid {
                name: "limit",
                detail: format!("{limit} is not between 1 and {MAX_LIST_LIMIT}"),
            });
        }
        let prefix = p
            .path
            .as_deref()
            .unwrap_or("")
            .trim()
            .trim_start_matches('/');
        let documents = self.index.documents();
        let all = documents.len();
        let matching: Vec<&str> = documents
            .iter()
            .map(|(path, _)| path.as_str())
            .filter(|path| path.starts_with(prefix))
            .collect();
        let mut text = String::new();
        let mut docs = Vec::new();
        let _ = write!(text, "{} documents", matching.len());
        if !prefix.is_empty() {
            let _ = write!(text, " under {prefix:?}");
        }
        let _ = writeln!(text, " ({all} in the index)");
        if matching.is_empty() {
            let _ = writeln!(
                text,
                "No document path starts with {prefix:?}: list_documents without path shows them all."
            );
        }
        for path in matching.iter().take(limit) {
            let Some(doc) = self.index.get_document(path) else {
                continue;
            };
            let description = doc.sections.first().and_then(|s| s.description.clone());
            let _ = writeln!(
                text,
                "- {} — {} ({} sections)",
                doc.path,
                doc.title,
                doc.sections.len()
            );
            if let Some(d) = description.as_deref().filter(|d| !d.trim().is_empty()) {
                let _ = writeln!(text, "  {}", d.trim());
            }
            docs.push(json!({
                "path": doc.path,
                "title": doc.title,
                "url": doc.url,
                "sections": doc.sections.len(),
                "description": description,
            }));
        }
        if matching.len() > limit {
            let _ = writeln!(
                text,
                "… {} more: narrow the path or raise limit.",
                matching.len() - limit
            );
        }
        Ok(Answer {
            text,
            json: json!({
                "total": matching.len(),
                "documents": docs,
                "left_out": matching.len().saturating_sub(limit),
            }),
        })
    }
}
