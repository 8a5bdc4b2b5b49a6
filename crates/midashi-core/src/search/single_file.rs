//! Opening a single-file index (feature `single-file`; the keyword modules leave it out).

use super::{SearchIndex, Store};
use crate::error::Result;
use crate::format::Manifest;
use crate::layout::single::search::Whole;

impl SearchIndex {
    /// Loads an index from its entry file and the two files keyword search needs.
    pub fn open(entry: &[u8], terms: &[u8], sections: &[u8]) -> Result<Self> {
        let manifest = Manifest::decode(entry)?;
        Self::from_manifest(manifest, terms, sections)
    }

    /// Loads an index from an already decoded manifest and its keyword files.
    pub fn from_manifest(manifest: Manifest, terms: &[u8], sections: &[u8]) -> Result<Self> {
        let whole = Whole::open(&manifest, terms, sections)?;
        Ok(Self::with_store(manifest, Store::Whole(Box::new(whole))))
    }
}
