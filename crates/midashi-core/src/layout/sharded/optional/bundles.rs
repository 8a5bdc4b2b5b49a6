//! Bundles: a few documents' sources, sections and version links.

use crate::analyzer::Analyzer;
use crate::answer::hit::HitDoc;
use crate::answer::marks::Shown;
use crate::answer::SearchHit;
use crate::error::{Error, Result};
use crate::format::frame::decode;
use crate::format::kind::{content_hash, FileKind};
use crate::layout::sharded::files::Bundle;
use crate::layout::sharded::fits::{lines_fit, links_fit};
use crate::layout::sharded::names::NAME_HASH_MASK;
use crate::layout::sharded::rank::{hits_from, Located};
use crate::layout::sharded::read::{LockOk, Sharded};
use crate::rank::versions::Collapsed;
use crate::section::records::{line_starts, lines_of};
use std::sync::Arc;

impl Sharded {
    /// Checks bundle `i` against the directory and the paths file, and keeps it.
    pub(in crate::layout::sharded) fn attach_bundle(
        &self,
        i: u32,
        name: &str,
        bytes: &[u8],
    ) -> Result<()> {
        let mut data: Bundle = decode(FileKind::Bundle, name, bytes)?;
        let (expected, named, bundles) = self
            .paths
            .lock_ok()
            .as_ref()
            .and_then(|p| Some((p.bundles.get(i as usize)?, p.bundles.len())))
            .map_or((u32::MAX, 0, 0), |(b, n)| (b.first_doc, b.hash, n));
        // Its name is its content's hash, or a few steps above it where two bundles of the
        // build shared one (the writer's `ShortNames`; at most one step per bundle).
        let steps = named.wrapping_sub(content_hash(bytes) & NAME_HASH_MASK) & NAME_HASH_MASK;
        if steps >= bundles as u64 {
            return Err(Error::Malformed {
                file: name.to_string(),
                detail: "its content does not match the hash in its name: a bundle of another \
                         build was put in its place; fetch or copy the index folder again, or \
                         rebuild it"
                    .into(),
            });
        }
        let consistent = data.first_doc == expected
            && links_fit(&data.link_docs, &data.links, data.sections.len())
            && data.docs.iter().enumerate().all(|(j, d)| {
                let at = expected as usize + j;
                self.first_section.get(at) == Some(&d.first_section)
                    && self.dir.docs.get(at).map(|f| f.sections) == Some(d.section_count)
            })
            && data.sections.iter().all(|s| {
                (s.doc as usize).wrapping_sub(expected as usize) < data.docs.len() && lines_fit(s)
            });
        if !consistent {
            return Err(Error::Malformed {
                file: name.to_string(),
                detail: "the bundle does not match the directory".into(),
            });
        }
        data.restore_ids();
        self.bundles
            .lock_ok()
            .insert(i, Arc::new(data), bytes.len());
        Ok(())
    }

    /// Section `s`'s own text from its document's bundle (`None`: the bundle is missing,
    /// and noted).
    pub(in crate::layout::sharded) fn own_text_from_bundle(
        &self,
        s: u32,
    ) -> Result<Option<String>> {
        let Some(b) = self.bundle_of_doc(self.doc_of(s)) else {
            return Ok(None);
        };
        let located = (|| {
            let first = b.docs.first()?.first_section;
            let sec = b.sections.get(s.checked_sub(first)? as usize)?;
            let doc = b.docs.get(sec.doc.wrapping_sub(b.first_doc) as usize)?;
            let starts = line_starts(&doc.source);
            Some(lines_of(&doc.source, &starts, sec.start_line, sec.own_end_line).to_string())
        })();
        Ok(located)
    }

    /// The page's hits from its sections' bundles (previews longer than a card's lines).
    pub(in crate::layout::sharded) fn hits_from_bundles(
        &self,
        analyzer: &Analyzer,
        page: &[&Collapsed],
        shown: &Shown<'_>,
    ) -> Result<Vec<SearchHit>> {
        let bundles: Vec<Option<Arc<Bundle>>> = page
            .iter()
            .map(|c| self.bundle_of_doc(self.doc_of(c.section)))
            .collect();
        self.need()?;
        hits_from(analyzer, page, bundles, "bundle", shown, |b, s| {
            let first = b.docs.first()?.first_section;
            let at = s.checked_sub(first)? as usize;
            let sec = b.sections.get(at)?;
            let doc = b.docs.get(sec.doc.wrapping_sub(b.first_doc) as usize)?;
            Some(Located {
                sec,
                doc: HitDoc {
                    lang: self.doc_lang(s),
                    ..HitDoc::from(doc)
                },
                text: lines_of(
                    &doc.source,
                    &line_starts(&doc.source),
                    sec.start_line,
                    sec.end_line,
                )
                .into(),
                links: b.links.get(at)?,
                link_docs: &b.link_docs,
            })
        })
    }
}
