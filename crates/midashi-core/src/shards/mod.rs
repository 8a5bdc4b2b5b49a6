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
use crate::section::{Hints, SectionId};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Bytes of content hash in a shard's or bundle's name (unique within a build: the writer
/// resolves the rare clash).
pub const NAME_HASH_BYTES: usize = 5;

/// A name hash as [`NAME_HASH_BYTES`] raw bytes (a varint `u64` would take up to ten).
mod name_hash {
    use super::NAME_HASH_BYTES;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(hash: &u64, s: S) -> Result<S::Ok, S::Error> {
        let mut b = [0u8; NAME_HASH_BYTES];
        b.copy_from_slice(&hash.to_le_bytes()[..NAME_HASH_BYTES]);
        b.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let b = <[u8; NAME_HASH_BYTES]>::deserialize(d)?;
        let mut full = [0u8; 8];
        full[..NAME_HASH_BYTES].copy_from_slice(&b);
        Ok(u64::from_le_bytes(full))
    }
}

/// One shard, as the directory names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRef {
    /// Its first term (shards cover consecutive ranges of the sorted dictionary).
    pub first_term: String,
    /// Content hash, [`NAME_HASH_BYTES`] long: the file is `shard.<hash as 16 hex
    /// digits>.bin`. (Five bytes, not the 27-byte name: a large site's directory names
    /// thousands of files, and every query loads it.)
    #[serde(with = "name_hash")]
    pub hash: u64,
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
    /// The [`VersionLink`] of `link`, made from a section whose own anchor is `own_anchor`.
    pub fn version_link(&self, link: &Link, own_anchor: Option<&str>) -> Option<VersionLink> {
        let doc = self.link_docs.get(link.doc as usize)?;
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

    /// Per section, what its id derives from: its headings from the document's first level
    /// down (its parent's, then its own: what the builder hashes, which is not the
    /// breadcrumb when a page's H1 stands in for its title) and how many earlier sections
    /// of its document have the same ones. `None` for a section whose document or parent
    /// is not in the bundle (a damaged file).
    fn id_keys(&self) -> Vec<Option<(&str, Vec<String>, u32)>> {
        let first = self.docs.first().map_or(0, |d| d.first_section);
        let mut paths: Vec<Option<Vec<String>>> = Vec::with_capacity(self.sections.len());
        let mut seen: HashMap<(u32, Vec<String>), u32> = HashMap::new();
        let mut keys = Vec::with_capacity(self.sections.len());
        for (i, s) in self.sections.iter().enumerate() {
            let headings = match s.parent {
                None => Some(Vec::new()),
                Some(p) => (p.wrapping_sub(first) as usize)
                    .lt(&i)
                    .then(|| paths[p.wrapping_sub(first) as usize].clone())
                    .flatten()
                    .map(|mut h| {
                        h.push(s.heading.clone());
                        h
                    }),
            };
            let doc = self.docs.get(s.doc.wrapping_sub(self.first_doc) as usize);
            keys.push(doc.zip(headings.clone()).map(|(doc, headings)| {
                let occurrence = seen.entry((s.doc, headings.clone())).or_insert(0);
                *occurrence += 1;
                (doc.path.as_str(), headings, *occurrence - 1)
            }));
            paths.push(headings);
        }
        keys
    }

    /// The ids [`Bundle::restore_ids`] would derive: (own, per link).
    fn derived(&self) -> Vec<(u64, Vec<u64>)> {
        self.id_keys()
            .into_iter()
            .zip(&self.links)
            .map(|(key, links)| match key {
                None => (0, vec![0; links.len()]),
                Some((path, headings, occurrence)) => (
                    SectionId::new(path, &headings, occurrence).0,
                    links
                        .iter()
                        .map(|l| {
                            self.link_docs
                                .get(l.doc as usize)
                                .map_or(0, |d| SectionId::new(&d.path, &headings, occurrence).0)
                        })
                        .collect(),
                ),
            })
            .collect()
    }

    /// Replaces every id the reader can derive by 0 (before writing).
    pub fn elide_ids(&mut self) {
        let derived = self.derived();
        let ids = self.sections.iter().map(|s| s.id);
        let link_ids = self.links.iter().flatten().map(|l| l.id);
        let own = derived.iter().map(|d| d.0);
        let theirs = derived.iter().flat_map(|d| d.1.iter().copied());
        // A real id of 0 that derives to something else cannot be told from "derive it".
        self.derived_ids = !ids
            .zip(own)
            .chain(link_ids.zip(theirs))
            .any(|(id, d)| id == 0 && d != 0);
        if self.derived_ids {
            self.replace_ids(derived, |id, d| if id == d { 0 } else { id });
        }
    }

    /// Puts back the ids [`Bundle::elide_ids`] left out (after reading).
    pub fn restore_ids(&mut self) {
        if self.derived_ids {
            let derived = self.derived();
            self.replace_ids(derived, |id, d| if id == 0 { d } else { id });
        }
    }

    /// Sets every id (own and linked) to `f(stored, derived)`: the one walk both directions share.
    fn replace_ids(&mut self, derived: Vec<(u64, Vec<u64>)>, f: impl Fn(u64, u64) -> u64) {
        for ((s, links), (own, theirs)) in
            self.sections.iter_mut().zip(&mut self.links).zip(derived)
        {
            s.id = f(s.id, own);
            for (l, d) in links.iter_mut().zip(theirs) {
                l.id = f(l.id, d);
            }
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
    }
}
