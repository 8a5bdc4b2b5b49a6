//! Errors a user can act on.

use crate::format::FileKind;

/// Every failure of the engine. Messages say what went wrong and what to do about it.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum Error {
    /// The bytes do not start with Midashi's magic: not an index file at all.
    #[error("{file}: not a Midashi index file (bad magic); check the URL or path points at a folder written by build-index")]
    NotAnIndex {
        /// Which file (name or kind).
        file: String,
    },
    /// An index file of another kind than expected (e.g. a sections file where the entry was expected).
    #[error("{file}: expected a {expected} file but found a {found} file; the entry file and the folder do not match, rebuild the index")]
    WrongKind {
        /// Which file.
        file: String,
        /// The kind the caller asked for.
        expected: FileKind,
        /// The kind in the header.
        found: FileKind,
    },
    /// The index was written by a format this engine cannot read.
    #[error("{file}: index format {found_major}.{found_minor} is not supported by midashi {engine} (reads format {supported_major}.x); rebuild the index with build-index {engine}, or use the midashi version that wrote it")]
    UnsupportedVersion {
        /// Which file.
        file: String,
        /// Format major found in the file.
        found_major: u16,
        /// Format minor found in the file.
        found_minor: u16,
        /// Format major this engine reads.
        supported_major: u16,
        /// This engine's version.
        engine: String,
    },
    /// Fewer bytes than the header announces: an interrupted download or copy.
    #[error("{file}: truncated ({actual} of {expected} bytes); the download or copy was cut short, fetch it again or rebuild the index")]
    Truncated {
        /// Which file.
        file: String,
        /// Bytes the header announces (header included).
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// What the index names is not a regular file inside its folder (a FIFO, a device, a
    /// folder, a link that leaves the folder, a name with a path in it): never read, so a
    /// folder cannot make a reader hang or read elsewhere.
    #[error("{file}: not a regular file inside the index folder ({what}); an index folder holds only the files build-index wrote: copy or build it again")]
    NotAFile {
        /// Which file.
        file: String,
        /// What it is instead.
        what: String,
    },
    /// A file's size is not what the index records (or past any index file's), checked
    /// before it is read.
    #[error("{file}: {actual} bytes where the index expects {expected}; the folder holds a damaged or foreign file: copy or build the index again")]
    SizeMismatch {
        /// Which file.
        file: String,
        /// Its size.
        actual: u64,
        /// What the index expects ("1234 bytes", "at most 64 MiB").
        expected: String,
    },
    /// The payload does not match its checksum: corrupted in transit or on disk.
    #[error(
        "{file}: checksum mismatch, the file is corrupted; fetch it again or rebuild the index"
    )]
    Corrupted {
        /// Which file.
        file: String,
    },
    /// The checksum matched but the payload does not decode: a bug or a hand-made file.
    #[error("{file}: malformed index data ({detail}); rebuild the index")]
    Malformed {
        /// Which file.
        file: String,
        /// What the decoder said.
        detail: String,
    },
    /// The query is longer than the engine accepts.
    #[error("query too long ({len} bytes; at most {max}): shorten it")]
    QueryTooLong {
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// An option has a value the engine cannot use.
    #[error("invalid search option {name}: {detail}")]
    InvalidOption {
        /// The option.
        name: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// The synonyms file has a line that cannot be used.
    #[error("synonyms line {line}: {detail}")]
    Synonyms {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        detail: String,
    },
    /// A semantic query on an index built without vectors, or without a model loaded.
    #[error("semantic search unavailable: {0}")]
    SemanticUnavailable(String),
    /// A sharded index needs more of its files to answer: fetch them (from the index
    /// folder) and attach them, then ask again. The JS loader does this by itself.
    #[error("the sharded index needs {} more file(s) to answer: {}; fetch them from the index folder and attach them, then ask again", .0.len(), .0.join(", "))]
    NeedsFiles(Vec<String>),
    /// This build of the engine lacks what the query needs: the keyword modules make no
    /// typo corrections. Run the query in the full engine (`midashi_wasm_bg.wasm`);
    /// the JS loader moves there by itself.
    #[error("this engine module cannot make {0}; run the query in midashi's full engine (midashi_wasm_bg.wasm), as the JS loader does by itself")]
    NeedsFullEngine(&'static str),
}

impl Error {
    /// A short stable code for programs (the JS API's `error.code`).
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotAnIndex { .. } => "NOT_AN_INDEX",
            Error::WrongKind { .. } => "WRONG_FILE_KIND",
            Error::UnsupportedVersion { .. } => "FORMAT_VERSION",
            Error::Truncated { .. } => "TRUNCATED",
            Error::Corrupted { .. } => "CORRUPTED",
            Error::NotAFile { .. } => "NOT_A_FILE",
            Error::SizeMismatch { .. } => "SIZE_MISMATCH",
            Error::Malformed { .. } => "MALFORMED",
            Error::QueryTooLong { .. } => "QUERY_TOO_LONG",
            Error::InvalidOption { .. } => "INVALID_OPTION",
            Error::Synonyms { .. } => "SYNONYMS",
            Error::SemanticUnavailable(_) => "SEMANTIC_UNAVAILABLE",
            Error::NeedsFiles(_) => "NEEDS_FILES",
            Error::NeedsFullEngine(_) => "NEEDS_FULL_ENGINE",
        }
    }
}

/// What a build without some of midashi-core's features answers when a query or a file
/// needs them: one error per missing feature, whichever place notices it first.
impl Error {
    /// A word to correct, without feature `typos`.
    #[cfg(not(feature = "typos"))]
    pub(crate) fn lacks_typos() -> Self {
        Error::NeedsFullEngine("typo corrections")
    }

    /// A preview longer than a card's, without feature `bundles`.
    #[cfg(not(feature = "bundles"))]
    pub(crate) fn lacks_bundles() -> Self {
        Error::NeedsFullEngine("previews longer than a card's lines")
    }

    /// Vectors, a static table or the tree, without feature `semantic`.
    #[cfg(not(feature = "semantic"))]
    pub(crate) fn lacks_semantic() -> Self {
        Error::NeedsFullEngine("the semantic leg")
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
