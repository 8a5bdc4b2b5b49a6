//! The sharded layout: a large site's index in many small files, so a browser fetches only
//! what a query reads.
//!
//! A single-file index ships every posting and every document to the first query (on the
//! PowerShell docs, 69k sections: 11.6 MB gzip). The sharded layout splits it:
//!
//! | file | holds | fetched |
//! |---|---|---|
//! | directory | shard boundaries, per-document facets, synonyms, versions, the cards' salt | at load |
//! | shard × N | one term range: its dictionary and *scored* postings | for the query's words |
//! | card × C | [`Directory::card_sections`] consecutive sections: records, first lines, links | for the results shown |
//! | bundle × M | a few documents: source, sections, other-version links | whole sections and documents (`get`) |
//! | lexicon | every term with its document frequency | only to correct a typo |
//! | tree | every section's depth/subtree/family | semantic leg |
//! | paths | every document's path, bundle boundaries | path filter, documents by path, whole sections |
//!
//! Two round trips before the first result: the shards of the query's words (and of the
//! word being typed, as a prefix range), then the cards of the page of results. A card
//! holds what a result shows (record, first lines, other versions) for a few consecutive
//! sections, so a result costs ~1–2 KB gzip instead of its whole document's bundle
//! (~6 KB); bundles remain for whole sections and documents. Cards are not named in the
//! directory one by one: card `i` is `card.<salt><i>.bin`, the salt a hash of every card.
//!
//! **Rankings equal the single-file index's, bit for bit.** Each posting carries the BM25F
//! score the single-file index computes at query time ([`crate::scoring::Bm25f`], the same
//! function and inputs, so the same `f32`) together with what ranking needs of its section
//! — depth, subtree size (for grouping: descendants are the next `subtree` ordinals),
//! version family, and for terms of the heading the facts of the exact-heading lift — so a
//! query ranks every candidate without any per-section table. Typo corrections read the
//! lexicon, which walks the same terms in the same order as the single-file dictionary.
//!
//! [`write`] turns a built index into these files; [`Sharded`] reads them.

pub mod read;
mod write;

pub use read::{FileSource, Sharded, KEEP_LOADED};
pub use write::{write, ShardedFiles};

use crate::format::{content_hash, FileKind};
use crate::index::postings::{read_varint, write_varint};
use crate::index::{DocRecord, SectionRecord};
use crate::search::VersionLink;
use crate::section::{Hints, IdPaths, SectionId};
use serde::{Deserialize, Serialize};

/// Bytes of content hash in a bundle's name (unique within a build: the writer resolves the
/// rare clash). Shards are named otherwise: see [`shard_columns`].
pub const NAME_HASH_BYTES: usize = 5;

/// A name hash as [`NAME_HASH_BYTES`] raw bytes (a varint `u64` would take up to ten).
pub(crate) mod name_hash {
    use super::NAME_HASH_BYTES;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(hash: &u64, s: S) -> Result<S::Ok, S::Error> {
        let mut b = [0u8; NAME_HASH_BYTES];
        b.copy_from_slice(&hash.to_le_bytes()[..NAME_HASH_BYTES]);
        b.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        Ok(from_bytes(<[u8; NAME_HASH_BYTES]>::deserialize(d)?))
    }

    /// The hash the stored bytes stand for (the payload reader uses this too).
    pub fn from_bytes(b: [u8; NAME_HASH_BYTES]) -> u64 {
        let mut full = [0u8; 8];
        full[..NAME_HASH_BYTES].copy_from_slice(&b);
        u64::from_le_bytes(full)
    }
}

/// The directory's per-document facets, written as columns rather than rows: each column
/// is a run of small, mostly repeating numbers (a site's pages share a version, a language,
/// a category), which gzip compresses to a third of the rows' size (powershell-docs: 4.2 →
/// 1.4 KB of every first query). Absent values are 0, value `i` is `i + 1`.
pub(crate) mod facet_columns {
    use super::Facets;
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// The columns, one entry per document in each.
    #[derive(Serialize, Deserialize)]
    pub struct Columns {
        pub sections: Vec<u32>,
        pub version: Vec<u32>,
        pub lang: Vec<u32>,
        pub category: Vec<u32>,
        pub tags: Vec<Vec<u32>>,
    }

    fn present(v: Option<u32>) -> u32 {
        v.map_or(0, |i| i + 1)
    }

    fn value(v: u32) -> Option<u32> {
        v.checked_sub(1)
    }

    impl Columns {
        /// The rows, or `None` when the columns are not of one length.
        pub fn rows(self) -> Option<Vec<Facets>> {
            let n = self.sections.len();
            if [
                self.version.len(),
                self.lang.len(),
                self.category.len(),
                self.tags.len(),
            ]
            .iter()
            .any(|&len| len != n)
            {
                return None;
            }
            let mut out = Vec::with_capacity(n);
            let mut tags = self.tags.into_iter();
            for i in 0..n {
                out.push(Facets {
                    sections: self.sections[i],
                    version: value(self.version[i]),
                    lang: value(self.lang[i]),
                    category: value(self.category[i]),
                    tags: tags.next().unwrap_or_default(),
                });
            }
            Some(out)
        }
    }

    pub fn serialize<S: Serializer>(docs: &[Facets], s: S) -> Result<S::Ok, S::Error> {
        Columns {
            sections: docs.iter().map(|d| d.sections).collect(),
            version: docs.iter().map(|d| present(d.version)).collect(),
            lang: docs.iter().map(|d| present(d.lang)).collect(),
            category: docs.iter().map(|d| present(d.category)).collect(),
            tags: docs.iter().map(|d| d.tags.clone()).collect(),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Facets>, D::Error> {
        Columns::deserialize(d)?
            .rows()
            .ok_or_else(|| D::Error::custom("the facet columns differ in length"))
    }
}

/// One shard, as the directory names it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardRef {
    /// Its first term (shards cover consecutive ranges of the sorted dictionary).
    pub first_term: String,
    /// Its group's hash ([`GROUP_HASH_BYTES`] bytes; see [`shard_columns`]).
    pub group: u32,
}

impl ShardRef {
    /// The hash in its file name, `shard.<16 hex digits>.bin`: of its first term and its
    /// group's hash.
    pub fn name_hash(&self) -> u64 {
        let mut key = Vec::with_capacity(self.first_term.len() + GROUP_HASH_BYTES);
        key.extend_from_slice(self.first_term.as_bytes());
        key.extend_from_slice(&self.group.to_le_bytes()[..GROUP_HASH_BYTES]);
        content_hash(&key)
    }
}

/// Bytes of a shard group's content hash.
pub const GROUP_HASH_BYTES: usize = 3;
/// One shard in this many, on average, starts a group (see [`shard_columns`]).
pub const SHARDS_PER_GROUP: u64 = 4;

/// Whether shard `i`, whose first term is `first_term`, starts a group: the first shard
/// does, and so does each whose first term hashes to a multiple of [`SHARDS_PER_GROUP`].
/// Boundaries drawn by the terms, not by counting, stay where they are when a shard is
/// split or merged elsewhere, so one edited page renames only the groups it touches.
pub fn starts_group(i: usize, first_term: &str) -> bool {
    i == 0 || content_hash(first_term.as_bytes()) % SHARDS_PER_GROUP == 0
}

/// The shard list, written as a column of first terms and one [`GROUP_HASH_BYTES`]-byte
/// hash per group of consecutive shards, rather than a content hash per shard.
///
/// Why: every first query loads the directory, and per-shard hashes are random bytes gzip
/// cannot shrink (5 bytes × 1,329 shards = 6.7 of the 14.1 KB gzip on a 141k-section
/// site). A shard is named by the hash of its first term and its group's hash, the group's
/// hash being of its shards' contents: a shard's name changes whenever its group's content
/// does (a stale cache entry under an old name needs the same first term and a 2⁻²⁴
/// coincidence), and a one-page edit renames the ~4 shards of each group it touches
/// instead of only the shards it changed.
pub(crate) mod shard_columns {
    use super::{starts_group, ShardRef, GROUP_HASH_BYTES};
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// The columns: every shard's first term, each group's hash.
    #[derive(Serialize, Deserialize)]
    pub struct Columns {
        pub first_terms: Vec<String>,
        #[serde(with = "serde_bytes")]
        pub groups: Vec<u8>,
    }

    impl Columns {
        /// The shards, or `None` when the number of group hashes is not the number of
        /// groups the first terms start.
        pub fn rows(self) -> Option<Vec<ShardRef>> {
            let mut groups = self.groups.chunks_exact(GROUP_HASH_BYTES);
            if !groups.remainder().is_empty() {
                return None;
            }
            let mut group = 0;
            let mut out = Vec::with_capacity(self.first_terms.len());
            for (i, first_term) in self.first_terms.into_iter().enumerate() {
                if starts_group(i, &first_term) {
                    let mut b = [0u8; 4];
                    b[..GROUP_HASH_BYTES].copy_from_slice(groups.next()?);
                    group = u32::from_le_bytes(b);
                }
                out.push(ShardRef { first_term, group });
            }
            groups.next().is_none().then_some(out)
        }
    }

    pub fn serialize<S: Serializer>(shards: &[ShardRef], s: S) -> Result<S::Ok, S::Error> {
        Columns {
            first_terms: shards.iter().map(|r| r.first_term.clone()).collect(),
            groups: shards
                .iter()
                .enumerate()
                .filter(|(i, r)| starts_group(*i, &r.first_term))
                .flat_map(|(_, r)| r.group.to_le_bytes()[..GROUP_HASH_BYTES].to_vec())
                .collect(),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ShardRef>, D::Error> {
        Columns::deserialize(d)?
            .rows()
            .ok_or_else(|| D::Error::custom("the shard groups do not match the shards"))
    }
}

/// One bundle, as the directory names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleRef {
    /// Ordinal of its first document (bundles cover consecutive documents).
    pub first_doc: u32,
    /// Content hash, [`NAME_HASH_BYTES`] long: the file is `bundle.<hash as 16 hex
    /// digits>.bin`.
    #[serde(with = "name_hash")]
    pub hash: u64,
}

/// Filterable facts of a document, as indices into [`Directory::strings`] (written by
/// `facet_columns`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facets {
    /// Number of the document's sections (they follow the previous document's).
    pub sections: u32,
    /// Version.
    pub version: Option<u32>,
    /// Language.
    pub lang: Option<u32>,
    /// Category.
    pub category: Option<u32>,
    /// Tags.
    pub tags: Vec<u32>,
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
    /// Names the cards ([`card_name`]): a hash of all of them, so a rebuild that changes
    /// any card renames every card, and one that changes none renames none.
    pub cards_salt: u64,
}

/// Bits of a card's name that number it (the rest are [`Directory::cards_salt`]).
const CARD_ORDINAL_BITS: u32 = 24;
/// Most cards an index may have (2²⁴ × 4 sections is far beyond any docs site).
pub const MAX_CARDS: u32 = 1 << CARD_ORDINAL_BITS;

/// The file name of card `i`: `card.<16 hex>.bin`, the low [`CARD_ORDINAL_BITS`] bits its
/// ordinal and the 40 bits above them from `salt`.
pub fn card_name(salt: u64, i: u32) -> String {
    FileKind::Card.name_for_hash(card_hash(salt, i))
}

/// The name hash of card `i` (see [`card_name`]).
pub(crate) fn card_hash(salt: u64, i: u32) -> u64 {
    (salt & ((1 << 40) - 1)) << CARD_ORDINAL_BITS | u64::from(i % MAX_CARDS)
}

/// The ordinal of card file `name` of an index whose cards are salted with `salt`.
pub fn card_ordinal(salt: u64, name: &str) -> Option<u32> {
    let h = FileKind::Card.hash_of_name(name)?;
    let i = (h & u64::from(MAX_CARDS - 1)) as u32;
    (card_hash(salt, i) == h).then_some(i)
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
    /// element (the title); nothing for depth 0. See [`SectionId::new`].
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
}

impl Card {
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

/// The [`VersionLink`] of `link` into one of `link_docs`, made from a section whose own
/// anchor is `own_anchor`.
pub(crate) fn version_link(
    link_docs: &[LinkDoc],
    link: &Link,
    own_anchor: Option<&str>,
) -> Option<VersionLink> {
    let doc = link_docs.get(link.doc as usize)?;
    let anchor = match &link.anchor {
        None => own_anchor,
        Some(a) => a.as_deref(),
    };
    Some(VersionLink::new(
        doc.version.clone(),
        link.id,
        &doc.url,
        anchor,
    ))
}

/// The payload of a shard file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    /// `fst::Map` bytes: term → offset of its list in `lists`.
    #[serde(with = "serde_bytes")]
    pub fst: Vec<u8>,
    /// Scored posting lists (see [`ScoredPosting`]).
    #[serde(with = "serde_bytes")]
    pub lists: Vec<u8>,
    /// Display words of stemmed terms, by list offset.
    pub surfaces: Vec<(u64, String)>,
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

/// What ranking needs of a section, whatever leg found it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionFacts {
    /// 0–6.
    pub depth: u8,
    /// Number of sections below it (its descendants are the next `subtree` ordinals).
    pub subtree: u32,
    /// Version family (a versioned site's sections that are one section in several versions).
    pub family: Option<u32>,
}

/// The payload of the tree file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// Per section.
    pub facts: Vec<SectionFacts>,
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
/// ([`SectionId::new`]), all of which the bundle holds — and so is the id of the same section
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

/// A document another version's link points into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkDoc {
    /// Its version.
    pub version: String,
    /// Its page URL.
    pub url: String,
    /// Its path (from which its sections' ids derive).
    pub path: String,
}

/// The same section in another version, compactly: a bundle's links repeat a handful of
/// pages and mostly the section's own anchor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Its section ordinal.
    pub section: u32,
    /// Its section id (0 in a file: derived from the linking section's headings).
    pub id: u64,
    /// Index into [`Bundle::link_docs`].
    pub doc: u32,
    /// Its anchor: `None` when it is the linking section's own, else `Some(anchor)`.
    pub anchor: Option<Option<String>>,
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

/// A file that leaves out the section ids a reader can derive ([`Bundle`], [`Card`]): an
/// id of 0 means "derive it", unless a real id is 0 and derives to something else — then
/// `derived_ids` is false and every id is stored.
trait DerivableIds {
    /// Per section, what its id hashes: its document's path, its heading path and
    /// occurrence (`None`: a damaged file).
    fn id_keys(&self) -> Vec<Option<(&str, Vec<String>, u32)>>;
    /// The documents links point into, and each section's links.
    fn link_parts(&self) -> (&[LinkDoc], &[Vec<Link>]);

    /// What each section's own id and its links' ids derive to, in order: a link is the
    /// same section in another version's document, so it hashes that document's path with
    /// the same headings.
    fn derived(&self) -> Vec<(u64, Vec<u64>)> {
        let (link_docs, links) = self.link_parts();
        self.id_keys()
            .into_iter()
            .zip(links)
            .map(|(key, links)| match key {
                None => (0, vec![0; links.len()]),
                Some((path, headings, occurrence)) => (
                    SectionId::new(path, &headings, occurrence).0,
                    links
                        .iter()
                        .map(|l| {
                            link_docs
                                .get(l.doc as usize)
                                .map_or(0, |d| SectionId::new(&d.path, &headings, occurrence).0)
                        })
                        .collect(),
                ),
            })
            .collect()
    }
    /// The `derived_ids` flag, and each section's id with its links, in order.
    fn ids_mut(&mut self) -> (&mut bool, Vec<(&mut u64, &mut Vec<Link>)>);
}

/// Replaces every id of `file` that derives by 0 (before writing).
fn elide_ids(file: &mut impl DerivableIds) {
    let derived = file.derived();
    let (flag, ids) = file.ids_mut();
    let clash = ids
        .iter()
        .zip(&derived)
        .any(|((id, links), (own, theirs))| {
            (**id == 0 && *own != 0) || links.iter().zip(theirs).any(|(l, d)| l.id == 0 && *d != 0)
        });
    *flag = !clash;
    if *flag {
        replace_ids(ids, derived, |id, d| if id == d { 0 } else { id });
    }
}

/// Puts back the ids [`elide_ids`] left out (after reading).
fn restore_ids(file: &mut impl DerivableIds) {
    let derived = file.derived();
    let (flag, ids) = file.ids_mut();
    if *flag {
        replace_ids(ids, derived, |id, d| if id == 0 { d } else { id });
    }
}

/// Sets every id (own and linked) to `f(stored, derived)`: the one walk both directions share.
fn replace_ids(
    ids: Vec<(&mut u64, &mut Vec<Link>)>,
    derived: Vec<(u64, Vec<u64>)>,
    f: impl Fn(u64, u64) -> u64,
) {
    for ((id, links), (own, theirs)) in ids.into_iter().zip(derived) {
        *id = f(*id, own);
        for (l, d) in links.iter_mut().zip(theirs) {
            l.id = f(l.id, d);
        }
    }
}

/// One entry of a scored posting list.
///
/// A list is stored column by column, which gzip compresses far better than posting by
/// posting (neighbouring scores share their high bytes):
///
/// ```text
/// df varint, count varint (postings, ≥ df: see below),
/// count × section delta varint,
/// scores: a byte `base`, then
///   base ≥ 1: count × score byte = (exponent − base + 1) << 4 | top 4 mantissa bits,
///             0 for a score of 0   (every score 0 or positive, quantised, within 15 binades)
///   base = 0: count × f32 byte 3, count × byte 2, count × byte 1, count × byte 0 (by plane)
/// count × facts varint = subtree << 4 | heading_term << 3 | depth,
/// [count × family varint: 0 = none, else 1 + zigzag(family − previous family)]  (versioned)
/// per heading_term posting, in order: heading length varint, heading term count varint
/// ```
///
/// `heading_term`: the term is one of the section heading's query terms (what the
/// exact-heading lift compares with the query). A heading term that the section's text does
/// not index gets a posting of score 0, which changes no sum: hence `count ≥ df`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredPosting {
    /// Section ordinal.
    pub section: u32,
    /// The BM25F score of the term in the section.
    pub score: f32,
    /// The section's facts.
    pub facts: SectionFacts,
    /// For a heading term: the heading's length in terms and its distinct query terms.
    pub heading: Option<(u32, u32)>,
}

/// Writes one scored list. `postings` must be sorted by section.
pub fn write_scored_list(out: &mut Vec<u8>, df: u64, versioned: bool, postings: &[ScoredPosting]) {
    write_varint(out, df);
    write_varint(out, postings.len() as u64);
    let mut prev = 0u32;
    for p in postings {
        write_varint(out, u64::from(p.section - prev));
        prev = p.section;
    }
    write_scores(out, postings);
    for p in postings {
        let flag = u64::from(p.heading.is_some());
        write_varint(
            out,
            u64::from(p.facts.subtree) << 4 | flag << 3 | u64::from(p.facts.depth & 7),
        );
    }
    if versioned {
        // Families as the zigzag difference from the previous posting's (0 = none): the
        // sections of one page, and of its copies in other versions, have neighbouring ones.
        let mut prev = 0i64;
        for p in postings {
            match p.facts.family {
                None => write_varint(out, 0),
                Some(f) => {
                    let d = i64::from(f) - prev;
                    prev = i64::from(f);
                    write_varint(out, (((d << 1) ^ (d >> 63)) as u64) + 1);
                }
            }
        }
    }
    for (len, count) in postings.iter().filter_map(|p| p.heading) {
        write_varint(out, u64::from(len));
        write_varint(out, u64::from(count));
    }
}

/// Mantissa bits a quantised score keeps (`scoring::quantise`): a score byte is its
/// exponent's offset from the list's smallest (high nibble, 0 for a score of 0) and these.
const SCORE_MANTISSA_BITS: u32 = 23 - crate::scoring::DROPPED_BITS;
const _: () = assert!(
    SCORE_MANTISSA_BITS == 4,
    "a score byte holds 4 mantissa bits"
);
/// Binades a list's scores may span to be written a byte each (the high nibble's 1..=15).
const SCORE_BINADES: u32 = 15;

/// Writes a list's scores: one byte each when they are quantised and span at most
/// [`SCORE_BINADES`] binades (always, for BM25F scores: the score bytes of a common word's
/// list are a quarter lighter in gzip than two planes of f32 bytes), else as f32 planes.
fn write_scores(out: &mut Vec<u8>, postings: &[ScoredPosting]) {
    let low = (1u32 << crate::scoring::DROPPED_BITS) - 1;
    let exponent = |bits: u32| bits >> 23;
    // Smallest and largest exponent of the non-zero scores, and whether they all fit.
    let (mut base, mut top, mut bytewise) = (u32::MAX, 0, true);
    for b in postings
        .iter()
        .map(|p| p.score.to_bits())
        .filter(|&b| b != 0)
    {
        bytewise &= b & low == 0 && (1..255).contains(&exponent(b));
        base = base.min(exponent(b));
        top = top.max(exponent(b));
    }
    if base == u32::MAX {
        (base, top) = (1, 1); // all zero
    }
    if bytewise && top - base < SCORE_BINADES {
        out.push(base as u8);
        out.extend(postings.iter().map(|p| match p.score.to_bits() {
            0 => 0,
            b => {
                let mantissa =
                    (b >> crate::scoring::DROPPED_BITS) & ((1 << SCORE_MANTISSA_BITS) - 1);
                ((exponent(b) - base + 1) << SCORE_MANTISSA_BITS | mantissa) as u8
            }
        }));
    } else {
        out.push(0);
        for plane in (0..4).rev() {
            out.extend(postings.iter().map(|p| p.score.to_le_bytes()[plane]));
        }
    }
}

/// Reads the scores [`write_scores`] wrote into `out`'s postings.
fn read_scores(buf: &[u8], pos: &mut usize, out: &mut [ScoredPosting]) -> Option<()> {
    let count = out.len();
    let base = u32::from(*buf.get(*pos)?);
    *pos += 1;
    if base == 0 {
        let planes = buf.get(*pos..pos.checked_add(count.checked_mul(4)?)?)?;
        *pos += 4 * count;
        for (i, p) in out.iter_mut().enumerate() {
            let b = |plane: usize| planes[(3 - plane) * count + i];
            p.score = f32::from_le_bytes([b(0), b(1), b(2), b(3)]);
        }
        return Some(());
    }
    let bytes = buf.get(*pos..pos.checked_add(count)?)?;
    *pos += count;
    for (p, &b) in out.iter_mut().zip(bytes) {
        let offset = u32::from(b) >> SCORE_MANTISSA_BITS;
        let mantissa = u32::from(b) & ((1 << SCORE_MANTISSA_BITS) - 1);
        p.score = match offset {
            0 if mantissa == 0 => 0.0,
            0 => return None,
            _ => {
                let exponent = base + offset - 1;
                if exponent >= 255 {
                    return None;
                }
                f32::from_bits(exponent << 23 | mantissa << crate::scoring::DROPPED_BITS)
            }
        };
    }
    Some(())
}

/// Reads a scored list at `offset`: its df and postings; `None` if the bytes are malformed.
pub fn read_scored_list(
    buf: &[u8],
    offset: usize,
    versioned: bool,
) -> Option<(u64, Vec<ScoredPosting>)> {
    let mut pos = offset;
    let df = read_varint(buf, &mut pos)?;
    let count = usize::try_from(read_varint(buf, &mut pos)?).ok()?;
    // Each posting takes at least 3 bytes: a damaged count cannot make us allocate much.
    if count > buf.len().saturating_sub(pos) / 3 + 1 {
        return None;
    }
    let mut out = Vec::with_capacity(count);
    let mut section = 0u32;
    for _ in 0..count {
        section = section.checked_add(u32::try_from(read_varint(buf, &mut pos)?).ok()?)?;
        out.push(ScoredPosting {
            section,
            score: 0.0,
            facts: SectionFacts::default(),
            heading: None,
        });
    }
    read_scores(buf, &mut pos, &mut out)?;
    for p in out.iter_mut() {
        let packed = read_varint(buf, &mut pos)?;
        p.facts.depth = (packed & 7) as u8;
        p.facts.subtree = u32::try_from(packed >> 4).ok()?;
        if packed & 8 != 0 {
            p.heading = Some((0, 0));
        }
    }
    if versioned {
        let mut prev = 0i64;
        for p in out.iter_mut() {
            p.facts.family = match read_varint(buf, &mut pos)? {
                0 => None,
                z => {
                    let z = z - 1;
                    let d = (z >> 1) as i64 ^ -((z & 1) as i64);
                    prev = prev.checked_add(d)?;
                    Some(u32::try_from(prev).ok()?)
                }
            };
        }
    }
    for p in out.iter_mut().filter(|p| p.heading.is_some()) {
        let len = u32::try_from(read_varint(buf, &mut pos)?).ok()?;
        let count = u32::try_from(read_varint(buf, &mut pos)?).ok()?;
        p.heading = Some((len, count));
    }
    Some((df, out))
}

/// A posting reference of the sharded layout: which shard, and where in it.
pub(crate) fn shard_ref(shard: u32, offset: u64) -> u64 {
    u64::from(shard) << 32 | (offset & 0xffff_ffff)
}

/// The shard and offset of a reference made by [`shard_ref`].
pub(crate) fn split_ref(reference: u64) -> (u32, u64) {
    ((reference >> 32) as u32, reference & 0xffff_ffff)
}

/// The facets of a document's hints, interning strings in `strings`.
pub(crate) fn facets_of(hints: &Hints, sections: u32, strings: &mut Vec<String>) -> Facets {
    let mut intern = |s: &String| match strings.iter().position(|x| x == s) {
        Some(i) => i as u32,
        None => {
            strings.push(s.clone());
            strings.len() as u32 - 1
        }
    };
    Facets {
        sections,
        version: hints.version.as_ref().map(&mut intern),
        lang: hints.lang.as_ref().map(&mut intern),
        category: hints.category.as_ref().map(&mut intern),
        tags: hints.tags.iter().map(&mut intern).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scored_lists_round_trip() {
        let list = vec![
            ScoredPosting {
                section: 3,
                score: 1.25,
                facts: SectionFacts {
                    depth: 2,
                    subtree: 4,
                    family: Some(0),
                },
                heading: Some((3, 2)),
            },
            ScoredPosting {
                section: 70_000,
                score: 0.0,
                facts: SectionFacts {
                    depth: 6,
                    subtree: 0,
                    family: None,
                },
                heading: None,
            },
        ];
        for versioned in [true, false] {
            let mut buf = vec![7];
            write_scored_list(&mut buf, 1, versioned, &list);
            let (df, got) = read_scored_list(&buf, 1, versioned).unwrap();
            assert_eq!(df, 1);
            let want: Vec<ScoredPosting> = list
                .iter()
                .map(|p| ScoredPosting {
                    facts: SectionFacts {
                        family: p.facts.family.filter(|_| versioned),
                        ..p.facts
                    },
                    ..*p
                })
                .collect();
            assert_eq!(got, want);
            // A cut list is an error, not a panic.
            assert!(read_scored_list(&buf[..buf.len() - 1], 1, versioned).is_none());
        }
    }

    #[test]
    fn quantised_scores_take_one_byte_each_and_others_are_kept_exactly() {
        let list = |scores: &[f32]| -> Vec<ScoredPosting> {
            scores
                .iter()
                .enumerate()
                .map(|(i, &score)| ScoredPosting {
                    section: i as u32,
                    score,
                    facts: SectionFacts::default(),
                    heading: None,
                })
                .collect()
        };
        let written = |scores: &[f32]| {
            let mut buf = Vec::new();
            write_scored_list(&mut buf, scores.len() as u64, false, &list(scores));
            let (_, got) = read_scored_list(&buf, 0, false).unwrap();
            let got: Vec<u32> = got.iter().map(|p| p.score.to_bits()).collect();
            let want: Vec<u32> = scores.iter().map(|s| s.to_bits()).collect();
            assert_eq!(got, want, "{scores:?}");
            buf.len()
        };
        // Quantised BM25F scores, zeros among them, over 15 binades: a byte each (2 bytes of
        // counts, 1 base, then per posting a section delta, a score byte and a facts byte).
        let q = |x: f32| crate::scoring::quantise(x);
        let mut bm25 = vec![0.0, q(0.012), q(0.7), q(1.3), q(9.99), q(100.0), 0.0];
        bm25.push(q(0.012 * 2f32.powi(14)));
        assert_eq!(written(&bm25), 3 + 3 * bm25.len());
        // Otherwise f32 planes, exactly: 16 binades, unquantised, negative, NaN, subnormal.
        for odd in [
            vec![q(0.012), q(0.012 * 2f32.powi(15))],
            vec![1.2345],
            vec![q(1.0), -q(1.0)],
            vec![f32::NAN, q(2.0)],
            vec![f32::from_bits(1 << 19)],
        ] {
            assert_eq!(written(&odd), 3 + 6 * odd.len(), "{odd:?}");
        }
        // A damaged score byte (a zero exponent offset with mantissa bits) is refused.
        let mut buf = Vec::new();
        write_scored_list(&mut buf, 1, false, &list(&[q(1.0)]));
        buf[4] = 0x03;
        assert!(read_scored_list(&buf, 0, false).is_none());
    }

    /// Columns of two documents.
    fn columns(
        sections: [u32; 2],
        version: [u32; 2],
        lang: [u32; 2],
        category: [u32; 2],
        tags: Vec<Vec<u32>>,
    ) -> facet_columns::Columns {
        facet_columns::Columns {
            sections: sections.to_vec(),
            version: version.to_vec(),
            lang: lang.to_vec(),
            category: category.to_vec(),
            tags,
        }
    }

    fn directory(docs: Vec<Facets>) -> Directory {
        Directory {
            n_sections: docs.iter().map(|d| d.sections).sum(),
            versioned: false,
            shards: vec![ShardRef {
                first_term: String::new(),
                group: 7,
            }],
            lexicon: "lexicon.0000000000000001.bin".into(),
            tree: "tree.0000000000000002.bin".into(),
            paths: "paths.0000000000000003.bin".into(),
            docs,
            strings: vec!["7.4".into(), "en".into(), "guide".into()],
            versions: Vec::new(),
            synonyms: Vec::new(),
            card_sections: 8,
            card_lines: 12,
            cards_salt: 1,
        }
    }

    #[test]
    fn facets_are_written_as_columns_and_read_back_as_rows() {
        let docs = vec![
            Facets {
                sections: 3,
                version: Some(0),
                lang: Some(1),
                category: None,
                tags: vec![2],
            },
            Facets {
                sections: 1,
                version: Some(0),
                lang: None,
                category: Some(2),
                tags: Vec::new(),
            },
        ];
        let dir = directory(docs.clone());
        let bytes = crate::format::encode(FileKind::Directory, &dir).unwrap();
        let back: Directory =
            crate::format::decode(FileKind::Directory, "directory.x.bin", &bytes).unwrap();
        assert_eq!(back, dir);
        // Column by column: the sections' counts first, then each version (0 = none, i + 1).
        let payload = postcard::to_allocvec(&dir).unwrap();
        let columns = columns([3, 1], [1, 1], [2, 0], [0, 3], vec![vec![2], Vec::new()]);
        let columns = postcard::to_allocvec(&columns).unwrap();
        assert!(payload.windows(columns.len()).any(|w| w == columns));
    }

    #[test]
    fn shards_are_written_as_first_terms_and_group_hashes() {
        let mut dir = directory(vec![Facets::default()]);
        dir.shards = ["", "b", "c", "d", "e", "f", "g", "h"]
            .iter()
            .enumerate()
            .map(|(i, t)| ShardRef {
                first_term: t.to_string(),
                group: 0x10_0000 + i as u32,
            })
            .collect();
        // Every shard of a group has its group's hash.
        let mut group = 0;
        for (i, r) in dir.shards.iter_mut().enumerate() {
            if starts_group(i, &r.first_term) {
                group = r.group;
            }
            r.group = group;
        }
        let groups = (0..8)
            .filter(|&i| starts_group(i, &dir.shards[i].first_term))
            .count();
        let bytes = crate::format::encode(FileKind::Directory, &dir).unwrap();
        let back: Directory =
            crate::format::decode(FileKind::Directory, "directory.x.bin", &bytes).unwrap();
        assert_eq!(back, dir);
        // Three bytes per group, none per shard.
        let columns = shard_columns::Columns {
            first_terms: dir.shards.iter().map(|r| r.first_term.clone()).collect(),
            groups: vec![0; 3 * groups],
        };
        let encoded = postcard::to_allocvec(&columns).unwrap();
        let payload = postcard::to_allocvec(&dir).unwrap();
        let at = encoded.len() - 3 * groups;
        assert!(payload.windows(at).any(|w| w == &encoded[..at]));
        // A group hash too few or too many is refused.
        for wrong in [3 * groups - 3, 3 * groups + 3, 3 * groups + 1] {
            let columns = shard_columns::Columns {
                first_terms: columns.first_terms.clone(),
                groups: vec![0; wrong],
            };
            assert!(columns.rows().is_none(), "{wrong} bytes");
        }
    }

    #[test]
    fn facet_columns_of_different_lengths_are_refused() {
        let mut short = columns([1, 1], [0, 0], [0, 0], [0, 0], vec![Vec::new(); 2]);
        short.version.pop();
        assert!(short.rows().is_none());
        // Through the file reader: a directory whose version column is one short.
        let dir = directory(vec![Facets::default(), Facets::default()]);
        let good = postcard::to_allocvec(&dir).unwrap();
        let fields = columns([0, 0], [0, 0], [0, 0], [0, 0], vec![Vec::new(); 2]);
        let fields = postcard::to_allocvec(&fields).unwrap();
        let at = good
            .windows(fields.len())
            .position(|w| w == fields)
            .unwrap();
        let mut bad = good[..at].to_vec();
        bad.extend_from_slice(&[2, 0, 0, 1, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0]);
        bad.extend_from_slice(&good[at + fields.len()..]);
        let framed = crate::format::frame(FileKind::Directory, &bad);
        let err =
            crate::format::decode::<Directory>(FileKind::Directory, "directory.x.bin", &framed)
                .unwrap_err();
        assert_eq!(err.code(), "MALFORMED", "{err}");
    }
}

#[cfg(test)]
mod bundle_ids {
    use super::*;

    fn doc(path: &str, first_section: u32, section_count: u32) -> DocRecord {
        DocRecord {
            path: path.into(),
            url: format!("/{path}"),
            title: "T".into(),
            source: "# T\n".into(),
            hints: Hints::default(),
            first_section,
            section_count,
        }
    }

    fn section(
        doc: u32,
        parent: Option<u32>,
        heading: &str,
        crumb: &[&str],
        id: u64,
    ) -> SectionRecord {
        SectionRecord {
            id,
            doc,
            anchor: None,
            heading: heading.into(),
            depth: crumb.len() as u8 - 1,
            heading_path: crumb.iter().map(|h| h.to_string()).collect(),
            parent,
            section_number: 1,
            start_line: 1,
            end_line: 1,
            own_end_line: 1,
            token_estimate: 1,
        }
    }

    fn id(path: &str, headings: &[&str], occurrence: u32) -> u64 {
        let h: Vec<String> = headings.iter().map(|s| s.to_string()).collect();
        SectionId::new(path, &h, occurrence).0
    }

    #[test]
    fn derivable_ids_are_left_out_and_restored() {
        // Two documents; "Notes" twice in the second (occurrences 0 and 1); in the first, an
        // H1 standing in for the title (its breadcrumb is the title, its id hashes its own
        // heading, and so do its children's); one id that does not derive at all.
        let original = Bundle {
            first_doc: 4,
            docs: vec![doc("7.5/a.md", 10, 3), doc("7.5/b.md", 13, 3)],
            sections: vec![
                section(4, None, "A", &["A"], id("7.5/a.md", &[], 0)),
                section(4, Some(10), "Intro", &["A"], id("7.5/a.md", &["Intro"], 0)),
                section(4, Some(11), "Setup", &["A", "Setup"], 0xdead_beef),
                section(5, None, "B", &["B"], id("7.5/b.md", &[], 0)),
                section(
                    5,
                    Some(13),
                    "Notes",
                    &["B", "Notes"],
                    id("7.5/b.md", &["Notes"], 0),
                ),
                section(
                    5,
                    Some(13),
                    "Notes",
                    &["B", "Notes"],
                    id("7.5/b.md", &["Notes"], 1),
                ),
            ],
            link_docs: vec![LinkDoc {
                version: "7.4".into(),
                url: "/7.4/b".into(),
                path: "7.4/b.md".into(),
            }],
            links: vec![
                vec![],
                vec![],
                vec![],
                vec![],
                vec![],
                vec![
                    Link {
                        section: 40,
                        id: id("7.4/b.md", &["Notes"], 1),
                        doc: 0,
                        anchor: None,
                    },
                    Link {
                        section: 41,
                        id: 7,
                        doc: 0,
                        anchor: None,
                    },
                ],
            ],
            derived_ids: false,
        };
        let mut b = original.clone();
        b.elide_ids();
        assert!(b.derived_ids);
        let stored: Vec<u64> = b.sections.iter().map(|s| s.id).collect();
        assert_eq!(stored, vec![0, 0, 0xdead_beef, 0, 0, 0]);
        assert_eq!(
            b.links[5].iter().map(|l| l.id).collect::<Vec<_>>(),
            vec![0, 7]
        );
        let bytes = crate::format::encode(crate::format::FileKind::Bundle, &b).unwrap();
        let mut read: Bundle =
            crate::format::decode(crate::format::FileKind::Bundle, "b", &bytes).unwrap();
        read.restore_ids();
        assert_eq!(
            read,
            Bundle {
                derived_ids: true,
                ..original.clone()
            }
        );

        // A real id of 0 that derives to something else: every id is kept.
        let mut zero = original.clone();
        zero.sections[2].id = 0;
        let kept = zero.clone();
        zero.elide_ids();
        assert!(!zero.derived_ids);
        zero.restore_ids();
        assert_eq!(zero, kept);

        // Cards derive ids from `id_key` and the breadcrumb alone. A page whose H1 is its
        // title ("C"): the H1's breadcrumb is the title and its id hashes its heading, so the
        // whole breadcrumb is what it and its children hash (flag 1); "Notes" twice
        // (occurrence 1 → key 2); a breadcrumb that is neither form (its id is stored).
        let cdoc = |doc: u32, path: &str| CardDoc {
            doc,
            path: path.into(),
            url: format!("/{path}"),
            title: "C".into(),
            description: None,
            version: Some("7.5".into()),
        };
        let rec = |doc: u32, depth: u8, crumb: &[&str], id: u64| SectionRecord {
            depth,
            ..section(doc, None, crumb.last().unwrap(), crumb, id)
        };
        let (c, d) = ("7.5/c.md", "7.5/d.md");
        let records = [
            (rec(6, 0, &["C"], id(c, &[], 0)), vec![], 0),
            (rec(6, 1, &["C"], id(c, &["C"], 0)), vec!["C"], 0),
            (
                rec(6, 2, &["C", "Usage"], id(c, &["C", "Usage"], 0)),
                vec!["C", "Usage"],
                0,
            ),
            (
                rec(7, 1, &["D", "Notes"], id(d, &["Notes"], 0)),
                vec!["Notes"],
                0,
            ),
            (
                rec(7, 1, &["D", "Notes"], id(d, &["Notes"], 1)),
                vec!["Notes"],
                1,
            ),
            (
                rec(7, 1, &["D", "Odd"], id(d, &["Other"], 0)),
                vec!["Other"],
                0,
            ),
        ];
        let card = Card {
            first_section: 16,
            docs: vec![cdoc(6, c), cdoc(7, d)],
            sections: records
                .iter()
                .map(|(r, chain, occurrence)| {
                    let chain: Vec<String> = chain.iter().map(|h| h.to_string()).collect();
                    CardSection {
                        record: r.clone(),
                        id_key: CardSection::key_for(r, &chain, *occurrence).unwrap_or(0),
                        text: "# C\n".into(),
                    }
                })
                .collect(),
            link_docs: original.link_docs.clone(),
            links: vec![
                vec![],
                vec![],
                vec![],
                vec![],
                vec![Link {
                    section: 40,
                    id: id("7.4/b.md", &["Notes"], 1),
                    doc: 0,
                    anchor: None,
                }],
                vec![],
            ],
            derived_ids: false,
        };
        assert_eq!(
            card.sections.iter().map(|s| s.id_key).collect::<Vec<_>>(),
            vec![0, 1, 1, 0, 2, 0],
            "occurrence << 1 | whole breadcrumb"
        );
        let mut e = card.clone();
        e.elide_ids();
        assert!(e.derived_ids);
        let stored: Vec<u64> = e.sections.iter().map(|s| s.record.id).collect();
        assert_eq!(stored, vec![0, 0, 0, 0, 0, id(d, &["Other"], 0)]);
        assert_eq!(e.links[4][0].id, 0);
        let bytes = crate::format::encode(FileKind::Card, &e).unwrap();
        let mut read: Card = crate::format::decode(FileKind::Card, "c", &bytes).unwrap();
        read.restore_ids();
        assert_eq!(
            read,
            Card {
                derived_ids: true,
                ..card.clone()
            }
        );
    }

    #[test]
    fn card_names_number_cards_under_the_salt() {
        let salt = 0x0123_4567_89ab_cdef;
        for i in [0, 1, 4095, MAX_CARDS - 1] {
            let name = card_name(salt, i);
            assert!(FileKind::is_hashed_name(&name), "{name}");
            assert_eq!(card_ordinal(salt, &name), Some(i));
            // Another build's card, or another kind's file, is not one of ours.
            assert_eq!(card_ordinal(salt ^ 1, &name), None);
        }
        assert_eq!(card_ordinal(salt, "shard.0000000000000000.bin"), None);
        assert_eq!(card_ordinal(salt, "card.xyz.bin"), None);
        assert_ne!(card_name(salt, 1), card_name(salt ^ (1 << 20), 1));
    }
}
