//! The single-file layout: the whole keyword index in one terms file beside one sections
//! file ([`crate::section::records::SectionsData`]), both fetched at load.
//!
//! [`TermsData`] holds the term dictionary (an `fst` map from term to the offset of its
//! posting list), the posting lists ([`postings`]), per-section field lengths
//! ([`crate::rank::fields`]), display forms of stemmed terms and the synonym groups. The
//! builder makes it for every index; the sharded writer reads it to cut shards, so only its
//! query side ([`search`]) is optional.
pub mod dictionary;
pub mod postings;
#[cfg(feature = "single-file")]
pub mod search;

use crate::format::reader::{Decode, ReadResult, Reader};
use crate::rank::fields::{FieldWeights, NUM_FIELDS};
use serde::{Deserialize, Serialize};
/// The payload of the terms file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermsData {
    /// Sections indexed (all depths).
    pub n_sections: u32,
    /// BM25F parameters the index was built for.
    pub weights: FieldWeights,
    /// Average length (in terms) of each field over all sections.
    pub avg_len: [f32; NUM_FIELDS],
    /// `fst::Map` bytes: term → byte offset of its posting list in `postings`.
    #[serde(with = "serde_bytes")]
    pub fst: Vec<u8>,
    /// All posting lists (see [`postings`]).
    #[serde(with = "serde_bytes")]
    pub postings: Vec<u8>,
    /// Field lengths, `NUM_FIELDS` little-endian u16 per section (saturating).
    #[serde(with = "serde_bytes")]
    pub field_lengths: Vec<u8>,
    /// For stemmed terms: the most frequent word that produced them (`configur` →
    /// `configuration`), sorted by posting offset; used for suggestions and completions.
    pub surfaces: Vec<(u64, String)>,
    /// Synonym groups, each member already analyzed into terms.
    pub synonyms: Vec<Vec<Vec<String>>>,
    /// Page weights per section in sixteenths (`section::weight_byte`); empty when every page
    /// weighs 1 (format 1.9; a 1.8 file has none).
    #[serde(with = "serde_bytes")]
    pub section_weights: Vec<u8>,
}

impl Decode for TermsData {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(TermsData {
            n_sections: r.u32()?,
            weights: Decode::decode(r)?,
            avg_len: Decode::decode(r)?,
            fst: r.bytes()?,
            postings: r.bytes()?,
            field_lengths: r.bytes()?,
            surfaces: Decode::decode(r)?,
            synonyms: Decode::decode(r)?,
            // Appended in 1.9: absent from older files.
            section_weights: if r.remaining() > 0 {
                r.bytes()?
            } else {
                Vec::new()
            },
        })
    }
}
