//! How a sharded index's files are named: bundles by a short content hash, shards by
//! their first term and group, cards by a salt and their ordinal — and the posting
//! references that point into shards.
use crate::format::kind::content_hash;
use crate::format::kind::FileKind;
/// Bytes of content hash in a bundle's name (unique within a build: the writer resolves the
/// rare clash). Shards are named otherwise: see `columns::shard_columns`.
pub const NAME_HASH_BYTES: usize = 5;
/// The bits of a hash that [`NAME_HASH_BYTES`] keep.
pub const NAME_HASH_MASK: u64 = (1 << (8 * NAME_HASH_BYTES)) - 1;

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

/// One shard, as the directory names it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardRef {
    /// Its first term (shards cover consecutive ranges of the sorted dictionary).
    pub first_term: String,
    /// Its group's hash ([`GROUP_HASH_BYTES`] bytes; see `columns::shard_columns`).
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
/// One shard in this many, on average, starts a group (see `columns::shard_columns`).
pub const SHARDS_PER_GROUP: u64 = 4;

/// Whether shard `i`, whose first term is `first_term`, starts a group: the first shard
/// does, and so does each whose first term hashes to a multiple of [`SHARDS_PER_GROUP`].
/// Boundaries drawn by the terms, not by counting, stay where they are when a shard is
/// split or merged elsewhere, so one edited page renames only the groups it touches.
pub fn starts_group(i: usize, first_term: &str) -> bool {
    i == 0 || content_hash(first_term.as_bytes()) % SHARDS_PER_GROUP == 0
}

/// Bits of a card's name that number it (the rest are [`Directory::cards_salt`]).
const CARD_ORDINAL_BITS: u32 = 24;
/// Most cards an index may have (2²⁴ × 4 sections is far beyond any docs site).
pub const MAX_CARDS: u32 = 1 << CARD_ORDINAL_BITS;

/// The file name of card `i`: `card.<16 hex>.bin`, the low `CARD_ORDINAL_BITS` bits its
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

/// A posting reference of the sharded layout: which shard, and where in it.
pub(crate) fn shard_ref(shard: u32, offset: u64) -> u64 {
    u64::from(shard) << 32 | (offset & 0xffff_ffff)
}

/// The shard and offset of a reference made by [`shard_ref`].
pub(crate) fn split_ref(reference: u64) -> (u32, u64) {
    ((reference >> 32) as u32, reference & 0xffff_ffff)
}
