//! The entry file: the one small, non-hashed file a client fetches first. It carries the
//! format version and names every other file (content-hashed, immutable), with sizes and
//! checksums so a client can tell what to fetch for keyword search and what can wait.

use super::decode::{Decode, ReadResult, Reader};
use super::{decode, encode, FileKind};
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// The entry file's fixed name inside an index folder.
pub const ENTRY_FILE_NAME: &str = "midashi-entry.bin";

/// One file of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRef {
    /// What it holds.
    pub kind: FileKind,
    /// File name inside the index folder (`terms.0123456789abcdef.bin`).
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Whether keyword search needs it (fetched at load); the rest load lazily.
    pub needed_for_keyword: bool,
}

/// Summary figures of the index, for reports and UIs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Source documents.
    pub documents: u64,
    /// Sections, all depths.
    pub sections: u64,
    /// Distinct terms.
    pub terms: u64,
    /// Sections that have vectors.
    pub vectors: u64,
}

/// The embedding model an index's vectors were made with; queries must use the same one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Model name (e.g. `all-MiniLM-L6-v2`).
    pub name: String,
    /// Vector dimensions.
    pub dims: u32,
    /// sha256 of the model file, to refuse a different model at query time.
    pub sha256: String,
    /// Languages the model covers (ISO 639-1), empty when unknown: an automatic query in a
    /// script the model does not cover runs keyword only (format ≥ 1.2).
    pub languages: Vec<String>,
}

/// The contents of the entry file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The midashi version that wrote the index.
    pub generator: String,
    /// Every other file.
    pub files: Vec<FileRef>,
    /// Summary figures.
    pub stats: Stats,
    /// Slug style the anchors were made with (`github`, `vitepress`, `mdbook`, or `records`).
    pub slug: String,
    /// Base URL prefixed to page URLs.
    pub base_url: String,
    /// The model of the vectors, when the index has any.
    pub model: Option<ModelInfo>,
}

/// The manifest as format 1.0 and 1.1 wrote it (before [`ModelInfo::languages`]): read so
/// that an index built by an older midashi 0.1 keeps working.
struct ManifestV1 {
    generator: String,
    files: Vec<FileRef>,
    stats: Stats,
    slug: String,
    base_url: String,
    model: Option<ModelInfoV1>,
}

struct ModelInfoV1 {
    name: String,
    dims: u32,
    sha256: String,
}

impl Decode for ManifestV1 {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(ManifestV1 {
            generator: Decode::decode(r)?,
            files: Decode::decode(r)?,
            stats: Decode::decode(r)?,
            slug: Decode::decode(r)?,
            base_url: Decode::decode(r)?,
            model: r.option(|r| {
                Ok(ModelInfoV1 {
                    name: Decode::decode(r)?,
                    dims: r.u32()?,
                    sha256: Decode::decode(r)?,
                })
            })?,
        })
    }
}

impl Manifest {
    /// Reads an entry file (any minor version of this major).
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        if super::minor_version(bytes).is_some_and(|minor| minor < 2) {
            let old: ManifestV1 = decode(FileKind::Entry, ENTRY_FILE_NAME, bytes)?;
            return Ok(Manifest {
                generator: old.generator,
                files: old.files,
                stats: old.stats,
                slug: old.slug,
                base_url: old.base_url,
                model: old.model.map(|m| ModelInfo {
                    name: m.name,
                    dims: m.dims,
                    sha256: m.sha256,
                    languages: Vec::new(),
                }),
            });
        }
        decode(FileKind::Entry, ENTRY_FILE_NAME, bytes)
    }

    /// Writes an entry file.
    pub fn encode(&self) -> Result<Vec<u8>> {
        encode(FileKind::Entry, self)
    }

    /// The file of a kind, if the index has one.
    pub fn file(&self, kind: FileKind) -> Option<&FileRef> {
        self.files.iter().find(|f| f.kind == kind)
    }
}
