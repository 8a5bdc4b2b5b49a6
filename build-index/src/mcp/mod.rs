//! `build-index mcp <dir>`: a Model Context Protocol server over stdio (or Streamable HTTP with
//! `--http`), so that an agent can search an index folder, read whole sections and documents,
//! and browse the documents.
//!
//! The index (and the embedding model, if one is at hand) is loaded once at start; answers are
//! quoted exactly as `build-index search` and `get` print them (`midashi_core::answer::quote`), with
//! token counts so an agent can spend its context window wisely.

mod http;
mod library;
mod params;
mod server;
mod stdio;

use crate::error::{CliError, Result};
use library::Library;
use rmcp::ServiceExt;
use server::DocsServer;
use std::path::Path;
use std::sync::Arc;

pub use http::HttpOptions;

/// Serves the index in `dir` on stdin/stdout until the client closes the connection.
pub fn run(dir: &Path, model: Option<&Path>, max_request_bytes: usize) -> Result<()> {
    let library = Library::open(dir, model)?;
    // stdout carries the protocol: everything for people goes to stderr.
    eprintln!("midashi MCP server: {}", library.describe());
    let server = DocsServer::new(Arc::new(library));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Mcp(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async move {
        let (input, output, writer) = stdio::stdio(max_request_bytes);
        let service = server
            .serve((input, output))
            .await
            .map_err(|e| CliError::Mcp(format!("the client did not initialise: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| CliError::Mcp(e.to_string()))?;
        // The service's output is closed now; the writer flushes its last lines.
        let _ = writer.await;
        Ok(())
    })
}

/// Serves the index in `dir` over MCP's Streamable HTTP transport until the process is stopped.
pub fn run_http(dir: &Path, model: Option<&Path>, options: HttpOptions) -> Result<()> {
    let library = Library::open(dir, model)?;
    eprintln!("midashi MCP server: {}", library.describe());
    http::serve(Arc::new(library), options)
}

#[cfg(test)]
mod tests;
