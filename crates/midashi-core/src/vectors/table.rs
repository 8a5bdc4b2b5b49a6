//! A static embedding table (issue #69): a query's vector as the normalised mean of its
//! word pieces' rows — a look-up in place of an encoder, so the keyword module can embed a
//! question in microseconds with a few hundred KB instead of a 7–20 MB encoder.
//!
//! The build distils the table from the site's own text (`build-index`'s `static_table`):
//! each piece's mean output of the encoder in the site's contexts, fitted so that the mean
//! of a passage's rows approaches the encoder's vector of the passage, then projected to the
//! passages' principal components. The section vectors it is searched against are projected
//! the same way and are the index's vectors file; this file holds only the pieces and rows.
//! Rows are stored as section vectors are (4 bits and a scale each, [`VectorsData::push`]).
//! Queries are cut as the model's tokenizer cuts them: WordPiece ([`super::pieces`]) or
//! SentencePiece Unigram ([`super::unigram`]).

use super::pieces::WordPieces;
use super::unigram::UnigramPieces;
use super::VectorsData;
use crate::format::reader::{Decode, ReadResult, Reader};
use serde::{Deserialize, Serialize};

/// The payload of the table file (`table.<hash>.bin`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableData {
    /// Each row's WordPiece piece (a continuation keeps its `##`), in row order.
    pub pieces: Vec<String>,
    /// Dimensions of a row: the section vectors' dimensions.
    pub dims: u32,
    /// Per-row scale, f32 LE bytes (as [`VectorsData::scales`]).
    #[serde(with = "serde_bytes")]
    pub scales: Vec<u8>,
    /// Rows of 4-bit levels (as [`VectorsData::data`]).
    #[serde(with = "serde_bytes")]
    pub data: Vec<u8>,
    /// How a query is cut into the pieces: the model's tokenizer's kind.
    pub cutter: Cutter,
}

/// The kind of tokenizer a table's pieces come from, and what cutting by it needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Cutter {
    /// BERT's uncased WordPiece (all-MiniLM-L6-v2): [`super::pieces`].
    WordPiece,
    /// SentencePiece Unigram (multilingual-e5-small): [`super::unigram`], with each piece's
    /// log-probability, in row order.
    Unigram {
        /// One log-probability per piece.
        scores: Vec<f32>,
    },
}

impl Decode for Cutter {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(match r.variant(2)? {
            0 => Cutter::WordPiece,
            _ => Cutter::Unigram {
                scores: Decode::decode(r)?,
            },
        })
    }
}

impl TableData {
    /// A table of `pieces` with `rows` (`pieces.len() × dims` values), rounded to 4 bits,
    /// whose queries are cut by `cutter`.
    pub fn new(pieces: Vec<String>, rows: &[f32], dims: usize, cutter: Cutter) -> TableData {
        let mut packed = VectorsData::with_bits(dims as u32, 4);
        for (i, row) in rows.chunks_exact(dims.max(1)).enumerate() {
            packed.push(i as u32, row);
        }
        TableData {
            pieces,
            dims: dims as u32,
            scales: packed.scales,
            data: packed.data,
            cutter,
        }
    }
}

impl Decode for TableData {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(TableData {
            pieces: Decode::decode(r)?,
            dims: r.u32()?,
            scales: r.bytes()?,
            data: r.bytes()?,
            cutter: Decode::decode(r)?,
        })
    }
}

/// A loaded table, ready to embed queries.
#[derive(Debug, Clone)]
pub struct StaticTable {
    pieces: Pieces,
    rows: VectorsData,
}

/// A table's pieces, ready to cut queries into.
#[derive(Debug, Clone)]
enum Pieces {
    Word(WordPieces),
    Unigram(UnigramPieces),
}

impl StaticTable {
    /// The table of a decoded file; `None` when its lengths disagree (a damaged file).
    pub fn new(data: TableData) -> Option<StaticTable> {
        let n = data.pieces.len();
        let rows = VectorsData {
            dims: data.dims,
            row_section: (0..n as u32).collect(),
            scales: data.scales,
            data: data.data,
            bits: 4,
            noise_floor: None,
        };
        if !rows.is_consistent() || data.dims == 0 {
            return None;
        }
        let pieces = match data.cutter {
            Cutter::WordPiece => Pieces::Word(WordPieces::new(data.pieces.into_iter().zip(0u32..))),
            Cutter::Unigram { scores } if scores.len() == n => Pieces::Unigram(UnigramPieces::new(
                data.pieces
                    .into_iter()
                    .zip(0u32..)
                    .zip(scores)
                    .map(|((p, id), s)| (p, id, s)),
            )),
            Cutter::Unigram { .. } => return None,
        };
        Some(StaticTable { pieces, rows })
    }

    /// Dimensions of the vectors it makes.
    pub fn dims(&self) -> usize {
        self.rows.dims as usize
    }

    /// The query's vector: the normalised mean of its pieces' rows. `None` when none of its
    /// words is made of the table's pieces (it has no meaning here to compare).
    pub fn embed(&self, query: &str) -> Option<Vec<f32>> {
        let ids = match &self.pieces {
            Pieces::Word(p) => p.split(query),
            Pieces::Unigram(p) => p.split(query),
        };
        if ids.is_empty() {
            return None;
        }
        let mut sum = vec![0f32; self.dims()];
        for id in ids {
            let scale = self.rows.scale(id as usize);
            for (s, level) in sum.iter_mut().zip(self.rows.levels(id as usize)) {
                *s += f32::from(level) * scale;
            }
        }
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm == 0.0 {
            return None;
        }
        sum.iter_mut().for_each(|v| *v /= norm);
        Some(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{decode, encode, FileKind};

    fn table() -> TableData {
        let pieces = ["own", "##ership", "borrow", "##ing", "rules"].map(String::from);
        let rows = [
            1.0, 0.0, 0.0, // own
            0.8, 0.2, 0.0, // ##ership
            0.0, 1.0, 0.0, // borrow
            0.0, 0.5, 0.5, // ##ing
            0.0, 0.0, 1.0, // rules
        ];
        TableData::new(pieces.to_vec(), &rows, 3, Cutter::WordPiece)
    }

    #[test]
    fn a_query_is_the_normalised_mean_of_its_pieces_rows() {
        let t = StaticTable::new(table()).unwrap();
        let v = t.embed("Ownership rules").unwrap();
        // (own + ##ership + rules) / 3, normalised: (1.8, 0.2, 1.0).
        let n = (1.8f32 * 1.8 + 0.04 + 1.0).sqrt();
        for (a, b) in v.iter().zip([1.8 / n, 0.2 / n, 1.0 / n]) {
            assert!((a - b).abs() < 0.05, "{v:?}");
        }
        assert!(t.embed("zzz qqq").is_none(), "no known piece: no vector");
        assert!(t.embed("").is_none());
    }

    #[test]
    fn the_file_round_trips_and_a_damaged_one_is_refused() {
        let data = table();
        let bytes = encode(FileKind::Table, &data).unwrap();
        let back: TableData = decode(FileKind::Table, "t", &bytes).unwrap();
        assert_eq!(back, data);
        let mut short = data.clone();
        short.data.pop();
        assert!(StaticTable::new(short).is_none());
        let mut flat = data.clone();
        flat.dims = 0;
        assert!(StaticTable::new(flat).is_none());
        let mut unigram = data;
        unigram.cutter = Cutter::Unigram {
            scores: vec![-1.0; 4],
        };
        let bytes = encode(FileKind::Table, &unigram).unwrap();
        let back: TableData = decode(FileKind::Table, "t", &bytes).unwrap();
        assert_eq!(back, unigram);
        assert!(StaticTable::new(back).is_none(), "a score per piece");
    }
}
