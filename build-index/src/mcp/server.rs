//! The protocol face: the three tools as MCP tools (rmcp), their results as MCP tool results.
//!
//! Every failure is a tool result with `isError` and a message the agent can act on (arguments
//! that do not parse are refused by rmcp as invalid params); a panic is caught and reported the
//! same way, so no tool call can stop the server.

use super::library::{Answer, Library, ToolError};
use super::params::{GetDocumentParams, ListDocumentsParams, SearchParams};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ServerHandler};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// The MCP server over one loaded index.
#[derive(Clone)]
pub struct DocsServer {
    library: Arc<Library>,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for DocsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocsServer")
            .field("library", &self.library)
            .finish_non_exhaustive()
    }
}

#[tool_router]
impl DocsServer {
    /// A server answering from `library`.
    pub fn new(library: Arc<Library>) -> Self {
        DocsServer {
            library,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Search the documentation by section. Each result is quoted as `path > heading path`, a `Level | Section | Line | Score | Tokens` line, the document's summary when it has one, a fenced Markdown preview of the section's first lines (\"… (N more lines)\" counts the rest) and the section's id. A preview is only the start of a section: to read all of it, call get_document with the result's path and sectionId = its id. Tokens is the size of the whole section. Use tokenBudget to cap the size of the answer.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn search(&self, Parameters(params): Parameters<SearchParams>) -> CallToolResult {
        respond(|| self.library.search(&params))
    }

    #[tool(
        description = "Read a whole document, or one whole section of it (sectionId: the id of a search result, or a heading anchor), with its path, heading path and line numbers.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn get_document(&self, Parameters(params): Parameters<GetDocumentParams>) -> CallToolResult {
        respond(|| self.library.get_document(&params))
    }

    #[tool(
        description = "List the documents under a path prefix, with their titles, summaries and section counts.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn list_documents(
        &self,
        Parameters(params): Parameters<ListDocumentsParams>,
    ) -> CallToolResult {
        respond(|| self.library.list_documents(&params))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for DocsServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("midashi", env!("CARGO_PKG_VERSION"))
                    .with_title("Midashi documentation search"),
            )
            .with_instructions(self.library.instructions())
    }
}

/// A tool's answer as an MCP result: the quoted text as content, the JSON as structured
/// content; errors (and panics, which would otherwise leave the call unanswered) as `isError`.
fn respond(answer: impl FnOnce() -> Result<Answer, ToolError>) -> CallToolResult {
    match catch_unwind(AssertUnwindSafe(answer)) {
        Ok(Ok(answer)) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(answer.text)]);
            result.structured_content = Some(answer.json);
            result
        }
        Ok(Err(e)) => CallToolResult::error(vec![ContentBlock::text(format!("error: {e}"))]),
        Err(_) => CallToolResult::error(vec![ContentBlock::text(
            "error: the server failed on this call (a bug; the message is on its stderr). It is still running: other calls work.",
        )]),
    }
}
