//! build-index's integration tests, one binary: the command line run as a user runs it, the
//! MCP server, the model-backed builds and the quality sets. Each file below was its own
//! test binary; in one, the long semantic tests share the cores with the others.

mod commands;
mod common;
mod endpoint;
mod hardening;
mod html;
mod quality;
mod replaced;
mod semantic;
mod versions;
