//! Lists the directory stores column by column rather than row by row: every first query
//! loads the directory, and columns of small, repeating numbers compress far better.

use super::names::ShardRef;
use crate::format::reader::{Decode, ReadError, ReadResult, Reader};
use crate::section::Hints;
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
    use crate::layout::sharded::names::{starts_group, ShardRef, GROUP_HASH_BYTES};
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

/// Filterable facts of a document, as indices into [`super::files::Directory::strings`] (written by
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

// Readers of the directory's columns (see `super::files::Directory`).

/// The directory's shard list, column by column (see `shards::shard_columns`).
pub(super) fn read_shard_columns(r: &mut Reader<'_>) -> ReadResult<Vec<ShardRef>> {
    shard_columns::Columns {
        first_terms: Decode::decode(r)?,
        groups: r.bytes()?,
    }
    .rows()
    .ok_or(ReadError("the shard groups do not match the shards"))
}

/// The directory's facets, column by column (see `shards::facet_columns`).
pub(super) fn read_facet_columns(r: &mut Reader<'_>) -> ReadResult<Vec<Facets>> {
    facet_columns::Columns {
        sections: Decode::decode(r)?,
        version: Decode::decode(r)?,
        lang: Decode::decode(r)?,
        category: Decode::decode(r)?,
        tags: Decode::decode(r)?,
    }
    .rows()
    .ok_or(ReadError("the facet columns differ in length"))
}
