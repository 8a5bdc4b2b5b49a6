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
//! score the single-file index computes at query time ([`crate::rank::bm25::Bm25f`], the same
//! function and inputs, so the same `f32`) together with what ranking needs of its section
//! — depth, subtree size (for grouping: descendants are the next `subtree` ordinals),
//! version family, and for terms of the heading the facts of the exact-heading lift — so a
//! query ranks every candidate without any per-section table. Typo corrections read the
//! lexicon, which walks the same terms in the same order as the single-file dictionary.
//!
//! [`write()`] turns a built index into these files; [`Sharded`] reads them.

pub mod columns;
pub mod files;
mod fits;
pub mod ids;
#[cfg(test)]
mod ids_tests;
pub mod lexicon;
pub mod links;
mod lists;
mod lookups;
pub mod names;
mod optional;
pub mod rank;
pub mod read;
pub mod scores;
#[cfg(test)]
mod tests;
pub mod write;

pub use columns::Facets;
pub use files::{
    Bundle, BundleRef, Card, CardDoc, CardSection, Directory, Lexicon, Paths, Shard, Tree,
};
pub use links::{Link, LinkDoc};
pub use names::{card_name, card_ordinal, starts_group, ShardRef, MAX_CARDS, NAME_HASH_BYTES};
pub use read::{FileSource, Sharded, KEEP_LOADED};
pub use scores::{
    read_scored_list, read_sections, write_scored_list, write_sections, ScoredPosting,
};
pub use write::{write, ShardedFiles};
