//! The fields a section is indexed under, and how much each weighs in BM25F.

use crate::format::reader::{Decode, ReadResult, Reader};
use serde::{Deserialize, Serialize};

/// Number of indexed fields.
pub const NUM_FIELDS: usize = 5;

/// An indexed field of a section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Field {
    /// The section's own heading (for a document: its title).
    Heading = 0,
    /// The headings of its ancestors (breadcrumbs without the section's own heading).
    Path = 1,
    /// Author hints: description, keywords, tags, category.
    Hints = 2,
    /// The section's own prose.
    Body = 3,
    /// The section's own code blocks.
    Code = 4,
}

impl Field {
    /// All fields, in storage order.
    pub const ALL: [Field; NUM_FIELDS] = [
        Field::Heading,
        Field::Path,
        Field::Hints,
        Field::Body,
        Field::Code,
    ];
}

/// BM25F parameters. Stored in the index so that build and query always agree.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FieldWeights {
    /// Per-field weight: a term in a heading counts `weight[Heading]` times a body term.
    pub weight: [f32; NUM_FIELDS],
    /// Per-field length normalisation (0 = none, 1 = full).
    pub b: [f32; NUM_FIELDS],
    /// Term-frequency saturation.
    pub k1: f32,
}

impl FieldWeights {
    /// Documentation sites: heading and breadcrumbs ≫ hints ≫ body ≫ code (DESIGN "Ranking").
    /// Headings are short, so their length normalisation is mild.
    pub const DOCS: FieldWeights = FieldWeights {
        weight: [4.0, 2.0, 1.5, 1.0, 0.4],
        b: [0.3, 0.3, 0.5, 0.75, 0.75],
        k1: 1.2,
    };

    /// Records (JSONL: title + text), where the title is a summary of the text rather than
    /// a navigational heading, so it weighs less than a docs heading.
    pub const RECORDS: FieldWeights = FieldWeights {
        weight: [1.0, 1.0, 1.0, 1.0, 0.4],
        b: [0.75, 0.75, 0.75, 0.75, 0.75],
        k1: 1.2,
    };
}

/// Appends a field's length to a field-length table: `NUM_FIELDS` little-endian `u16` per
/// section, in [`Field`] order, saturating. This and [`field_len`] are the only places the
/// table's bytes are laid out.
pub fn push_field_len(table: &mut Vec<u8>, len: usize) {
    table.extend_from_slice(&(len.min(u16::MAX as usize) as u16).to_le_bytes());
}

/// The length of field `field` of `section` in a field-length table (`None` past its end).
pub fn field_len(table: &[u8], section: u32, field: usize) -> Option<u16> {
    let i = (section as usize * NUM_FIELDS + field) * 2;
    table
        .get(i..i + 2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
}

impl Decode for FieldWeights {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(FieldWeights {
            weight: Decode::decode(r)?,
            b: Decode::decode(r)?,
            k1: r.f32()?,
        })
    }
}
