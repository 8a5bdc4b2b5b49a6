//! Queries over a single-file index: everything in memory, scored at query time.
//!
//! Compiled with feature `single-file` (the keyword modules leave it out).
use super::dictionary::Dictionary;
use super::postings::ListReader;
use super::TermsData;
use crate::analyzer::Analyzer;
use crate::answer::hit::{document_range, document_view, make_hit, section_view};
use crate::answer::marks::Shown;
use crate::answer::{version_link, DocumentView, SearchHit, SearchOptions, SectionView};
use crate::error::{Error, Result};
use crate::format::frame::decode;
use crate::format::{FileKind, Manifest};
use crate::layout::{DocFacets, Inventory, Layout, Lookups, Ranking};
use crate::query::lexicon::Lexicon;
use crate::query::{plan, PlanOptions, QueryPlan, WeightedTerm};
use crate::rank::bm25::Bm25f;
use crate::rank::fields::{field_len, Field, NUM_FIELDS};
use crate::rank::grouping::{group_chains, section_facts};
use crate::rank::headings::{
    heading_shape, is_site_word, lift_exact_headings, Asked, HeadingMatch, Lifted, LIFT_ANY_LEN,
};
use crate::rank::pipeline::{filters_pass, SectionFacts, Seen};
use crate::rank::versions::{Collapsed, Families};
use crate::search::suggest::suggest_in;
use crate::section::records::{line_starts, lines_of, SectionsData};
use crate::section::SectionId;
use rustc_hash::FxHashMap as HashMap;

/// A single-file index, all in memory.
pub(crate) struct Whole {
    terms: TermsData,
    map: fst::Map<Vec<u8>>,
    sections: SectionsData,
    line_starts: Vec<Vec<u32>>,
    by_id: HashMap<u64, u32>,
    by_path: HashMap<String, u32>,
    families: Option<Families>,
    /// What grouping needs of each section (depth, descendants, bareness), made at load:
    /// the sharded layout's writer stores the same.
    facts: Vec<SectionFacts>,
}

impl Whole {
    /// Reads and checks the terms and sections files `manifest` names.
    pub(crate) fn open(manifest: &Manifest, terms: &[u8], sections: &[u8]) -> Result<Self> {
        let name = |kind: FileKind| {
            manifest
                .file(kind)
                .map_or_else(|| kind.to_string(), |f| f.name.clone())
        };
        let terms_name = name(FileKind::Terms);
        let terms: TermsData = decode(FileKind::Terms, &terms_name, terms)?;
        let sections: SectionsData =
            decode(FileKind::Sections, &name(FileKind::Sections), sections)?;
        let malformed = |detail: String| Error::Malformed {
            file: terms_name.clone(),
            detail,
        };
        let map = crate::query::lexicon::open_dictionary(&terms_name, terms.fst.clone())?;
        let n = sections.sections.len();
        if terms.n_sections as usize != n
            || n.checked_mul(NUM_FIELDS * 2) != Some(terms.field_lengths.len())
            || !(terms.section_weights.is_empty() || terms.section_weights.len() == n)
        {
            return Err(malformed(
                "terms and sections files do not belong together".into(),
            ));
        }
        let sections_malformed = |detail: String| Error::Malformed {
            file: name(FileKind::Sections),
            detail,
        };
        for (i, s) in sections.sections.iter().enumerate() {
            let parent_ok = s.parent.is_none_or(|p| (p as usize) < i);
            if s.doc as usize >= sections.docs.len() || !parent_ok {
                return Err(sections_malformed(format!(
                    "section {i} points outside the index"
                )));
            }
            if !(1 <= s.start_line
                && s.start_line <= s.own_end_line
                && s.own_end_line <= s.end_line)
            {
                return Err(sections_malformed(format!(
                    "section {i} has lines {}-{} (own text to {})",
                    s.start_line, s.end_line, s.own_end_line
                )));
            }
        }
        // `get_document` walks a document's sections by ordinal.
        for (i, d) in sections.docs.iter().enumerate() {
            let end = d.first_section.checked_add(d.section_count);
            if end.is_none_or(|end| end as usize > n) {
                return Err(sections_malformed(format!(
                    "document {i} claims sections the file does not have"
                )));
            }
        }
        let line_starts = sections
            .docs
            .iter()
            .map(|d| line_starts(&d.source))
            .collect();
        let by_id = sections
            .sections
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id, i as u32))
            .collect();
        let by_path = sections
            .docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.path.clone(), i as u32))
            .collect();
        let families = Families::new(&sections);
        let facts = section_facts(&sections, families.as_ref(), &terms.field_lengths);
        Ok(Whole {
            terms,
            map,
            sections,
            line_starts,
            by_id,
            by_path,
            families,
            facts,
        })
    }

    fn dictionary(&self) -> Dictionary<'_> {
        Dictionary {
            map: &self.map,
            data: &self.terms,
        }
    }

    fn field_len(&self, section: u32, field: Field) -> usize {
        field_len(&self.terms.field_lengths, section, field as usize).map_or(0, usize::from)
    }
}

impl Ranking for Whole {
    fn section_count(&self) -> usize {
        self.sections.sections.len()
    }

    fn scores(&self, t: &WeightedTerm, _: &mut Seen, emit: &mut dyn FnMut(u32, f32, SectionFacts)) {
        let scorer = Bm25f::new(
            self.terms.weights,
            self.terms.avg_len,
            &self.terms.field_lengths,
            &self.terms.section_weights,
        );
        let Some(list) = ListReader::open(&self.terms.postings, t.offset as usize) else {
            return;
        };
        let idf = list.idf;
        for p in list {
            let facts = self.facts.get(p.section as usize).copied();
            emit(
                p.section,
                scorer.score(idf, p.section, &p.tf),
                facts.unwrap_or_default(),
            );
        }
    }

    fn ready(&self) -> Result<()> {
        Ok(())
    }

    fn passes_filters(&self, s: u32, opts: &SearchOptions, _: &Seen) -> bool {
        let sec = &self.sections.sections[s as usize];
        let doc = &self.sections.docs[sec.doc as usize];
        let h = &doc.hints;
        filters_pass(
            opts,
            |p| doc.path.starts_with(p),
            || sec.depth,
            [&h.category, &h.lang, &h.version].map(|v| v.as_deref()),
            |t| h.tags.iter().any(|x| x == t),
        )
    }

    fn lift(
        &self,
        analyzer: &Analyzer,
        ranked: &mut [(u32, f32)],
        asked: &Asked<'_>,
        _: &Seen,
    ) -> Result<Lifted> {
        // Which heading terms are the site's words, each looked up once.
        let mut site: HashMap<String, bool> = HashMap::default();
        let lifted = lift_exact_headings(ranked, |i, s| {
            // The heading field's stored length is its term count under the same analyzer,
            // and the shape only leaves terms out of it: past the head of the list, where
            // only headings as long as the query (in shape) can change what is seen, shorter
            // ones are not analysed.
            let len = self.field_len(s, Field::Heading) as u32;
            if len < asked.shape.len && i >= LIFT_ANY_LEN {
                return None;
            }
            let sec = &self.sections.sections[s as usize];
            let (have, shape) = heading_shape(analyzer, &sec.heading, |t| {
                if let Some(&known) = site.get(t) {
                    return known;
                }
                let is = self.site_word(t);
                site.insert(t.to_string(), is);
                is
            });
            if shape.len != asked.shape.len && i >= LIFT_ANY_LEN {
                return None;
            }
            let found = asked
                .wanted
                .iter()
                .filter(|w| have.binary_search_by(|h| h.as_str().cmp(w)).is_ok())
                .count();
            let page = self.sections.docs.get(sec.doc as usize);
            let page_sections = page.map_or(1, |d| d.section_count);
            Some(HeadingMatch::new(
                asked,
                shape,
                found,
                (sec.depth, page_sections),
            ))
        });
        Ok(lifted)
    }

    fn site_word(&self, term: &str) -> bool {
        let dictionary = self.dictionary();
        dictionary.lookup(term).is_some_and(|offset| {
            is_site_word(dictionary.df(term, offset), self.sections.sections.len())
        })
    }

    #[cfg(feature = "semantic")]
    fn prepare_semantic(&self) -> Result<()> {
        Ok(())
    }

    fn group(&self, ranked: Vec<(u32, f32)>, _: &Seen, named: &[u32]) -> Vec<(u32, f32)> {
        group_chains(ranked, named, |s| {
            self.facts.get(s as usize).copied().unwrap_or_default()
        })
    }

    fn versioned(&self) -> bool {
        self.families.is_some()
    }

    fn family(&self, s: u32, _: &Seen) -> Option<u32> {
        self.families.as_ref()?.family(s)
    }

    fn version_of(&self, s: u32) -> Option<&str> {
        let sec = self.sections.sections.get(s as usize)?;
        self.sections.docs[sec.doc as usize]
            .hints
            .version
            .as_deref()
    }

    fn document_of(&self, s: u32) -> Option<u32> {
        self.sections.sections.get(s as usize).map(|sec| sec.doc)
    }

    fn document_count(&self) -> usize {
        self.sections.docs.len()
    }

    fn document_language(&self, d: u32) -> Option<&str> {
        self.sections.docs.get(d as usize)?.hints.lang.as_deref()
    }

    fn doc_facets(&self, s: u32) -> DocFacets<'_> {
        let Some(sec) = self.sections.sections.get(s as usize) else {
            return DocFacets::default();
        };
        let Some(h) = self.sections.docs.get(sec.doc as usize).map(|d| &d.hints) else {
            return DocFacets::default();
        };
        DocFacets {
            category: h.category.as_deref(),
            lang: h.lang.as_deref(),
            version: h.version.as_deref(),
            tags: h.tags.iter().map(String::as_str).collect(),
        }
    }

    fn own_text(&self, s: u32) -> Result<Option<String>> {
        let Some(sec) = self.sections.sections.get(s as usize) else {
            return Ok(None);
        };
        let (Some(doc), Some(starts)) = (
            self.sections.docs.get(sec.doc as usize),
            self.line_starts.get(sec.doc as usize),
        ) else {
            return Ok(None);
        };
        Ok(Some(
            lines_of(&doc.source, starts, sec.start_line, sec.own_end_line).to_string(),
        ))
    }

    fn hits(
        &self,
        analyzer: &Analyzer,
        page: &[&Collapsed],
        shown: &Shown<'_>,
    ) -> Result<Vec<SearchHit>> {
        Ok(page
            .iter()
            .map(|c| {
                let sec = &self.sections.sections[c.section as usize];
                let doc = &self.sections.docs[sec.doc as usize];
                let mut hit = make_hit(
                    analyzer,
                    sec,
                    doc,
                    &self.line_starts[sec.doc as usize],
                    c.score,
                    shown,
                );
                hit.other_versions = c
                    .others
                    .iter()
                    .map(|&o| {
                        let osec = &self.sections.sections[o as usize];
                        version_link(osec, &self.sections.docs[osec.doc as usize])
                    })
                    .collect();
                hit
            })
            .collect())
    }
}

impl Layout for Whole {
    fn plan(
        &self,
        analyzer: &Analyzer,
        query: &str,
        opts: PlanOptions,
        _: usize,
    ) -> Result<QueryPlan> {
        // Both layouts go through one (dynamic) instance of the planner and the ranking:
        // fewer monomorphised copies in the wasm module.
        let plan = plan(analyzer, &self.dictionary() as &dyn Lexicon, query, opts);
        plan.runs_here()?;
        Ok(plan)
    }

    fn suggest(&self, analyzer: &Analyzer, prefix: &str, limit: usize) -> Result<Vec<String>> {
        Ok(suggest_in(
            analyzer,
            &self.dictionary() as &dyn Lexicon,
            prefix,
            limit,
        ))
    }

    fn attach_file(&self, name: &str, _: &[u8]) -> Result<()> {
        Err(Error::InvalidOption {
            name: "file",
            detail: format!("{name}: a single-file index loads no further files"),
        })
    }

    fn loaded_files(&self) -> Vec<String> {
        Vec::new()
    }

    fn is_sharded(&self) -> bool {
        false
    }

    fn versions(&self) -> &[String] {
        self.families.as_ref().map_or(&[], |f| f.versions())
    }

    fn pending(&self) -> Result<()> {
        Ok(())
    }
}

impl Lookups for Whole {
    fn get_section(&self, analyzer: &Analyzer, id: SectionId) -> Option<SectionView> {
        let &s = self.by_id.get(&id.0)?;
        let sec = &self.sections.sections[s as usize];
        let doc = &self.sections.docs[sec.doc as usize];
        let starts = &self.line_starts[sec.doc as usize];
        Some(section_view(analyzer, sec, doc, starts))
    }

    fn get_document(&self, analyzer: &Analyzer, path: &str) -> Option<DocumentView> {
        let &d = self.by_path.get(path)?;
        let doc = &self.sections.docs[d as usize];
        let sections = self.sections.sections.get(document_range(doc, 0))?;
        Some(document_view(analyzer, doc, sections))
    }

    fn find_anchor(&self, path: &str, anchor: &str) -> Option<SectionId> {
        let &d = self.by_path.get(path)?;
        let doc = &self.sections.docs[d as usize];
        (doc.first_section..doc.first_section + doc.section_count)
            .map(|s| &self.sections.sections[s as usize])
            .find(|s| s.anchor.as_deref() == Some(anchor))
            .map(|s| SectionId(s.id))
    }
}

impl Inventory for Whole {
    fn documents(&self) -> Vec<(String, String)> {
        self.sections
            .docs
            .iter()
            .map(|d| (d.path.clone(), d.title.clone()))
            .collect()
    }

    fn section_place(&self, section: u32) -> Option<(String, Option<String>)> {
        let sec = self.sections.sections.get(section as usize)?;
        let doc = self.sections.docs.get(sec.doc as usize)?;
        Some((doc.path.clone(), sec.anchor.clone()))
    }

    fn loaded_parts(&self) -> (usize, usize) {
        (0, 0)
    }

    fn loaded_bytes(&self) -> [usize; 3] {
        [0; 3]
    }

    fn set_keep_loaded(&self, _: usize) {}
}
