//! A query's SentencePiece Unigram pieces, as multilingual-e5-small's (XLM-R's) tokenizer cuts
//! them, over the pieces a site's static table holds: the cutter of a Japanese or other
//! non-English site's table, as [`super::pieces`] is an English one's. Hand-written for the
//! same reason: the `tokenizers` crate would outweigh the module it goes into.
//!
//! The steps: NFKC (the model's own normaliser is a precompiled variant of it; the browser's
//! comes from the JS host), runs of whitespace as one `▁` that opens each word (`Metaspace`,
//! a `▁` before the first word too), then each word's most probable cut into pieces (Viterbi
//! over the pieces' log-probabilities). A character no piece covers is SentencePiece's
//! unknown piece, which has no row in a table: it is left out.

use crate::analyzer::host_unicode;
use rustc_hash::FxHashMap as HashMap;

/// What opens a word (U+2581).
const SPACE: char = '\u{2581}';

/// How far below the least probable piece an unknown character scores (SentencePiece's
/// `kUnkPenalty`).
const UNKNOWN_PENALTY: f32 = 10.0;

/// A Unigram vocabulary: piece text → (the id a table's row is keyed by, log-probability).
#[derive(Debug, Clone, Default)]
pub struct UnigramPieces {
    pieces: HashMap<String, (u32, f32)>,
    /// The longest piece, in characters: no cut looks further.
    longest: usize,
    /// What an unknown character scores.
    unknown: f32,
}

impl UnigramPieces {
    /// The vocabulary of `(piece, id, log-probability)`.
    pub fn new(pieces: impl IntoIterator<Item = (String, u32, f32)>) -> UnigramPieces {
        let pieces: HashMap<String, (u32, f32)> =
            pieces.into_iter().map(|(p, id, s)| (p, (id, s))).collect();
        let longest = pieces.keys().map(|p| p.chars().count()).max().unwrap_or(1);
        let least = pieces.values().map(|&(_, s)| s).fold(0f32, f32::min);
        UnigramPieces {
            pieces,
            longest,
            unknown: least - UNKNOWN_PENALTY,
        }
    }

    /// The ids of `text`'s pieces, in order, with no special tokens; unknown characters give
    /// none.
    pub fn split(&self, text: &str) -> Vec<u32> {
        let normalised = host_unicode::nfkc(text);
        let mut out = Vec::new();
        for word in normalised.split_whitespace() {
            let mut chars = vec![SPACE];
            chars.extend(word.chars());
            self.cut(&chars, &mut out);
        }
        out
    }

    /// The most probable cut of one word (`▁` and its characters).
    fn cut(&self, chars: &[char], out: &mut Vec<u32>) {
        let n = chars.len();
        // best[i]: the score of the best cut of chars[..i], and where its last piece starts
        // with that piece's id (`None`: an unknown character).
        let mut best: Vec<(f32, usize, Option<u32>)> = vec![(f32::NEG_INFINITY, 0, None); n + 1];
        best[0].0 = 0.0;
        let mut key = String::new();
        for end in 1..=n {
            for start in end.saturating_sub(self.longest)..end {
                if best[start].0 == f32::NEG_INFINITY {
                    continue;
                }
                key.clear();
                key.extend(&chars[start..end]);
                if let Some(&(id, score)) = self.pieces.get(&key) {
                    let total = best[start].0 + score;
                    if total > best[end].0 {
                        best[end] = (total, start, Some(id));
                    }
                }
            }
            // No piece ends here from a reachable start: the character alone is unknown.
            let total = best[end - 1].0 + self.unknown;
            if best[end].0 == f32::NEG_INFINITY {
                best[end] = (total, end - 1, None);
            }
        }
        let mut ids = Vec::new();
        let mut at = n;
        while at > 0 {
            let (_, start, id) = best[at];
            ids.extend(id);
            at = start;
        }
        out.extend(ids.into_iter().rev());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> UnigramPieces {
        let pieces = [
            ("▁", -4.0),
            ("▁東京", -8.0),
            ("東", -9.0),
            ("京", -9.0),
            ("都", -9.5),
            ("▁東京都", -12.0),
            ("▁the", -3.0),
            ("▁cat", -6.0),
            ("s", -5.0),
            ("▁cats", -9.5),
        ];
        UnigramPieces::new(
            pieces
                .iter()
                .enumerate()
                .map(|(i, (p, s))| (p.to_string(), i as u32, *s)),
        )
    }

    #[test]
    fn each_word_takes_its_most_probable_cut() {
        let v = vocab();
        // ▁東京都 alone (-12) beats ▁東京 + 都 (-17.5).
        assert_eq!(v.split("東京都"), vec![5]);
        // ▁cat + s (-11) loses to ▁cats (-9.5); words open with ▁.
        assert_eq!(v.split("the  cats"), vec![6, 9]);
    }

    #[test]
    fn full_width_forms_are_folded_and_unknown_characters_left_out() {
        let v = vocab();
        assert_eq!(v.split("ｔｈｅ"), vec![6]);
        // 〒 is no piece: ▁ then nothing for it.
        assert_eq!(v.split("〒"), vec![0]);
        assert_eq!(v.split(""), Vec::<u32>::new());
    }
}
