//! Answers quoted for agents and for pasting (midashi-core's `answer::quote`), from the JS
//! objects the engine answered with: what the widget's in-page tools for browser agents
//! (WebMCP) and its "Copy as Markdown" give. Only in the full engine: no first query needs it.

use crate::js_error;
use crate::read;
use crate::values::{Out, ToOut};
use midashi_core::answer::quote::{self, QuoteRequest};
use midashi_core::SearchOptions;
use wasm_bindgen::prelude::*;

/// How a quoted answer in the page tells an agent to read a whole section.
const READ_MORE: &str = "get_section with the id";

fn not_an_answer(e: String) -> JsValue {
    js_error("INVALID_OPTION", &e)
}

/// What `quoteSearch` answers.
struct Quoted {
    text: String,
    /// Indexes of the results quoted, in order.
    kept: Vec<usize>,
    tokens: usize,
    left_out: usize,
}

impl ToOut for Quoted {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            ("text", self.text.to_out()),
            ("results", self.kept.to_out()),
            ("tokens", self.tokens.to_out()),
            ("left_out", self.left_out.to_out()),
        ])
    }
}

/// A search answer (`response`, as `search` gave it, possibly merged over several indexes)
/// quoted as the MCP server quotes it (`preview_lines`: what the search was asked for), within `token_budget` tokens when given: `{ text,
/// results: [indexes of the results quoted], tokens, left_out }`. Tokens are the index's
/// estimate (no model tokenizer in the page), and a section's size is its own text's.
#[wasm_bindgen(js_name = quoteSearch)]
pub fn quote_search(
    query: &str,
    response: JsValue,
    preview_lines: Option<usize>,
    token_budget: Option<usize>,
) -> Result<JsValue, JsValue> {
    let response = read::response(&response).map_err(not_an_answer)?;
    // The lines the search was asked for: the engine's default when not said.
    let preview_lines = preview_lines.unwrap_or(SearchOptions::default().preview_lines);
    let quoted = quote::quote_search(
        &response,
        &QuoteRequest {
            query,
            preview_lines,
            token_budget,
            took_ms: None,
            read_more: READ_MORE,
        },
        &|text| quote::token_estimate(&[text]) as usize,
        &|hit| hit.token_estimate as usize,
    );
    Ok(Quoted {
        text: quoted.text,
        kept: quoted.kept.iter().map(|k| k.index).collect(),
        tokens: quoted.used,
        left_out: quoted.left_out,
    }
    .to_out())
}

/// A whole section (as `getSection` gave it) quoted as the MCP server's `get_document` with a
/// section id prints it.
#[wasm_bindgen(js_name = quoteSection)]
pub fn quote_section(section: JsValue) -> Result<String, JsValue> {
    let view = read::section(&section).map_err(not_an_answer)?;
    Ok(quote::quote_section(&view))
}

/// A section (as `getSection` gave it) to paste: its heading path linked to `link`, its file
/// and lines, then its Markdown.
#[wasm_bindgen(js_name = sectionMarkdown)]
pub fn section_markdown(section: JsValue, link: &str) -> Result<String, JsValue> {
    let view = read::section(&section).map_err(not_an_answer)?;
    Ok(quote::section_markdown(&view, link))
}
