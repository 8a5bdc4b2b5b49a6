//! What can go wrong on the command line, with messages that say what to do.

use std::path::PathBuf;

/// A failure of a build-index command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The engine refused (corrupted index, bad query, …).
    #[error(transparent)]
    Engine(#[from] midashi_core::Error),
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The index cannot be written to the output folder.
    #[error("{}: cannot write the index there ({source}); choose another --out folder, or make this one writable", path.display())]
    Output {
        /// The folder or file that could not be written.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Another build is writing into the same output folder.
    #[error("{}: another build-index is writing into this folder; wait for it to finish, or build into another --out folder", .0.display())]
    OutputBusy(PathBuf),
    /// The input is neither a folder of Markdown nor a JSONL file.
    #[error("{}: not a folder of Markdown or a .jsonl file of records", .0.display())]
    BadInput(PathBuf),
    /// A JSONL line is not a record.
    #[error("{}:{line}: {detail} (each line must be a JSON object with \"_id\", \"title\" and \"text\")", path.display())]
    BadRecord {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        detail: String,
    },
    /// Nothing to index.
    #[error("{}: no Markdown files found (check --include/--exclude)", .0.display())]
    NothingToIndex(PathBuf),
    /// Markdown files were found but none could be indexed.
    #[error("{}: none of the Markdown files could be indexed; the previous index (if any) is left as it was:{reasons}", dir.display())]
    NothingReadable {
        /// The docs folder.
        dir: PathBuf,
        /// The first few files' warnings, one per line.
        reasons: String,
    },
    /// The folder has no index in it.
    #[error("{}: no Midashi index here (expected midashi-entry.bin); build one with `build-index <docs> --out {}`", .0.display(), .0.display())]
    NoIndex(PathBuf),
    /// An id or path that the index does not have.
    #[error("{0}: no such section id or document path in this index (ids are the 16-hex-digit `id:` lines of `build-index search`)")]
    NotFound(String),
    /// The embedding model is missing, broken, or not the one the index was built with.
    #[error("{0}")]
    Model(String),
    /// The MCP server could not start or lost its connection.
    #[error("MCP server: {0}")]
    Mcp(String),
    /// Invalid command-line usage not caught by the parser.
    #[error("{0}")]
    Usage(String),
}

impl CliError {
    /// Wraps an I/O error with its path.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> CliError {
        let path = path.into();
        move |source| CliError::Io { path, source }
    }
}

/// Result with [`CliError`].
pub type Result<T, E = CliError> = std::result::Result<T, E>;
