//! From a built single-file index (terms and sections payloads) to the sharded layout's files.

use super::columns::facets_of;
use super::files::{
    Bundle, BundleRef, Card, CardDoc, CardSection, Directory, Lexicon, Paths, Shard, Tree,
};
use super::links::{Link, LinkDoc};
use super::names::{card_name, shard_ref, ShardRef, GROUP_HASH_BYTES, MAX_CARDS};
use super::scores::{write_scored_list, write_sections, ScoredPosting};
use crate::analyzer::Analyzer;
use crate::answer::version_link;
use crate::error::{Error, Result};
use crate::format::frame::encode;
use crate::format::kind::content_hash;
use crate::format::kind::FileKind;
use crate::layout::single::postings::ListReader;
use crate::layout::single::TermsData;
use crate::rank::bm25::Bm25f;
use crate::rank::grouping::section_facts;
use crate::rank::headings::{heading_shape, is_site_word, Shape};
use crate::rank::pipeline::SectionFacts;
use crate::rank::versions::Families;
use crate::section::records::{line_starts, lines_of, SectionsData};
use fst::Streamer;
use std::collections::{HashMap, HashSet};

/// Bytes of postings after which a shard is closed. Small, because a query fetches whole
/// shards and uses one list of each: at 16 KB a rare word costs ~2.5 KB gzip, and a common
/// word's list is a shard of its own whatever this says.
const SHARD_BYTES: usize = 16 * 1024;
/// Compressed bytes of postings (each list deflated on its own) after which a shard is
/// closed. Why a second limit: 16 KB of the long lists of English words gzip to ~2 KB, but
/// 16 KB of the short lists of Japanese bigrams (each a few random section numbers) gzip to
/// ~9 KB, so a CJK query, whose six bigrams sit in up to six shards, fetched four times
/// the bytes of an English one. Deflating each list is what a browser's gzip will do to it,
/// give or take the context lists share. 3 KB, not 4, since scores take a byte each (format
/// 1.8): with lists lighter a shard held more neighbours of the words asked for, and ten
/// powershell-docs queries' index bytes sum to 267 KB at 3 KB against 281 at 4 (2 KB: 276;
/// the 141k-section mix's twelve: 299 against 303).
const SHARD_DEFLATED: usize = 3 * 1024;
/// Bytes of document source after which a bundle is closed. A page of ten results fetches
/// up to ten bundles; most documentation pages are larger than this on their own.
const BUNDLE_BYTES: usize = 8 * 1024;
/// Sections per card. A result fetches its card: eight sections' records and first lines
/// were ~1 KB gzip (a bundle is ~6 KB); four are ~0.6 KB, and the five results a widget
/// shows first rarely share a card either way, so four took 1–3 KB off every first query
/// on the 141k-section mix. Fewer still would pay a file header and a request per section.
const CARD_SECTIONS: u32 = 4;
/// Lines of each section a card holds at least (previews: the widget shows 3, the JS API's
/// default is 5); its own text follows, up to `answer::hit::CARD_OWN_TEXT_BYTES` (excerpts).
const CARD_LINES: u32 = 5;

/// The files of a sharded index, each already framed (header + payload) and named by its
/// content hash.
#[derive(Debug)]
pub struct ShardedFiles {
    /// The directory (named in the entry file; loaded with it).
    pub directory: (String, Vec<u8>),
    /// The lexicon.
    pub lexicon: (String, Vec<u8>),
    /// The tree.
    pub tree: (String, Vec<u8>),
    /// The paths.
    pub paths: (String, Vec<u8>),
    /// Term shards, in term order.
    pub shards: Vec<(String, Vec<u8>)>,
    /// Document bundles, in document order.
    pub bundles: Vec<(String, Vec<u8>)>,
    /// Cards, in section order.
    pub cards: Vec<(String, Vec<u8>)>,
}

fn named(kind: FileKind, bytes: Vec<u8>) -> (String, Vec<u8>) {
    (kind.hashed_name(&bytes), bytes)
}

fn malformed(detail: impl Into<String>) -> Error {
    Error::Malformed {
        file: "terms".into(),
        detail: detail.into(),
    }
}

/// Short content hashes for bundle names, unique within the build.
///
/// The paths file names every bundle, and 8-byte hashes would be incompressible bytes of it.
/// [`super::NAME_HASH_BYTES`] bytes keep a changed file's name changing (a stale cache entry
/// under the same name has a 2⁻⁴⁰ chance); two files of one build that happen to share a
/// short hash are told apart by taking the next free value, in file order, so the names
/// stay deterministic.
#[derive(Default)]
struct ShortNames(HashSet<u64>);

impl ShortNames {
    fn hash(&mut self, bytes: &[u8]) -> u64 {
        let mask = (1u64 << (8 * super::NAME_HASH_BYTES)) - 1;
        let mut h = content_hash(bytes) & mask;
        while !self.0.insert(h) {
            h = (h + 1) & mask;
        }
        h
    }
}

/// Gives each shard its group's hash (see [`super::shard_columns`]), stamped into the shard
/// too ([`Shard::group`]), and returns the shards' bytes with their file names.
fn name_shards(refs: &mut [ShardRef], mut shards: Vec<Shard>) -> Result<Vec<(String, Vec<u8>)>> {
    // Hashed unstamped, so that a stamp does not change the hash it records.
    let unstamped = shards
        .iter()
        .map(|s| encode(FileKind::Shard, s))
        .collect::<Result<Vec<_>>>()?;
    let mut start = 0;
    while start < refs.len() {
        let end = (start + 1..refs.len())
            .find(|&i| super::starts_group(i, &refs[i].first_term))
            .unwrap_or(refs.len());
        let contents: Vec<u8> = unstamped[start..end]
            .iter()
            .flat_map(|bytes| content_hash(bytes).to_le_bytes())
            .collect();
        let group = (content_hash(&contents) & ((1 << (8 * GROUP_HASH_BYTES)) - 1)) as u32;
        for (r, s) in refs[start..end].iter_mut().zip(&mut shards[start..end]) {
            r.group = group;
            s.group = group;
        }
        start = end;
    }
    let mut seen = HashSet::new();
    refs.iter()
        .zip(shards)
        .map(|(r, shard)| {
            let hash = r.name_hash();
            if !seen.insert(hash) {
                // Two distinct first terms hashing alike in 64 bits: not seen in practice.
                return Err(malformed(format!(
                    "two shards would share the name hash {hash:016x}; please report this"
                )));
            }
            Ok((
                FileKind::Shard.name_for_hash(hash),
                encode(FileKind::Shard, &shard)?,
            ))
        })
        .collect()
}

/// The other-version links of sections `range`, and the documents they point into.
fn links_of(
    sections: &SectionsData,
    facts: &[SectionFacts],
    members: &HashMap<u32, Vec<u32>>,
    range: std::ops::Range<usize>,
) -> (Vec<LinkDoc>, Vec<Vec<Link>>) {
    let first = range.start;
    let last = range.end;
    let mut link_docs: Vec<LinkDoc> = Vec::new();
    let mut links = Vec::with_capacity(last - first);
    for (s, (own, own_facts)) in sections.sections[first..last]
        .iter()
        .zip(&facts[first..last])
        .enumerate()
    {
        let s = first + s;
        let mut out = Vec::new();
        for &o in own_facts
            .family
            .and_then(|f| members.get(&f))
            .map_or(&[][..], Vec::as_slice)
        {
            if o as usize == s {
                continue;
            }
            let sec = &sections.sections[o as usize];
            let doc = &sections.docs[sec.doc as usize];
            let v = version_link(sec, doc);
            let key = LinkDoc {
                version: v.version,
                url: doc.url.clone(),
                path: doc.path.clone(),
            };
            let at = match link_docs.iter().position(|d| *d == key) {
                Some(i) => i,
                None => {
                    link_docs.push(key);
                    link_docs.len() - 1
                }
            };
            out.push(Link {
                section: o,
                id: sec.id,
                doc: at as u32,
                anchor: (sec.anchor != own.anchor).then(|| sec.anchor.clone()),
            });
        }
        links.push(out);
    }
    (link_docs, links)
}

/// Splits a built index into the sharded layout's files.
pub fn write(terms: &TermsData, sections: &SectionsData) -> Result<ShardedFiles> {
    let n = sections.sections.len() as u32;
    let families = Families::new(sections);
    let versioned = families.is_some();
    let facts = section_facts(sections, families.as_ref(), &terms.field_lengths);
    let scorer = Bm25f::new(
        terms.weights,
        terms.avg_len,
        &terms.field_lengths,
        &terms.section_weights,
    );
    let map = fst::Map::new(terms.fst.clone()).map_err(|e| malformed(e.to_string()))?;
    // The site's words leave the headings' shapes as the readers' `Ranking::site_word` does.
    let site_word = |t: &str| {
        map.get(t)
            .and_then(|offset| ListReader::open(&terms.postings, offset as usize))
            .is_some_and(|list| is_site_word(list.df, sections.sections.len()))
    };

    // The heading terms and shape of every section, the way the exact-heading lift computes
    // them.
    let mut heading_of: HashMap<String, Vec<u32>> = HashMap::new();
    let mut shapes: Vec<Shape> = Vec::with_capacity(sections.sections.len());
    for (s, sec) in sections.sections.iter().enumerate() {
        // By its page's language's rules, as its terms were made.
        let lang = sections
            .docs
            .get(sec.doc as usize)
            .and_then(|d| d.hints.lang.as_deref());
        let analyzer = Analyzer::for_tag(lang);
        let (have, shape) = heading_shape(&analyzer, &sec.heading, site_word);
        shapes.push(shape);
        for t in have {
            heading_of.entry(t).or_default().push(s as u32);
        }
    }

    let mut shards: Vec<Shard> = Vec::new();
    let mut shard_refs: Vec<ShardRef> = Vec::new();
    let mut lexicon_fst = fst::MapBuilder::memory();
    let mut lexicon_refs = Vec::new();
    let mut lexicon_dfs = Vec::new();
    let mut lexicon_surfaces = Vec::new();

    struct Open {
        first_term: String,
        fst: fst::MapBuilder<Vec<u8>>,
        lists: Vec<u8>,
        /// The lists' deflated sizes, summed.
        deflated: usize,
        surfaces: Vec<(u64, String)>,
        /// The bare sections among the lists' (unsorted, repeated).
        bare: Vec<u32>,
    }
    // Shards are named once all are written: a name hashes its group's contents.
    let close = |open: Open, shards: &mut Vec<Shard>, refs: &mut Vec<ShardRef>| -> Result<()> {
        let shard = Shard {
            fst: open
                .fst
                .into_inner()
                .map_err(|e| malformed(e.to_string()))?,
            lists: open.lists,
            surfaces: open.surfaces,
            bare: {
                let mut bare = open.bare;
                bare.sort_unstable();
                bare.dedup();
                write_sections(&bare)
            },
            group: 0,
        };
        shards.push(shard);
        refs.push(ShardRef {
            first_term: open.first_term,
            group: 0,
        });
        Ok(())
    };

    let mut open: Option<Open> = None;
    // The last term written, for the next shard's separator.
    let mut previous = String::new();
    let mut stream = map.stream();
    let mut ordinal = 0u64;
    while let Some((key, offset)) = stream.next() {
        let term = std::str::from_utf8(key).map_err(|e| malformed(e.to_string()))?;
        let list = ListReader::open(&terms.postings, offset as usize)
            .ok_or_else(|| malformed(format!("posting list of {term:?}")))?;
        let (idf, df) = (list.idf, list.df);
        let flagged: HashMap<u32, (u32, u32)> = heading_of
            .remove(term)
            .unwrap_or_default()
            .into_iter()
            .map(|s| (s, (shapes[s as usize].len, shapes[s as usize].count)))
            .collect();
        let mut postings: Vec<ScoredPosting> = Vec::with_capacity(df as usize);
        for p in list {
            postings.push(ScoredPosting {
                section: p.section,
                score: scorer.score(idf, p.section, &p.tf),
                facts: facts[p.section as usize],
                heading: flagged.get(&p.section).copied(),
            });
        }
        // Heading terms the section's indexed text lacks: a zero-score posting carries the
        // flag (adding 0.0 changes no sum).
        let mut extra: Vec<ScoredPosting> = flagged
            .iter()
            .filter(|(&s, _)| postings.binary_search_by_key(&s, |p| p.section).is_err())
            .map(|(&s, &shape)| ScoredPosting {
                section: s,
                score: 0.0,
                facts: facts[s as usize],
                heading: Some(shape),
            })
            .collect();
        if !extra.is_empty() {
            postings.append(&mut extra);
            postings.sort_by_key(|p| p.section);
        }
        let mut list_bytes = Vec::new();
        write_scored_list(&mut list_bytes, df, versioned, &postings);

        // A list past the raw limit closes its shard whatever it deflates to: not deflated
        // (common words' lists are most of the postings' bytes).
        let deflated = if list_bytes.len() > SHARD_BYTES {
            SHARD_DEFLATED
        } else {
            miniz_oxide::deflate::compress_to_vec(&list_bytes, 6).len()
        };
        if open.as_ref().is_some_and(|o| {
            !o.lists.is_empty()
                && (o.lists.len() + list_bytes.len() > SHARD_BYTES
                    || o.deflated + deflated > SHARD_DEFLATED)
        }) {
            close(open.take().expect("checked"), &mut shards, &mut shard_refs)?;
        }
        let first = shard_refs.is_empty();
        let o = open.get_or_insert_with(|| Open {
            first_term: if first {
                String::new()
            } else {
                separator(&previous, term).to_string()
            },
            fst: fst::MapBuilder::memory(),
            lists: Vec::new(),
            deflated: 0,
            surfaces: Vec::new(),
            bare: Vec::new(),
        });
        o.bare
            .extend(postings.iter().filter(|p| p.facts.bare).map(|p| p.section));
        o.deflated += deflated;
        let local = o.lists.len() as u64;
        o.fst
            .insert(key, local)
            .map_err(|e| malformed(e.to_string()))?;
        o.lists.extend_from_slice(&list_bytes);
        if let Ok(i) = terms.surfaces.binary_search_by_key(&offset, |(o, _)| *o) {
            o.surfaces.push((local, terms.surfaces[i].1.clone()));
            lexicon_surfaces.push((ordinal, terms.surfaces[i].1.clone()));
        }
        lexicon_fst
            .insert(key, ordinal)
            .map_err(|e| malformed(e.to_string()))?;
        lexicon_refs.push(shard_ref(shard_refs.len() as u32, local));
        lexicon_dfs.push(u32::try_from(df).unwrap_or(u32::MAX));
        ordinal += 1;
        previous.clear();
        previous.push_str(term);
    }
    if let Some(o) = open.take() {
        close(o, &mut shards, &mut shard_refs)?;
    }
    let shards = name_shards(&mut shard_refs, shards)?;
    let lexicon = Lexicon {
        fst: lexicon_fst
            .into_inner()
            .map_err(|e| malformed(e.to_string()))?,
        refs: lexicon_refs,
        dfs: lexicon_dfs,
        surfaces: lexicon_surfaces,
    };
    let lexicon = named(FileKind::Lexicon, encode(FileKind::Lexicon, &lexicon)?);

    // Other-version links per section, from the family members.
    let mut members: HashMap<u32, Vec<u32>> = HashMap::new();
    for (s, f) in facts.iter().enumerate() {
        if let Some(f) = f.family {
            members.entry(f).or_default().push(s as u32);
        }
    }

    let mut bundles = Vec::new();
    let mut bundle_refs = Vec::new();
    // Per section, what its id hashes besides the path (from the bundles, which hold whole
    // documents): the cards derive ids from the same.
    let mut id_keys: Vec<Option<(Vec<String>, u32)>> = Vec::with_capacity(n as usize);
    let mut bundle_names = ShortNames::default();
    let mut start = 0usize;
    while start < sections.docs.len() {
        let mut end = start;
        let mut bytes = 0;
        while end < sections.docs.len() && (end == start || bytes < BUNDLE_BYTES) {
            bytes += sections.docs[end].source.len();
            end += 1;
        }
        let docs = sections.docs[start..end].to_vec();
        let first = docs[0].first_section as usize;
        let last = docs
            .last()
            .map_or(first, |d| (d.first_section + d.section_count) as usize)
            .min(sections.sections.len());
        let secs = sections.sections[first..last].to_vec();
        let (link_docs, links) = links_of(sections, &facts, &members, first..last);
        let mut bundle = Bundle {
            first_doc: start as u32,
            docs,
            sections: secs,
            link_docs,
            links,
            derived_ids: false,
        };
        id_keys.extend(
            bundle
                .id_keys()
                .into_iter()
                .map(|k| k.map(|(_, headings, occurrence)| (headings, occurrence))),
        );
        bundle.elide_ids();
        let bytes = encode(FileKind::Bundle, &bundle)?;
        let hash = bundle_names.hash(&bytes);
        bundle_refs.push(BundleRef {
            first_doc: start as u32,
            hash,
        });
        bundles.push((FileKind::Bundle.name_for_hash(hash), bytes));
        start = end;
    }

    if n.div_ceil(CARD_SECTIONS) > MAX_CARDS || id_keys.len() != n as usize {
        return Err(malformed(
            "too many sections for the sharded layout's cards",
        ));
    }
    let mut card_bytes = Vec::new();
    let mut card_data = Vec::new();
    let mut starts: Option<(u32, Vec<u32>)> = None;
    for first in (0..n).step_by(CARD_SECTIONS as usize) {
        let range = first as usize..(first + CARD_SECTIONS).min(n) as usize;
        let (link_docs, links) = links_of(sections, &facts, &members, range.clone());
        let mut docs: Vec<CardDoc> = Vec::new();
        let mut secs = Vec::with_capacity(range.len());
        for s in range {
            let rec = &sections.sections[s];
            let doc = &sections.docs[rec.doc as usize];
            if docs.last().map(|d| d.doc) != Some(rec.doc) {
                docs.push(CardDoc {
                    doc: rec.doc,
                    path: doc.path.clone(),
                    url: doc.url.clone(),
                    title: doc.title.clone(),
                    description: doc.hints.description.clone(),
                    version: doc.hints.version.clone(),
                });
            }
            if starts.as_ref().map(|(d, _)| *d) != Some(rec.doc) {
                starts = Some((rec.doc, line_starts(&doc.source)));
            }
            // The first lines (previews), and the section's own text after them (excerpts).
            let to = rec
                .start_line
                .saturating_add(CARD_LINES - 1)
                .max(rec.own_end_line)
                .min(rec.end_line);
            let text = lines_of(
                &doc.source,
                &starts.as_ref().expect("set").1,
                rec.start_line,
                to,
            );
            // A section whose id does not derive keeps it stored (elide_ids checks).
            let id_key = id_keys[s]
                .as_ref()
                .and_then(|(chain, occurrence)| CardSection::key_for(rec, chain, *occurrence))
                .unwrap_or(0);
            secs.push(CardSection {
                record: rec.clone(),
                id_key,
                text: crate::answer::hit::card_text(text, CARD_LINES).to_string(),
            });
        }
        let mut card = Card {
            first_section: first,
            docs,
            sections: secs,
            link_docs,
            links,
            derived_ids: false,
            salt: 0,
        };
        card.elide_ids();
        card_bytes.push(encode(FileKind::Card, &card)?);
        card_data.push(card);
    }
    // Every card's name changes when any card does (see `card_name`), and every card
    // carries the salt (hashed unstamped), so that one of another build is refused.
    let cards_salt = content_hash(
        &card_bytes
            .iter()
            .flat_map(|b| content_hash(b).to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    let cards = card_data
        .into_iter()
        .enumerate()
        .map(|(i, mut card)| {
            card.salt = cards_salt & super::names::NAME_HASH_MASK;
            Ok((
                card_name(cards_salt, i as u32),
                encode(FileKind::Card, &card)?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;

    let bare: Vec<u32> = (0..n).filter(|&s| facts[s as usize].bare).collect();
    let tree = Tree {
        facts,
        bare: write_sections(&bare),
    };
    let tree = named(FileKind::Tree, encode(FileKind::Tree, &tree)?);
    let paths = Paths {
        paths: sections.docs.iter().map(|d| d.path.clone()).collect(),
        bundles: bundle_refs,
    };
    let paths = named(FileKind::Paths, encode(FileKind::Paths, &paths)?);

    let mut strings = Vec::new();
    let docs = sections
        .docs
        .iter()
        .map(|d| facets_of(&d.hints, d.section_count, &mut strings))
        .collect();
    let directory = Directory {
        n_sections: n,
        versioned,
        shards: shard_refs,
        lexicon: lexicon.0.clone(),
        tree: tree.0.clone(),
        paths: paths.0.clone(),
        docs,
        strings,
        versions: families
            .as_ref()
            .map_or_else(Vec::new, |f| f.versions().to_vec()),
        synonyms: terms.synonyms.clone(),
        card_sections: CARD_SECTIONS,
        card_lines: CARD_LINES,
        cards_salt,
    };
    let directory = named(
        FileKind::Directory,
        encode(FileKind::Directory, &directory)?,
    );
    Ok(ShardedFiles {
        directory,
        lexicon,
        tree,
        paths,
        shards,
        bundles,
        cards,
    })
}

/// The shortest prefix of `term` that sorts after `previous` (`previous < term`): what the
/// directory stores as a shard's first term. A reader only asks which shard's range holds a
/// word, and the prefix answers that as the whole term does, in fewer bytes: the shard
/// table is most of the directory every first query loads (PowerShell docs: 867 shards).
/// Being a prefix of the real first term, it starts with any query prefix that term
/// starts with, so prefix queries find the shards they span as before.
pub(crate) fn separator<'a>(previous: &str, term: &'a str) -> &'a str {
    term.char_indices()
        .map(|(i, c)| &term[..i + c.len_utf8()])
        .find(|p| *p > previous)
        .unwrap_or(term)
}

#[cfg(test)]
#[path = "write_tests.rs"]
mod short_names;
