//! Queries over a sharded index: postings carry their scores and their sections' facts, so
//! ranking reads no per-section table; a result's card (or bundle) makes its hit.
use super::files::CardDoc;
use super::links::{version_link, Link, LinkDoc};
use super::read::Sharded;
use crate::analyzer::{Analyzer, Language};
use crate::answer::hit::{make_hit_from, HitDoc};
use crate::answer::marks::Shown;
use crate::answer::{SearchHit, SearchOptions};
use crate::error::{Error, Result};
use crate::layout::{DocFacets, Layout, Ranking};
use crate::query::lexicon::Lexicon;
use crate::query::{plan, PlanOptions, QueryPlan, WeightedTerm};
use crate::rank::grouping::group_chains;
use crate::rank::headings::{
    is_site_word, lift_exact_headings, Asked, HeadingMatch, Lifted, Shape, LIFT_ANY_LEN,
};
use crate::rank::pipeline::{filters_pass, SectionFacts, Seen};
use crate::rank::topk::{Below, Split};
use crate::rank::versions::Collapsed;
use crate::section::records::SectionRecord;
use std::borrow::Cow;

use crate::search::suggest::suggest_in;
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

impl<'a> From<&'a CardDoc> for HitDoc<'a> {
    fn from(d: &'a CardDoc) -> Self {
        HitDoc {
            path: &d.path,
            url: &d.url,
            title: &d.title,
            description: d.description.as_deref(),
            version: d.version.as_deref(),
            // Cards do not repeat it: the directory's facets have it (`Sharded::doc_lang`).
            lang: Language::English,
        }
    }
}
impl Sharded {
    /// The rules a section's page was indexed by, from the directory's facets.
    pub(super) fn doc_lang(&self, s: u32) -> Language {
        Language::of_tag(self.doc_facets(s).lang)
    }

    /// A section's facts: from the keyword leg's postings, else from the tree.
    #[inline(always)]
    fn facts_of(&self, s: u32, facts: &Seen) -> SectionFacts {
        if let Some(f) = facts.get(s) {
            return f;
        }
        self.tree()
            .and_then(|t| t.facts.get(s as usize).copied())
            .unwrap_or_default()
    }

    /// [`Ranking::scores`] for a bounded query: the postings `split` leaves out are noted in
    /// `below` and neither kept in `facts` nor handed to `emit`. A common word's left-out
    /// postings are most of a large site's query (57 % of the mix's), and keeping their
    /// facts and handing them on cost a sixth of its instructions; the steps after the walk
    /// read the facts of kept sections only, and `below` keeps what its checks need. An
    /// inherent method, not one of [`Ranking`]'s: a module built without the bound links
    /// none of it.
    pub(crate) fn scores_split(
        &self,
        t: &WeightedTerm,
        facts: &mut Seen,
        split: Split<'_>,
        emit: &mut dyn FnMut(u32, f32, SectionFacts),
        below: &mut Below,
    ) {
        let n = self.section_count();
        self.visit_postings(t.offset, |section, score, f| {
            if score == 0.0 {
                return;
            }
            if split.leaves_out(section, t.weight * score) {
                below.note(section, f);
            } else {
                facts.insert(n, section, f);
                emit(section, score, f);
            }
        });
    }
}

impl Ranking for Sharded {
    fn section_count(&self) -> usize {
        self.dir.n_sections as usize
    }

    fn scores(
        &self,
        t: &WeightedTerm,
        facts: &mut Seen,
        emit: &mut dyn FnMut(u32, f32, SectionFacts),
    ) {
        let n = self.section_count();
        self.visit_postings(t.offset, |section, score, f| {
            // Zero-score postings only carry a heading flag for the lift.
            if score != 0.0 {
                facts.insert(n, section, f);
                emit(section, score, f);
            }
        });
    }

    fn document_start(&self, s: u32) -> Option<u32> {
        self.first_section.get(self.doc_of(s) as usize).copied()
    }

    fn ready(&self) -> Result<()> {
        self.need()
    }

    fn passes_filters(&self, s: u32, opts: &SearchOptions, facts: &Seen) -> bool {
        let doc = self.doc_of(s);
        let Some(f) = self.dir.docs.get(doc as usize) else {
            return false;
        };
        let string = |i: Option<u32>| self.dir.strings.get(i? as usize).map(String::as_str);
        filters_pass(
            opts,
            // Paths and depths of sections outside the postings are fetched only for a filter
            // that reads them.
            |p| {
                self.paths()
                    .is_some_and(|t| t.paths.get(doc as usize).is_some_and(|d| d.starts_with(p)))
            },
            || self.facts_of(s, facts).depth,
            [f.category, f.lang, f.version].map(string),
            |t| f.tags.iter().any(|&i| string(Some(i)) == Some(t)),
        )
    }

    fn lift(
        &self,
        _: &Analyzer,
        ranked: &mut [(u32, f32)],
        asked: &Asked<'_>,
        facts: &Seen,
    ) -> Result<Lifted> {
        // Per section: how many of the query's words its heading has, and its heading's
        // shape (the postings of heading terms say: the writer's `Shape::of`).
        let mut flags: HashMap<u32, (usize, Shape)> = HashMap::default();
        for w in asked.wanted {
            let Some(reference) = Lexicon::lookup(self, w) else {
                continue;
            };
            let Some(heads) = self.heading_postings(reference) else {
                continue;
            };
            for &(section, len, count) in heads.iter() {
                let e = flags.entry(section).or_insert((0, Shape { len, count }));
                e.0 += 1;
            }
        }
        self.need()?;
        let lifted = lift_exact_headings(ranked, |i, s| {
            let &(have, shape) = flags.get(&s)?;
            if shape.len != asked.shape.len && i >= LIFT_ANY_LEN {
                return None;
            }
            Some(HeadingMatch::new(
                asked,
                shape,
                have,
                (self.facts_of(s, facts).depth, self.page_sections(s)),
            ))
        });
        Ok(lifted)
    }

    fn site_word(&self, term: &str) -> bool {
        Lexicon::lookup(self, term)
            .is_some_and(|r| is_site_word(Lexicon::df(self, term, r), self.section_count()))
    }

    #[cfg(feature = "semantic")]
    fn prepare_semantic(&self) -> Result<()> {
        self.tree();
        self.need()
    }

    fn group(&self, ranked: Vec<(u32, f32)>, facts: &Seen, named: &[u32]) -> Vec<(u32, f32)> {
        group_chains(ranked, named, |s| self.facts_of(s, facts))
    }

    fn versioned(&self) -> bool {
        self.dir.versioned
    }

    fn family(&self, s: u32, facts: &Seen) -> Option<u32> {
        self.facts_of(s, facts).family
    }

    fn version_of(&self, s: u32) -> Option<&str> {
        let f = self.dir.docs.get(self.doc_of(s) as usize)?;
        self.dir
            .strings
            .get(f.version? as usize)
            .map(String::as_str)
    }

    fn hits(
        &self,
        analyzer: &Analyzer,
        page: &[&Collapsed],
        shown: &Shown<'_>,
    ) -> Result<Vec<SearchHit>> {
        // A preview of up to `card_lines` lines comes from the section's card (~0.5 KB gzip
        // for four sections); a longer one needs the section's whole text, from its bundle.
        if shown.preview_lines <= self.card_lines() as usize {
            return self.hits_from_cards(analyzer, page, shown);
        }
        self.hits_from_bundles(analyzer, page, shown)
    }

    fn document_of(&self, s: u32) -> Option<u32> {
        (s < self.dir.n_sections).then(|| self.doc_of(s))
    }

    fn document_count(&self) -> usize {
        self.dir.docs.len()
    }

    fn document_language(&self, d: u32) -> Option<&str> {
        let lang = self.dir.docs.get(d as usize)?.lang?;
        self.dir.strings.get(lang as usize).map(String::as_str)
    }

    fn doc_facets(&self, s: u32) -> DocFacets<'_> {
        let Some(f) = self.dir.docs.get(self.doc_of(s) as usize) else {
            return DocFacets::default();
        };
        let string = |i: Option<u32>| self.dir.strings.get(i? as usize).map(String::as_str);
        DocFacets {
            category: string(f.category),
            lang: string(f.lang),
            version: string(f.version),
            tags: f.tags.iter().filter_map(|&i| string(Some(i))).collect(),
        }
    }

    fn own_text(&self, s: u32) -> Result<Option<String>> {
        self.own_text_from_bundle(s)
    }
}

/// A section found in the file that holds it (a card or a bundle), with what its hit shows.
pub(super) struct Located<'a> {
    pub(super) sec: &'a SectionRecord,
    pub(super) doc: HitDoc<'a>,
    /// Its lines from the heading on (at least as many as the preview shows).
    pub(super) text: Cow<'a, str>,
    pub(super) links: &'a [Link],
    pub(super) link_docs: &'a [LinkDoc],
}

/// A page of hits from the files holding its sections, in page order (`files[i]` holds
/// `page[i]`; `None`: missing or damaged). `locate` finds a section in its file.
pub(super) fn hits_from<T>(
    analyzer: &Analyzer,
    page: &[&Collapsed],
    files: Vec<Option<Arc<T>>>,
    kind: &str,
    shown: &Shown<'_>,
    locate: impl for<'a> Fn(&'a T, u32) -> Option<Located<'a>>,
) -> Result<Vec<SearchHit>> {
    let damaged = || Error::Malformed {
        file: kind.into(),
        detail: format!("a result's section is not in its {kind}"),
    };
    page.iter()
        .zip(files)
        .map(|(c, file)| {
            let file = file.ok_or_else(damaged)?;
            let at = locate(&file, c.section).ok_or_else(damaged)?;
            let mut hit = make_hit_from(analyzer, at.sec, at.doc, &at.text, c.score, shown);
            hit.other_versions = c
                .others
                .iter()
                .filter_map(|o| {
                    let link = at.links.iter().find(|l| l.section == *o)?;
                    version_link(at.link_docs, link, at.sec.anchor.as_deref())
                })
                .collect();
            Ok(hit)
        })
        .collect()
}
impl Sharded {
    /// [`Ranking::hits`] from the results' cards.
    fn hits_from_cards(
        &self,
        analyzer: &Analyzer,
        page: &[&Collapsed],
        shown: &Shown<'_>,
    ) -> Result<Vec<SearchHit>> {
        let cards: Vec<_> = page
            .iter()
            .map(|c| self.card_of_section(c.section))
            .collect();
        self.need()?;
        hits_from(analyzer, page, cards, "card", shown, |card, s| {
            let at = s.checked_sub(card.first_section)? as usize;
            let sec = card.sections.get(at)?;
            Some(Located {
                sec: &sec.record,
                doc: HitDoc {
                    lang: self.doc_lang(s),
                    ..HitDoc::from(card.doc_of(at)?)
                },
                text: card.subtree_text(at)?,
                links: card.links.get(at)?,
                link_docs: &card.link_docs,
            })
        })
    }
}

impl Layout for Sharded {
    fn begin(&self) {
        Sharded::begin(self)
    }

    fn plan(
        &self,
        analyzer: &Analyzer,
        query: &str,
        opts: PlanOptions,
        preview_lines: usize,
    ) -> Result<QueryPlan> {
        if preview_lines > self.card_lines() as usize {
            // Previews longer than a card's come from bundles, which the paths file names:
            // asked for with the query's shards, it costs no extra round.
            self.paths();
        }
        let plan = plan(analyzer, self as &dyn Lexicon, query, opts);
        self.need()?;
        plan.runs_here()?;
        Ok(plan)
    }

    fn suggest(&self, analyzer: &Analyzer, prefix: &str, limit: usize) -> Result<Vec<String>> {
        self.begin();
        let out = suggest_in(analyzer, self as &dyn Lexicon, prefix, limit);
        self.need()?;
        Ok(out)
    }

    fn attach_file(&self, name: &str, bytes: &[u8]) -> Result<()> {
        self.attach(name, bytes)
    }

    fn loaded_files(&self) -> Vec<String> {
        Sharded::loaded_files(self)
    }

    fn is_sharded(&self) -> bool {
        true
    }

    fn versions(&self) -> &[String] {
        &self.dir.versions
    }

    fn pending(&self) -> Result<()> {
        self.need()
    }
}
