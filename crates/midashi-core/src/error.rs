//! Errors a user can act on.

/// Every failure of the engine. Messages say what went wrong and what to do about it.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum Error {
    /// The placeholder until the index format lands.
    #[error("{0}")]
    Other(String),
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
