//! The entry file: the one small, non-hashed file a client fetches first. It carries the
//! format version and names every other file (content-hashed, immutable), with sizes and
//! checksums so a client can tell what to fetch for keyword search and what can wait.

use super::frame::{decode, encode};
use super::kind::FileKind;
use super::reader::{Decode, ReadResult, Reader};
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
    /// The languages whose analyzer rules made the index's terms ([`crate::analyzer::Language`]
    /// codes), the site's first; empty means English (format < 1.11, and indexes with no
    /// language but English). Queries are read by the same rules (format ≥ 1.11).
    pub languages: Vec<String>,
}

/// The manifest as format 1.0 and 1.1 wrote it (before [`ModelInfo::languages`]): read so
/// that an index built by an older midashi 0.1 keeps working.
struct ManifestV1(Manifest);

impl Decode for ManifestV1 {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        manifest(r, false).map(ManifestV1)
    }
}

impl Manifest {
    /// Reads an entry file (any minor version of this major).
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let manifest: Manifest = if super::minor_version(bytes).is_some_and(|minor| minor < 2) {
            let ManifestV1(old) = decode(FileKind::Entry, ENTRY_FILE_NAME, bytes)?;
            old
        } else {
            decode(FileKind::Entry, ENTRY_FILE_NAME, bytes)?
        };
        manifest.check_names()?;
        Ok(manifest)
    }

    /// Every file the entry names is a file of the index folder itself, named as its kind's
    /// files are (`<kind>.<16 hex>.<extension>`): an index folder is data from elsewhere (a
    /// CDN, a download), and a crafted entry naming `../../etc/passwd` or `/dev/zero` must
    /// not make a reader open anything outside the folder.
    fn check_names(&self) -> Result<()> {
        match self
            .files
            .iter()
            .find(|f| f.kind == FileKind::Entry || f.kind.hash_of_name(&f.name).is_none())
        {
            None => Ok(()),
            // Display, not Debug: Debug's string escaping would add its tables to every
            // wasm module.
            Some(f) => Err(crate::error::Error::Malformed {
                file: ENTRY_FILE_NAME.into(),
                detail: format!(
                    "it names `{}` as its {} file, not a file name build-index writes; rebuild the index",
                    f.name, f.kind
                ),
            }),
        }
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

// Read field by field (see `super::reader`), each in declaration order.

impl Decode for FileRef {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(FileRef {
            kind: Decode::decode(r)?,
            name: Decode::decode(r)?,
            bytes: r.u64()?,
            needed_for_keyword: r.bool()?,
        })
    }
}

impl Decode for Stats {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(Stats {
            documents: r.u64()?,
            sections: r.u64()?,
            terms: r.u64()?,
            vectors: r.u64()?,
        })
    }
}

impl Decode for Manifest {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        manifest(r, true)
    }
}

/// A manifest; formats 1.0 and 1.1 wrote no [`ModelInfo::languages`] (`languages` false).
pub(super) fn manifest(r: &mut Reader<'_>, languages: bool) -> ReadResult<Manifest> {
    Ok(Manifest {
        generator: Decode::decode(r)?,
        files: Decode::decode(r)?,
        stats: Decode::decode(r)?,
        slug: Decode::decode(r)?,
        base_url: Decode::decode(r)?,
        model: r.option(|r| {
            Ok(ModelInfo {
                name: Decode::decode(r)?,
                dims: r.u32()?,
                sha256: Decode::decode(r)?,
                languages: if languages {
                    Decode::decode(r)?
                } else {
                    Vec::new()
                },
            })
        })?,
        // Format 1.11 appended the analyzer languages.
        languages: if r.remaining() > 0 {
            Decode::decode(r)?
        } else {
            Vec::new()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry that names a file outside its folder, or under another name than its kind's,
    /// is refused before anyone reads that file (#27 item 10).
    #[test]
    fn entries_naming_files_outside_the_folder_are_refused() {
        let entry = |name: &str, kind: FileKind| {
            Manifest {
                generator: "0.1.0".into(),
                files: vec![FileRef {
                    kind,
                    name: name.into(),
                    bytes: 42,
                    needed_for_keyword: true,
                }],
                stats: Stats::default(),
                slug: "github".into(),
                base_url: "/".into(),
                model: None,
                languages: Vec::new(),
            }
            .encode()
            .unwrap()
        };
        assert!(Manifest::decode(&entry("terms.0123456789abcdef.bin", FileKind::Terms)).is_ok());
        for (name, kind) in [
            ("../../../../../../dev/zero", FileKind::Terms),
            ("/etc/passwd", FileKind::Sections),
            ("terms.0123456789abcdef.bin/../../x", FileKind::Terms),
            ("sections.0123456789abcdef.bin", FileKind::Terms),
            ("terms.0123456789abcdeg.bin", FileKind::Terms),
            ("../vectors.0123456789abcdef.bin", FileKind::Vectors),
            ("midashi-entry.bin", FileKind::Entry),
        ] {
            let err = Manifest::decode(&entry(name, kind)).unwrap_err();
            assert_eq!(err.code(), "MALFORMED", "{name}: {err}");
            assert!(err.to_string().contains("rebuild"), "{err}");
        }
    }

    /// An entry file of format 1.1 (its model without `languages`) reads as today's manifest
    /// with no languages; today's reads back as written.
    #[test]
    fn entries_of_format_1_1_and_today_read() {
        let files = vec![FileRef {
            kind: FileKind::Terms,
            name: "terms.0123456789abcdef.bin".into(),
            bytes: 42,
            needed_for_keyword: true,
        }];
        let stats = Stats {
            documents: 1,
            sections: 2,
            terms: 3,
            vectors: 2,
        };
        let old_model = Some(("m".to_string(), 8u32, "0".repeat(64)));
        let old = (
            "midashi 0.1.0".to_string(),
            files.clone(),
            stats.clone(),
            "github".to_string(),
            "/".to_string(),
            old_model,
        );
        let payload = postcard::to_allocvec(&old).unwrap();
        let bytes = super::super::frame_as_minor(FileKind::Entry, &payload, 1);
        let read = Manifest::decode(&bytes).unwrap();
        let model = read.model.clone().unwrap();
        assert_eq!(
            (model.name.as_str(), model.dims, model.languages.len()),
            ("m", 8, 0)
        );
        assert_eq!(
            (read.files, read.stats, read.slug),
            (files.clone(), stats.clone(), "github".into())
        );

        let today = Manifest {
            generator: "midashi 0.1.0".into(),
            files,
            stats,
            slug: "github".into(),
            base_url: "/".into(),
            model: Some(ModelInfo {
                name: "m".into(),
                dims: 8,
                sha256: "0".repeat(64),
                languages: vec!["en".into(), "ja".into()],
            }),
            languages: vec!["fr".into(), "en".into()],
        };
        assert_eq!(Manifest::decode(&today.encode().unwrap()).unwrap(), today);
    }
}
