//! One module per subcommand.

pub mod build;
pub mod eval;
pub mod get;
pub mod search;
pub mod vectors;

use crate::error::{CliError, Result};
use midashi_core::format::entry::ENTRY_FILE_NAME;
use midashi_core::format::{FileKind, Manifest};
use midashi_core::shards::FileSource;
use midashi_core::SearchIndex;
use std::fs;
use std::path::Path;

/// Opens the index in `dir` with the files keyword search needs (and vectors if present
/// and `with_vectors`).
pub fn open_index(dir: &Path, with_vectors: bool) -> Result<SearchIndex> {
    let entry_path = dir.join(ENTRY_FILE_NAME);
    if !entry_path.exists() {
        return Err(CliError::NoIndex(dir.to_path_buf()));
    }
    let entry = fs::read(&entry_path).map_err(CliError::io(&entry_path))?;
    let manifest = Manifest::decode(&entry)?;
    let read = |kind: FileKind| -> Result<Vec<u8>> {
        let f = manifest.file(kind).ok_or_else(|| {
            CliError::Engine(midashi_core::Error::Malformed {
                file: ENTRY_FILE_NAME.into(),
                detail: format!("names no {kind} file"),
            })
        })?;
        let p = dir.join(&f.name);
        fs::read(&p).map_err(CliError::io(p))
    };
    let vectors = match manifest.file(FileKind::Vectors) {
        Some(_) if with_vectors => Some(read(FileKind::Vectors)?),
        _ => None,
    };
    let ann = match manifest.file(FileKind::Ann) {
        Some(_) if with_vectors => Some(read(FileKind::Ann)?),
        _ => None,
    };
    let mut index = if manifest.file(FileKind::Directory).is_some() {
        // Sharded: the directory now, the rest read from the folder as queries need it.
        let directory = read(FileKind::Directory)?;
        let folder = dir.to_path_buf();
        let source: FileSource = Box::new(move |name: &str| {
            fs::read(folder.join(name)).map_err(|e| midashi_core::Error::Malformed {
                file: name.to_string(),
                detail: format!("cannot read it from {}: {e}", folder.display()),
            })
        });
        SearchIndex::from_manifest_sharded(manifest, &directory, Some(source))?
    } else {
        let terms = read(FileKind::Terms)?;
        let sections = read(FileKind::Sections)?;
        SearchIndex::from_manifest(manifest, &terms, &sections)?
    };
    if let Some(v) = vectors {
        index.attach_vectors(&v)?;
    }
    if let Some(a) = ann {
        index.attach_ann(&a)?;
    }
    Ok(index)
}
