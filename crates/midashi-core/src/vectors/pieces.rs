//! A query's word pieces as BERT's WordPiece tokenizer cuts them, over the pieces a site's
//! static table holds (issue #69: a query's vector is then a look-up of these pieces' rows,
//! with no encoder). Hand-written because the `tokenizers` crate would weigh more than the
//! whole keyword module it would go into.
//!
//! The steps of `BertNormalizer` (lower case, accents stripped, control characters dropped,
//! CJK ideographs set apart), `BertPreTokenizer` (whitespace, then each punctuation mark a
//! word of its own) and WordPiece (greedy longest match, `##` before a continuation).
//! Without Unicode's general-category tables, two approximations: punctuation outside ASCII
//! is that of the blocks docs use, and natively the marks dropped are those with a combining
//! class (BERT drops every nonspacing mark, as the browser's `\p{Mn}` does). Tested against
//! `tokenizers` on the Rust book.

use crate::analyzer::host_unicode;
use rustc_hash::FxHashMap as HashMap;

/// Longer words are `[UNK]` to BERT (its `max_input_chars_per_word`).
const MAX_WORD_CHARS: usize = 100;

/// A WordPiece vocabulary: piece text → the id a table's row is keyed by.
#[derive(Debug, Clone, Default)]
pub struct WordPieces {
    ids: HashMap<String, u32>,
}

impl WordPieces {
    /// The vocabulary of `(piece, id)` pairs; continuation pieces keep their `##`.
    pub fn new(pieces: impl IntoIterator<Item = (String, u32)>) -> WordPieces {
        WordPieces {
            ids: pieces.into_iter().collect(),
        }
    }

    /// The ids of `text`'s pieces, in order, with no special tokens. A word that cannot be cut
    /// into known pieces gives none (BERT's `[UNK]`, which has no row in a table either).
    pub fn split(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        let normalised = normalise(text);
        for word in words(&normalised) {
            self.push_word(word, &mut out);
        }
        out
    }

    /// Greedy longest match of `word`, all or nothing.
    fn push_word(&self, word: &str, out: &mut Vec<u32>) {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_WORD_CHARS {
            return;
        }
        let mut found = Vec::new();
        let mut start = 0;
        let mut key = String::new();
        while start < chars.len() {
            let mut end = chars.len();
            let mut piece = None;
            while end > start {
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |c| c.0);
                key.clear();
                if start > 0 {
                    key.push_str("##");
                }
                key.push_str(&word[from..to]);
                if let Some(&id) = self.ids.get(&key) {
                    piece = Some(id);
                    break;
                }
                end -= 1;
            }
            match piece {
                Some(id) => found.push(id),
                None => return,
            }
            start = end;
        }
        out.extend(found);
    }
}

/// BERT's uncased normalisation: controls dropped, whitespace made a space, CJK ideographs
/// set apart by spaces, canonical decomposition with the combining marks dropped, lower case
/// (the last two by the JS host's tables in the browser: `analyzer::host_unicode`).
fn normalise(text: &str) -> String {
    let plain = host_unicode::to_lowercase(&host_unicode::without_accents(text));
    let mut out = String::with_capacity(plain.len());
    for c in plain.chars() {
        if c == '\0' || c == '\u{fffd}' {
            continue;
        }
        if c.is_whitespace() {
            out.push(' ');
        } else if c.is_control() {
            continue;
        } else if is_cjk_ideograph(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// Whitespace-separated words, each punctuation mark a word of its own.
fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for chunk in text.split(' ').filter(|w| !w.is_empty()) {
        let mut start = 0;
        for (i, c) in chunk.char_indices() {
            if is_punctuation(c) {
                if start < i {
                    out.push(&chunk[start..i]);
                }
                out.push(&chunk[i..i + c.len_utf8()]);
                start = i + c.len_utf8();
            }
        }
        if start < chunk.len() {
            out.push(&chunk[start..]);
        }
    }
    out
}

/// ASCII punctuation, and the Unicode punctuation of the blocks text and queries use
/// (Latin-1, General Punctuation, CJK, full-width and small forms): BERT's Unicode `P*`
/// without a general-category table. Symbols (`−`, `├`, emoji) stay inside words, as in BERT.
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(c as u32,
        0xA1 | 0xA7 | 0xAB | 0xB6 | 0xB7 | 0xBB | 0xBF
        | 0x2010..=0x2027
        | 0x2030..=0x2043
        | 0x2045..=0x2051
        | 0x2053..=0x205E
        | 0x3001..=0x3003
        | 0x3008..=0x3011
        | 0x3014..=0x301F
        | 0x3030 | 0x303D | 0x30FB
        | 0xFE10..=0xFE19
        | 0xFE30..=0xFE52
        | 0xFE54..=0xFE61
        | 0xFE63 | 0xFE68 | 0xFE6A | 0xFE6B
        | 0xFF01..=0xFF03
        | 0xFF05..=0xFF0A
        | 0xFF0C..=0xFF0F
        | 0xFF1A | 0xFF1B | 0xFF1F | 0xFF20
        | 0xFF3B..=0xFF3D | 0xFF3F | 0xFF5B | 0xFF5D
        | 0xFF5F..=0xFF65)
}

/// The CJK Unified Ideographs blocks BERT sets apart (its `_is_chinese_char`).
fn is_cjk_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> WordPieces {
        let pieces = [
            "[UNK]", "the", "own", "##ership", "rules", "'", "s", "cafe", "un", "##want", "##ed",
            ",", "runn", "##ing", "東", "京",
        ];
        WordPieces::new(
            pieces
                .iter()
                .enumerate()
                .map(|(i, p)| (p.to_string(), i as u32)),
        )
    }

    #[test]
    fn words_are_cut_into_the_longest_known_pieces() {
        let v = vocab();
        assert_eq!(v.split("The Ownership rules"), vec![1, 2, 3, 4]);
        assert_eq!(v.split("unwanted, running"), vec![8, 9, 10, 11, 12, 13]);
    }

    #[test]
    fn accents_case_and_punctuation_are_handled_as_bert_does() {
        let v = vocab();
        assert_eq!(v.split("CAFÉ's"), vec![7, 5, 6]);
        assert_eq!(v.split("東京"), vec![14, 15]);
    }

    #[test]
    fn a_word_with_an_unknown_part_gives_no_piece() {
        let v = vocab();
        assert_eq!(v.split("ownerzzz the"), vec![1]);
        assert_eq!(v.split(&"a".repeat(101)), Vec::<u32>::new());
        assert_eq!(v.split(""), Vec::<u32>::new());
    }
}
