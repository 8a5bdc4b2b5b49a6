//! Sections and documents of a sharded index by id or path: from the cards and bundles
//! loaded so far, or (with a file source) from any bundle.

use super::files::Bundle;
use super::read::Sharded;
use crate::analyzer::Analyzer;
use crate::answer::hit::{document_range, document_view, section_view};
use crate::answer::{DocumentView, SectionView};
use crate::layout::{Inventory, Lookups};
use crate::section::records::line_starts;
use crate::section::SectionId;

impl Lookups for Sharded {
    fn get_section(&self, analyzer: &Analyzer, id: SectionId) -> Option<SectionView> {
        let find = |b: &Bundle| {
            let sec = b.sections.iter().find(|s| s.id == id.0)?;
            let doc = &b.docs[(sec.doc - b.first_doc) as usize];
            Some(section_view(analyzer, sec, doc, &line_starts(&doc.source)))
        };
        self.begin();
        if let Some(v) = self.loaded_bundles().iter().find_map(|b| find(b)) {
            return Some(v);
        }
        // A search result's section is in a loaded card, which names its document: its
        // bundle holds the whole text (fetched, or noted as missing).
        let in_card = self.loaded_cards().iter().find_map(|c| {
            let at = c.sections.iter().position(|s| s.record.id == id.0)?;
            Some(c.first_section + at as u32)
        });
        if let Some(s) = in_card {
            return find(self.bundle_of_doc(self.doc_of(s))?.as_ref());
        }
        // Without a source, only loaded bundles can be searched: fetching every bundle to
        // find one id would fetch the whole site.
        if !self.has_source() {
            return None;
        }
        self.bundle_firsts()
            .into_iter()
            .find_map(|first| find(self.bundle_of_doc(first)?.as_ref()))
    }

    fn get_document(&self, analyzer: &Analyzer, path: &str) -> Option<DocumentView> {
        self.begin();
        let b = self.bundle_of_path(path)?;
        let doc = b.docs.iter().find(|d| d.path == path)?;
        let base = b.docs.first()?.first_section;
        let sections = b.sections.get(document_range(doc, base))?;
        Some(document_view(analyzer, doc, sections))
    }

    fn find_anchor(&self, path: &str, anchor: &str) -> Option<SectionId> {
        self.begin();
        let b = self.bundle_of_path(path)?;
        let d = b.docs.iter().position(|d| d.path == path)? as u32 + b.first_doc;
        b.sections
            .iter()
            .find(|s| s.doc == d && s.anchor.as_deref() == Some(anchor))
            .map(|s| SectionId(s.id))
    }
}

impl Inventory for Sharded {
    fn documents(&self) -> Vec<(String, String)> {
        self.bundle_firsts()
            .into_iter()
            .filter_map(|first| self.bundle_of_doc(first))
            .flat_map(|b| {
                b.docs
                    .iter()
                    .map(|d| (d.path.clone(), d.title.clone()))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    fn section_place(&self, section: u32) -> Option<(String, Option<String>)> {
        let b = self.bundle_of_doc(self.doc_of(section))?;
        let first = b.docs.first()?.first_section;
        let sec = b.sections.get(section.checked_sub(first)? as usize)?;
        let doc = b.docs.get(sec.doc.checked_sub(b.first_doc)? as usize)?;
        Some((doc.path.clone(), sec.anchor.clone()))
    }

    fn loaded_parts(&self) -> (usize, usize) {
        self.loaded()
    }

    fn loaded_bytes(&self) -> [usize; 3] {
        Sharded::loaded_bytes(self)
    }

    fn set_keep_loaded(&self, bytes: usize) {
        Sharded::set_keep_loaded(self, bytes)
    }
}
