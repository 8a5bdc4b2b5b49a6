//! The sharded layout: a large site's index in many small files, so a browser fetches only
//! what a query reads.
//!
//! A single-file index ships every posting and every document to the first query (on the
//! PowerShell docs, 69k sections: 11.6 MB gzip). The sharded layout splits it:
//!
//! | file | holds | fetched |
//! |---|---|---|
//! | directory | shard and bundle boundaries, per-document facets, synonyms, versions | at load |
//! | shard × N | one term range: its dictionary and *scored* postings | for the query's words |
//! | bundle × M | a few documents: source, sections, other-version links | for the results shown |
//! | lexicon | every term with its document frequency | only to correct a typo |
//! | tree | every section's depth/subtree/family | semantic leg |
//! | paths | every document's path | path filter, documents by path |
//!
//! Two round trips before the first result: the shards of the query's words (and of the
//! word being typed, as a prefix range), then the bundles of the page of results.
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

use crate::index::postings::{read_varint, write_varint};
use crate::index::{DocRecord, SectionRecord};
use crate::search::VersionLink;
use crate::section::Hints;
use serde::{Deserialize, Serialize};

/// One shard, as the directory names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRef {
    /// Its first term (shards cover consecutive ranges of the sorted dictionary).
    pub first_term: String,
    /// Content hash: the file is `shard.<hash as 16 hex digits>.bin`. (Eight bytes, not the
    /// 27-byte name: a large site's directory names thousands of files, and every query
    /// loads it.)
    pub hash: u64,
}

/// One bundle, as the directory names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleRef {
    /// Ordinal of its first document (bundles cover consecutive documents).
    pub first_doc: u32,
    /// Content hash: the file is `bundle.<hash as 16 hex digits>.bin`.
    pub hash: u64,
}

/// Filterable facts of a document, as indices into [`Directory::strings`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// Term shards, in term order.
    pub shards: Vec<ShardRef>,
    /// Document bundles, in document order.
    pub bundles: Vec<BundleRef>,
    /// File name of the lexicon.
    pub lexicon: String,
    /// File name of the tree.
    pub tree: String,
    /// File name of the paths.
    pub paths: String,
    /// One entry per document.
    pub docs: Vec<Facets>,
    /// Interned facet values.
    pub strings: Vec<String>,
    /// A versioned site's versions, newest first (empty otherwise).
    pub versions: Vec<String>,
    /// Synonym groups, each member already analyzed into terms.
    pub synonyms: Vec<Vec<Vec<String>>>,
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
}

/// The payload of a bundle file: consecutive documents with their sections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bundle {
    /// Ordinal of the first document.
    pub first_doc: u32,
    /// The documents (`first_section` is the global ordinal).
    pub docs: Vec<DocRecord>,
    /// Their sections, in order, from `docs[0].first_section`.
    pub sections: Vec<SectionRecord>,
    /// The documents the links point into: version and page URL.
    pub link_docs: Vec<(String, String)>,
    /// Per section: the same section in the site's other versions, for the
    /// `other_versions` of a collapsed result.
    pub links: Vec<Vec<Link>>,
}

/// The same section in another version, compactly: a bundle's links repeat a handful of
/// pages and mostly the section's own anchor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Its section ordinal.
    pub section: u32,
    /// Its section id.
    pub id: u64,
    /// Index into [`Bundle::link_docs`].
    pub doc: u32,
    /// Its anchor: `None` when it is the linking section's own, else `Some(anchor)`.
    pub anchor: Option<Option<String>>,
}

impl Bundle {
    /// The [`VersionLink`] of `link`, made from a section whose own anchor is `own_anchor`.
    pub fn version_link(&self, link: &Link, own_anchor: Option<&str>) -> Option<VersionLink> {
        let (version, url) = self.link_docs.get(link.doc as usize)?;
        let anchor = match &link.anchor {
            None => own_anchor,
            Some(a) => a.as_deref(),
        };
        Some(VersionLink::new(version.clone(), link.id, url, anchor))
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
/// count × score byte 3, count × byte 2, count × byte 1, count × byte 0   (f32 LE, by plane)
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
    for plane in (0..4).rev() {
        out.extend(postings.iter().map(|p| p.score.to_le_bytes()[plane]));
    }
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

/// Reads a scored list at `offset`: its df and postings; `None` if the bytes are malformed.
pub fn read_scored_list(
    buf: &[u8],
    offset: usize,
    versioned: bool,
) -> Option<(u64, Vec<ScoredPosting>)> {
    let mut pos = offset;
    let df = read_varint(buf, &mut pos)?;
    let count = usize::try_from(read_varint(buf, &mut pos)?).ok()?;
    // Each posting takes at least 6 bytes: a damaged count cannot make us allocate much.
    if count > buf.len().saturating_sub(pos) / 6 + 1 {
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
    let planes = buf.get(pos..pos.checked_add(count.checked_mul(4)?)?)?;
    pos += 4 * count;
    for (i, p) in out.iter_mut().enumerate() {
        let b = |plane: usize| planes[(3 - plane) * count + i];
        p.score = f32::from_le_bytes([b(0), b(1), b(2), b(3)]);
    }
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
}
