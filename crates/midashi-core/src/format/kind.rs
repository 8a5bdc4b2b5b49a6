//! What a file holds: the kind tag in every header, and the names each kind's files take.
use super::reader::{Decode, ReadResult, Reader};
use serde::{Deserialize, Serialize};
use std::fmt;
/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FileKind {
    /// The small entry file naming the others.
    Entry,
    /// Term dictionary, postings, field lengths, synonyms.
    Terms,
    /// Section metadata and document sources (previews, `get`).
    Sections,
    /// Section vectors for semantic search.
    Vectors,
    /// The embedding model's encoder, shipped so a browser can embed queries with the model
    /// the vectors were made with: the encoder file (`model.<hash>.bin`, its own header and
    /// CRC; see `midashi_embed::bert`), or in older indexes tract's prepared graph
    /// (`model.<hash>.tar`) or the ONNX itself (`model.<hash>.onnx`). Not framed like the
    /// index files: the manifest's size + content hash in the name pin its bytes.
    Model,
    /// The model's `tokenizer.json` (raw).
    Tokenizer,
    /// The model's `midashi-model.json` (raw JSON: dims, token limit, pooling).
    ModelConfig,
    /// An HNSW graph over the vectors, for large sets (see [`crate::vectors::ann`]).
    Ann,
    /// Sharded layout: what a query needs before it knows its terms — shard and bundle
    /// boundaries, per-document facets, synonyms (see [`crate::layout::sharded`]).
    Directory,
    /// Sharded layout: the dictionary and scored postings of one range of terms.
    Shard,
    /// Sharded layout: a few documents' sources, sections and version links, fetched for
    /// the results shown.
    Bundle,
    /// Sharded layout: every term with its document frequency, for typo corrections.
    Lexicon,
    /// Sharded layout: every section's depth, subtree and family (semantic candidates).
    Tree,
    /// Sharded layout: every document's path (path filters, documents by path).
    Paths,
    /// Sharded layout: what the results shown need of a few consecutive sections (records,
    /// first lines, other versions).
    Card,
    /// A static embedding table: queries' vectors by look-up, no encoder (see
    /// [`crate::vectors::table`]).
    Table,
}

/// The kind tags of earlier minors' directories, bundles and vectors, laid out otherwise, with the
/// format that wrote them (see [`FORMAT_MINOR`]).
pub(crate) const RETIRED_TAGS: [(u8, &str, &str); 9] = [
    (1, "entry file", "1.15 or older"),
    (24, "entry file", "1.16"),
    (4, "vectors file in 8 bits", "1.12"),
    (9, "directory", "1.3"),
    (11, "bundle", "1.3"),
    (16, "directory", "1.4"),
    (18, "directory", "1.5"),
    (19, "directory", "1.6"),
    (20, "directory", "1.7"),
];

impl FileKind {
    pub(crate) fn tag(self) -> u8 {
        match self {
            // A new tag whenever the terms of a text change (1.16: small kana fold; 1.17: a
            // number's bigram with the CJK character it touches): a reader of other terms
            // refuses the entry as a kind it does not know instead of missing words.
            FileKind::Entry => 25,
            FileKind::Terms => 2,
            FileKind::Sections => 3,
            FileKind::Vectors => 22,
            FileKind::Model => 5,
            FileKind::Tokenizer => 6,
            FileKind::ModelConfig => 7,
            FileKind::Ann => 8,
            FileKind::Directory => 21,
            FileKind::Shard => 10,
            FileKind::Bundle => 15,
            FileKind::Lexicon => 12,
            FileKind::Tree => 13,
            FileKind::Paths => 14,
            FileKind::Card => 17,
            FileKind::Table => 23,
        }
    }

    pub(crate) fn from_tag(tag: u8) -> Option<Self> {
        Some(match tag {
            25 => FileKind::Entry,
            2 => FileKind::Terms,
            3 => FileKind::Sections,
            22 => FileKind::Vectors,
            5 => FileKind::Model,
            6 => FileKind::Tokenizer,
            7 => FileKind::ModelConfig,
            8 => FileKind::Ann,
            21 => FileKind::Directory,
            10 => FileKind::Shard,
            15 => FileKind::Bundle,
            12 => FileKind::Lexicon,
            13 => FileKind::Tree,
            14 => FileKind::Paths,
            17 => FileKind::Card,
            23 => FileKind::Table,
            _ => return None,
        })
    }

    /// The stem used in file names (`terms.<hash>.bin`).
    pub fn stem(self) -> &'static str {
        match self {
            FileKind::Entry => "entry",
            FileKind::Terms => "terms",
            FileKind::Sections => "sections",
            FileKind::Vectors => "vectors",
            FileKind::Model => "model",
            FileKind::Tokenizer => "tokenizer",
            FileKind::ModelConfig => "model-config",
            FileKind::Ann => "ann",
            FileKind::Directory => "directory",
            FileKind::Shard => "shard",
            FileKind::Bundle => "bundle",
            FileKind::Lexicon => "lexicon",
            FileKind::Tree => "tree",
            FileKind::Paths => "paths",
            FileKind::Card => "card",
            FileKind::Table => "table",
        }
    }

    /// The extension of its files: `bin` for Midashi's own (header + postcard, or the
    /// encoder file, `midashi_embed::bert`), `json` for the tokenizer and model configuration
    /// shipped as they are.
    pub fn extension(self) -> &'static str {
        match self {
            FileKind::Model => "bin",
            FileKind::Tokenizer | FileKind::ModelConfig => "json",
            _ => "bin",
        }
    }

    /// The extensions its files may have: [`FileKind::extension`], then any an earlier build
    /// wrote (a model shipped as tract's prepared graph, `tar`, or as ONNX), so such files are
    /// still checked and cleaned up.
    fn extensions(self) -> &'static [&'static str] {
        match self {
            FileKind::Model => &["bin", "tar", "onnx"],
            FileKind::Tokenizer | FileKind::ModelConfig => &["json"],
            _ => &["bin"],
        }
    }

    /// Every kind, in declaration order (the payload reader numbers them by it).
    pub const ALL: [FileKind; 16] = [
        FileKind::Entry,
        FileKind::Terms,
        FileKind::Sections,
        FileKind::Vectors,
        FileKind::Model,
        FileKind::Tokenizer,
        FileKind::ModelConfig,
        FileKind::Ann,
        FileKind::Directory,
        FileKind::Shard,
        FileKind::Bundle,
        FileKind::Lexicon,
        FileKind::Tree,
        FileKind::Paths,
        FileKind::Card,
        FileKind::Table,
    ];

    /// The file name of content `bytes`: `<stem>.<16 hex>.<extension>`.
    pub fn hashed_name(self, bytes: &[u8]) -> String {
        self.name_for_hash(content_hash(bytes))
    }

    /// The file name of content whose [`content_hash`] is `hash`: `<stem>.<16 hex>.<extension>`
    /// (a sharded index's directory names its thousands of files by hash alone).
    pub fn name_for_hash(self, hash: u64) -> String {
        format!("{}.{hash:016x}.{}", self.stem(), self.extension())
    }

    /// Whether a file of this kind is named by the hash of its content
    /// ([`FileKind::hashed_name`]): then a file whose bytes do not hash to its name is not the
    /// file the entry or the directory meant, though it may be a valid file of the kind (a
    /// shard is named by its first term, a card by its number, so they are checked
    /// otherwise).
    pub fn named_by_content(self) -> bool {
        matches!(
            self,
            FileKind::Terms
                | FileKind::Sections
                | FileKind::Vectors
                | FileKind::Ann
                | FileKind::Directory
                | FileKind::Lexicon
                | FileKind::Tree
                | FileKind::Paths
                | FileKind::Model
                | FileKind::Tokenizer
                | FileKind::ModelConfig
                | FileKind::Table
        )
    }

    /// False when `name` carries a content hash of this kind and `bytes` do not hash to it;
    /// true otherwise (a name without one, as in tests, is not checked).
    pub fn content_matches_name(self, name: &str, bytes: &[u8]) -> bool {
        if !self.named_by_content() {
            return true;
        }
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        match self.hash_of_name(base) {
            Some(hash) => content_hash(bytes) == hash,
            None => true,
        }
    }

    /// The hash in `name` if it is a file name of this kind (`<stem>.<16 hex>.<extension>`).
    pub fn hash_of_name(self, name: &str) -> Option<u64> {
        let rest = name.strip_prefix(self.stem())?.strip_prefix('.')?;
        let hex = self
            .extensions()
            .iter()
            .find_map(|ext| rest.strip_suffix(ext)?.strip_suffix('.'))?;
        (hex.len() == 16)
            .then(|| u64::from_str_radix(hex, 16).ok())
            .flatten()
    }

    /// Whether `name` is a content-hashed file name of some kind (what a build may remove
    /// when a new build no longer names it).
    pub fn is_hashed_name(name: &str) -> bool {
        let mut parts = name.splitn(3, '.');
        let (Some(stem), Some(hash), Some(ext)) = (parts.next(), parts.next(), parts.next()) else {
            return false;
        };
        hash.len() == 16
            && hash.bytes().all(|b| b.is_ascii_hexdigit())
            && FileKind::ALL
                .iter()
                .any(|k| *k != FileKind::Entry && k.stem() == stem && k.extensions().contains(&ext))
    }
}

/// A short content hash (16 hex digits) used to name immutable files, so CDNs may cache
/// them forever and a rebuilt index never mixes old and new files.
pub fn content_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.stem())
    }
}

/// A unit variant: its index in declaration order, which [`FileKind::ALL`] follows.
impl Decode for FileKind {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(FileKind::ALL[r.variant(FileKind::ALL.len() as u32)? as usize])
    }
}
