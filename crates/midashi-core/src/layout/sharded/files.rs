//! The payloads of a sharded index's files (directory, shards, cards, bundles, lexicon,
//! tree, paths), each with its reader beside it: the fields in declaration order, as serde
//! and postcard wrote them (see [`crate::format::reader`]).

use super::columns::{
    facet_columns, read_facet_columns, read_shard_columns, shard_columns, Facets,
};
use super::ids::{elide_ids, restore_ids, DerivableIds};
use super::links::{Link, LinkDoc};
use super::names::{name_hash, ShardRef};
use crate::format::reader::{Decode, ReadResult, Reader};
use crate::rank::pipeline::SectionFacts;
use crate::section::records::{DocRecord, SectionRecord};
use crate::section::IdPaths;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The format minor from which shards and cards carry their build's stamp
/// ([`Shard::group`], [`Card::salt`]).
pub(super) const STAMPED_MINOR: u16 = 14;

/// One bundle, as the directory names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleRef {
    /// Ordinal of its first document (bundles cover consecutive documents).
    pub first_doc: u32,
    /// Content hash, [`super::names::NAME_HASH_BYTES`] long: the file is `bundle.<hash as 16 hex
    /// digits>.bin`.
    #[serde(with = "name_hash")]
    pub hash: u64,
}

/// The payload of the directory file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Directory {
    /// Sections indexed.
    pub n_sections: u32,
    /// Whether postings carry version families (a versioned site).
    pub versioned: bool,
    /// Term shards, in term order (written as columns: `shard_columns`).
    #[serde(with = "shard_columns")]
    pub shards: Vec<ShardRef>,
    /// File name of the lexicon.
    pub lexicon: String,
    /// File name of the tree.
    pub tree: String,
    /// File name of the paths.
    pub paths: String,
    /// One entry per document (written column by column: `facet_columns`).
    #[serde(with = "facet_columns")]
    pub docs: Vec<Facets>,
    /// Interned facet values.
    pub strings: Vec<String>,
    /// A versioned site's versions, newest first (empty otherwise).
    pub versions: Vec<String>,
    /// Synonym groups, each member already analyzed into terms.
    pub synonyms: Vec<Vec<Vec<String>>>,
    /// Sections per card (card `i` holds sections `i × card_sections ..`).
    pub card_sections: u32,
    /// Lines of each section's text a card holds (from its heading line): previews of up
    /// to this many lines come from cards, longer ones from bundles.
    pub card_lines: u32,
    /// Names the cards ([`super::names::card_name`]): a hash of all of them, so a rebuild that changes
    /// any card renames every card, and one that changes none renames none.
    pub cards_salt: u64,
}

/// What a search result shows of a few consecutive sections: their records, the first
/// [`Directory::card_lines`] lines of each, their documents' names and their other
/// versions. Ids derive as in a [`Bundle`], from [`CardSection::id_key`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Card {
    /// Ordinal of its first section.
    pub first_section: u32,
    /// The documents its sections belong to, in order.
    pub docs: Vec<CardDoc>,
    /// The sections, in order.
    pub sections: Vec<CardSection>,
    /// The documents the links point into.
    pub link_docs: Vec<LinkDoc>,
    /// Per section: the same section in the site's other versions.
    pub links: Vec<Vec<Link>>,
    /// Whether ids of 0 are to be derived (as [`Bundle::derived_ids`]).
    pub derived_ids: bool,
    /// The build's [`Directory::cards_salt`], [`super::names::NAME_HASH_BYTES`] of it (format
    /// 1.14; 0 from an older build): a card of another build put under this one's name is
    /// refused, though it decodes and fits.
    #[serde(with = "name_hash")]
    pub salt: u64,
}

/// A document as a card's results show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardDoc {
    /// Its ordinal.
    pub doc: u32,
    /// Path relative to the docs root.
    pub path: String,
    /// Page URL.
    pub url: String,
    /// Title.
    pub title: String,
    /// Frontmatter description.
    pub description: Option<String>,
    /// Version.
    pub version: Option<String>,
}

/// One section of a card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardSection {
    /// Its record (`id` 0 when it derives).
    pub record: SectionRecord,
    /// What its id hashes besides its document's path: `occurrence << 1 | full`, where the
    /// heading path hashed is `record.heading_path` whole if `full`, else without its first
    /// element (the title); nothing for depth 0. See [`crate::section::SectionId::new`].
    pub id_key: u32,
    /// Its first lines (from the heading line, at most [`Directory::card_lines`], never past
    /// its subtree's end), with their line breaks.
    pub text: String,
}

impl CardSection {
    /// The headings its id hashes, and their occurrence, as `id_key` says.
    fn id_path(&self) -> (&[String], u32) {
        let hp = &self.record.heading_path;
        let path = if self.record.depth == 0 {
            &hp[..0]
        } else if self.id_key & 1 == 1 {
            &hp[..]
        } else {
            hp.get(1..).unwrap_or(&[])
        };
        (path, self.id_key >> 1)
    }

    /// The `id_key` under which `id` derives for a section of `doc_path` whose id path is
    /// `chain` with `occurrence`, or `None` when neither form of the heading path is `chain`.
    pub fn key_for(record: &SectionRecord, chain: &[String], occurrence: u32) -> Option<u32> {
        let hp = &record.heading_path;
        let full = if record.depth == 0 {
            chain.is_empty().then_some(0)
        } else if hp.get(1..).unwrap_or(&[]) == chain {
            Some(0)
        } else if hp[..] == *chain {
            Some(1)
        } else {
            None
        }?;
        occurrence.checked_mul(2).map(|o| o | full)
    }

    /// Its own lines (heading and text, without subsections), if its text holds them all.
    fn own_lines(&self) -> Option<&str> {
        let own = self
            .record
            .own_end_line
            .checked_sub(self.record.start_line)? as usize;
        let (end, _) = self.text.match_indices('\n').nth(own)?;
        Some(&self.text[..=end])
    }
}

impl Card {
    /// The text of section `at` (an index into `sections`) from its heading on, as far as
    /// this card holds it unbroken: its own text, then its descendants' that follow in the
    /// card, while each text reaches its section's own end (the writer cuts long ones) and
    /// the next starts on the line after. A grouped result's excerpt shows the words matched
    /// in a subsection from it, as one drawn from the whole source does.
    pub fn subtree_text(&self, at: usize) -> Option<Cow<'_, str>> {
        let first = self.sections.get(at)?;
        let mut text = String::new();
        let mut cur = first;
        for next in &self.sections[at + 1..] {
            let r = &next.record;
            let follows = r.doc == first.record.doc
                && r.end_line <= first.record.end_line
                && r.start_line == cur.record.own_end_line.saturating_add(1);
            // A text cut short leaves a gap before whatever follows it.
            let Some(own) = cur.own_lines().filter(|_| follows) else {
                break;
            };
            text.push_str(own);
            cur = next;
        }
        if text.is_empty() {
            return Some(Cow::Borrowed(&first.text));
        }
        text.push_str(&cur.text);
        Some(Cow::Owned(text))
    }

    /// The document of section `at` (an index into `sections`).
    pub fn doc_of(&self, at: usize) -> Option<&CardDoc> {
        let d = self.sections.get(at)?.record.doc;
        let first = self.docs.first()?.doc;
        self.docs.get(d.checked_sub(first)? as usize)
    }

    /// Replaces every id the reader can derive by 0 (before writing).
    pub fn elide_ids(&mut self) {
        elide_ids(self);
    }

    /// Puts back the ids [`Card::elide_ids`] left out (after reading).
    pub fn restore_ids(&mut self) {
        restore_ids(self);
    }
}

impl DerivableIds for Card {
    fn id_keys(&self) -> Vec<Option<(&str, Vec<String>, u32)>> {
        (0..self.sections.len())
            .map(|at| {
                let (path, occurrence) = self.sections[at].id_path();
                Some((self.doc_of(at)?.path.as_str(), path.to_vec(), occurrence))
            })
            .collect()
    }

    fn link_parts(&self) -> (&[LinkDoc], &[Vec<Link>]) {
        (&self.link_docs, &self.links)
    }

    fn ids_mut(&mut self) -> (&mut bool, Vec<(&mut u64, &mut Vec<Link>)>) {
        let ids = self
            .sections
            .iter_mut()
            .map(|s| &mut s.record.id)
            .zip(self.links.iter_mut())
            .collect();
        (&mut self.derived_ids, ids)
    }
}

/// The payload of a shard file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    /// `fst::Map` bytes: term → offset of its list in `lists`.
    #[serde(with = "serde_bytes")]
    pub fst: Vec<u8>,
    /// Scored posting lists (see [`super::scores::ScoredPosting`]).
    #[serde(with = "serde_bytes")]
    pub lists: Vec<u8>,
    /// Display words of stemmed terms, by list offset.
    pub surfaces: Vec<(u64, String)>,
    /// The bare sections among the lists' sections ([`super::scores::write_sections`];
    /// format 1.12; empty from an older build, whose sections then all count as having text).
    #[serde(with = "serde_bytes")]
    pub bare: Vec<u8>,
    /// Its group's hash, as the directory gives it (format 1.14; 0 from an older build): a
    /// shard of another build whose terms fall in the same range is refused. The hash is of
    /// the group's shards with this field 0, so a shard's bytes change only when its name
    /// does.
    pub group: u32,
}

/// The payload of the lexicon file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lexicon {
    /// `fst::Map` bytes: term → its ordinal in the sorted dictionary.
    #[serde(with = "serde_bytes")]
    pub fst: Vec<u8>,
    /// Per ordinal: where its list is (`shard << 32 | offset`).
    pub refs: Vec<u64>,
    /// Per ordinal: document frequency.
    pub dfs: Vec<u32>,
    /// Display words of stemmed terms, by ordinal.
    pub surfaces: Vec<(u64, String)>,
}

/// The payload of the tree file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// Per section.
    pub facts: Vec<SectionFacts>,
    /// The bare sections ([`super::scores::write_sections`]; format 1.12).
    #[serde(with = "serde_bytes")]
    pub bare: Vec<u8>,
}

/// The payload of the paths file: every document's path, in document (= path) order. Not in
/// the directory, which every query loads: on the PowerShell docs the paths would be a third
/// of it, and only path filters and look-ups by path read them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paths {
    /// Per document.
    pub paths: Vec<String>,
    /// The document bundles, in document order. Here rather than in the directory: results
    /// are shown from cards, and only whole sections and documents (look-ups that start
    /// from a path, or from a card's section) read bundles — 11 KB of incompressible names
    /// on the PowerShell docs that the first query no longer fetches.
    pub bundles: Vec<BundleRef>,
}

/// The payload of a bundle file: consecutive documents with their sections.
///
/// Section ids are not stored where the reader can recompute them: an id is a hash of the
/// document's path, the headings below the title and an occurrence count
/// ([`crate::section::SectionId::new`]), all of which the bundle holds — and so is the id of the same section
/// in another version, whose document path [`LinkDoc`] names. Eight random bytes per id were
/// a fifth of a bundle's gzip bytes, which every shown result fetches. An id stored as 0
/// means "derive it" ([`Bundle::elide_ids`] / [`Bundle::restore_ids`]); the few that differ
/// (a document whose H1 stands in for its title) are stored as they are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bundle {
    /// Ordinal of the first document.
    pub first_doc: u32,
    /// The documents (`first_section` is the global ordinal).
    pub docs: Vec<DocRecord>,
    /// Their sections, in order, from `docs[0].first_section`.
    pub sections: Vec<SectionRecord>,
    /// The documents the links point into.
    pub link_docs: Vec<LinkDoc>,
    /// Per section: the same section in the site's other versions, for the
    /// `other_versions` of a collapsed result.
    pub links: Vec<Vec<Link>>,
    /// Whether ids of 0 are to be derived (false only if a real id is 0 and derives to
    /// something else: then every id is stored).
    pub derived_ids: bool,
}

impl Bundle {
    /// Per section, what its id derives from: its headings from the document's first level
    /// down (its parent's, then its own: what the builder hashes, which is not the
    /// breadcrumb when a page's H1 stands in for its title) and how many earlier sections
    /// of its document have the same ones. `None` for a section whose document or parent
    /// is not in the bundle (a damaged file).
    pub(crate) fn id_keys(&self) -> Vec<Option<(&str, Vec<String>, u32)>> {
        let first = self.docs.first().map_or(0, |d| d.first_section);
        let mut walk = IdPaths::new();
        let mut doc_start = 0usize;
        let mut keys = Vec::with_capacity(self.sections.len());
        for (i, s) in self.sections.iter().enumerate() {
            if i == 0 || self.sections[i - 1].doc != s.doc {
                walk = IdPaths::new();
                doc_start = i;
            }
            // The parent as an ordinal of this document's walk (it must be an earlier
            // section of the same document).
            let parent = s.parent.map(|p| {
                (p.wrapping_sub(first) as usize)
                    .checked_sub(doc_start)
                    .filter(|&k| k < i - doc_start)
                    .unwrap_or(usize::MAX)
            });
            let key = walk.next(parent, &s.heading);
            let doc = self.docs.get(s.doc.wrapping_sub(self.first_doc) as usize);
            keys.push(
                doc.zip(key)
                    .map(|(doc, (headings, occurrence))| (doc.path.as_str(), headings, occurrence)),
            );
        }
        keys
    }

    /// Replaces every id the reader can derive by 0 (before writing).
    pub fn elide_ids(&mut self) {
        elide_ids(self);
    }

    /// Puts back the ids [`Bundle::elide_ids`] left out (after reading).
    pub fn restore_ids(&mut self) {
        restore_ids(self);
    }
}

impl DerivableIds for Bundle {
    fn id_keys(&self) -> Vec<Option<(&str, Vec<String>, u32)>> {
        Bundle::id_keys(self)
    }

    fn link_parts(&self) -> (&[LinkDoc], &[Vec<Link>]) {
        (&self.link_docs, &self.links)
    }

    fn ids_mut(&mut self) -> (&mut bool, Vec<(&mut u64, &mut Vec<Link>)>) {
        let ids = self
            .sections
            .iter_mut()
            .map(|s| &mut s.id)
            .zip(self.links.iter_mut())
            .collect();
        (&mut self.derived_ids, ids)
    }
}

// Readers, each field in declaration order (the order serde wrote them in).

/// A file name's hash: [`crate::layout::sharded::NAME_HASH_BYTES`] bytes (as the writer stores them).
fn name_hash(r: &mut Reader<'_>) -> ReadResult<u64> {
    Ok(name_hash::from_bytes(r.array()?))
}

impl Decode for BundleRef {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(BundleRef {
            first_doc: r.u32()?,
            hash: name_hash(r)?,
        })
    }
}

impl Decode for Directory {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(Directory {
            n_sections: r.u32()?,
            versioned: r.bool()?,
            shards: read_shard_columns(r)?,
            lexicon: Decode::decode(r)?,
            tree: Decode::decode(r)?,
            paths: Decode::decode(r)?,
            docs: read_facet_columns(r)?,
            strings: Decode::decode(r)?,
            versions: Decode::decode(r)?,
            synonyms: Decode::decode(r)?,
            card_sections: r.u32()?,
            card_lines: r.u32()?,
            cards_salt: r.u64()?,
        })
    }
}

impl Decode for CardDoc {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(CardDoc {
            doc: r.u32()?,
            path: Decode::decode(r)?,
            url: Decode::decode(r)?,
            title: Decode::decode(r)?,
            description: Decode::decode(r)?,
            version: Decode::decode(r)?,
        })
    }
}

impl Decode for CardSection {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(CardSection {
            record: Decode::decode(r)?,
            id_key: r.u32()?,
            text: Decode::decode(r)?,
        })
    }
}

impl Decode for Card {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(Card {
            first_section: r.u32()?,
            docs: Decode::decode(r)?,
            sections: Decode::decode(r)?,
            link_docs: Decode::decode(r)?,
            links: Decode::decode(r)?,
            derived_ids: r.bool()?,
            salt: if r.remaining() > 0 { name_hash(r)? } else { 0 },
        })
    }
}

impl Decode for Bundle {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(Bundle {
            first_doc: r.u32()?,
            docs: Decode::decode(r)?,
            sections: Decode::decode(r)?,
            link_docs: Decode::decode(r)?,
            links: Decode::decode(r)?,
            derived_ids: r.bool()?,
        })
    }
}

impl Decode for Shard {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(Shard {
            fst: r.bytes()?,
            lists: r.bytes()?,
            surfaces: Decode::decode(r)?,
            bare: if r.remaining() > 0 {
                r.bytes()?
            } else {
                Vec::new()
            },
            group: if r.remaining() > 0 { r.u32()? } else { 0 },
        })
    }
}

impl Decode for Lexicon {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(Lexicon {
            fst: r.bytes()?,
            refs: Decode::decode(r)?,
            dfs: Decode::decode(r)?,
            surfaces: Decode::decode(r)?,
        })
    }
}

impl Decode for SectionFacts {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(SectionFacts {
            depth: r.byte()?,
            subtree: r.u32()?,
            family: Decode::decode(r)?,
            // Not in the facts' own bytes: the tree and the shards list bare sections apart.
            bare: false,
        })
    }
}

impl Decode for Tree {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(Tree {
            facts: Decode::decode(r)?,
            bare: if r.remaining() > 0 {
                r.bytes()?
            } else {
                Vec::new()
            },
        })
    }
}

impl Decode for Paths {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(Paths {
            paths: Decode::decode(r)?,
            bundles: Decode::decode(r)?,
        })
    }
}
