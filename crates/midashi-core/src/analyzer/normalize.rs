//! Normalisation with a way back: NFKC + kana folding into a buffer, plus a compact map from
//! buffer byte offsets to byte offsets of the original text.
//!
//! Case is *not* folded here: identifier splitting needs it (`getElementById`), so words are
//! lower-cased one by one when they become terms. [`super::normalize`] adds the folding.

use std::borrow::Cow;
use std::cell::Cell;

/// A stretch of the normalised buffer that came from one place in the original.
#[derive(Debug, Clone, Copy)]
struct Seg {
    /// Start in the normalised buffer.
    norm: usize,
    /// Start in the original text.
    orig: usize,
    /// `true`: byte-for-byte (every char kept its UTF-8 length), so offsets inside map
    /// linearly. `false`: one cluster (see [`cluster_len`]) whose normalised form differs in
    /// length or shape; any offset inside maps to the whole cluster.
    ident: bool,
}

/// Normalised text (NFKC, katakana → hiragana, `’` → `'`; case kept) and its offset map.
#[derive(Debug)]
pub(crate) struct Normalized<'a> {
    pub(crate) text: Cow<'a, str>,
    orig_len: usize,
    segs: Vec<Seg>,
    /// The segment the last lookup found.
    hint: Cell<usize>,
}

impl<'a> Normalized<'a> {
    /// Normalises `text` one cluster at a time (see [`cluster_len`]: NFKC never composes
    /// across its boundaries), with fast paths for ASCII and for common CJK characters that
    /// NFKC leaves alone.
    pub(crate) fn new(text: &'a str) -> Self {
        let ident0 = Seg {
            norm: 0,
            orig: 0,
            ident: true,
        };
        if text.is_ascii() {
            return Normalized {
                text: Cow::Borrowed(text),
                orig_len: text.len(),
                segs: vec![ident0],
                hint: Cell::new(0),
            };
        }
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut segs = vec![ident0];
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            // An ASCII char is its own cluster unless a combining mark follows it.
            if b < 0x80 && bytes.get(i + 1).is_none_or(|&n| n < 0x80) {
                mark_ident(&mut segs, &out, i);
                out.push(b as char);
                i += 1;
                continue;
            }
            let rest = &text[i..];
            let mut chars = rest.chars();
            let Some(c) = chars.next() else { break };
            // Nothing can compose with `c`: the next char is one that never composes with the
            // one before it (or there is none).
            let alone = chars.next().is_none_or(joins_nothing);
            if let Some(mapped) = direct(c).filter(|_| alone) {
                // NFKC's mapping and the folds, without asking the host (in the browser, a
                // call per char): the same text and offsets as the cluster below gives.
                if mapped.len_utf8() == c.len_utf8() {
                    mark_ident(&mut segs, &out, i);
                } else {
                    segs.push(Seg {
                        norm: out.len(),
                        orig: i,
                        ident: false,
                    });
                }
                out.push(mapped);
                i += c.len_utf8();
                continue;
            }
            let cluster = &rest[..cluster_len(rest)];
            let start = out.len();
            out.push_str(&normalize_cluster(cluster));
            let produced = &out[start..];
            // Char for char the same UTF-8 lengths: offsets inside map linearly.
            let same_shape = cluster.chars().count() == produced.chars().count()
                && cluster
                    .chars()
                    .zip(produced.chars())
                    .all(|(x, y)| x.len_utf8() == y.len_utf8());
            if same_shape {
                mark_ident(&mut segs, &out[..start], i);
            } else {
                segs.push(Seg {
                    norm: start,
                    orig: i,
                    ident: false,
                });
            }
            i += cluster.len().max(1);
        }
        Normalized {
            text: Cow::Owned(out),
            orig_len: text.len(),
            segs,
            hint: Cell::new(0),
        }
    }

    fn seg_at(&self, n: usize) -> usize {
        // Tokens come in text order, so the segment of the last lookup or the next one
        // usually holds `n`.
        let h = self.hint.get();
        for k in [h, h + 1] {
            let here = self.segs.get(k).is_some_and(|s| s.norm <= n);
            if here && self.segs.get(k + 1).is_none_or(|next| next.norm > n) {
                self.hint.set(k);
                return k;
            }
        }
        // segs[0].norm == 0, so the partition point is at least 1.
        let k = self.segs.partition_point(|s| s.norm <= n).saturating_sub(1);
        self.hint.set(k);
        k
    }

    /// Whether every offset of the normalised text is the original's (nothing changed
    /// shape: all ASCII, or plain kana and kanji): [`Normalized::orig_range`] is then the
    /// range itself.
    pub(crate) fn identity(&self) -> bool {
        self.segs.len() == 1
    }

    /// Maps a non-empty byte range of the normalised text back to the smallest range of the
    /// original that produced it (whole clusters when normalisation changed them).
    pub(crate) fn orig_range(&self, start: usize, end: usize) -> (usize, usize) {
        if self.segs.len() == 1 {
            // Nothing changed shape (all ASCII, or plain kana and kanji): offsets are equal.
            let end = end.min(self.orig_len);
            return (start.min(end), end);
        }
        let s = &self.segs[self.seg_at(start)];
        let a = if s.ident {
            s.orig + (start - s.norm)
        } else {
            s.orig
        };
        let k = self.seg_at(end.saturating_sub(1).max(start));
        let e = &self.segs[k];
        let b = if e.ident {
            e.orig + (end - e.norm)
        } else {
            self.segs.get(k + 1).map_or(self.orig_len, |next| next.orig)
        };
        let b = b.min(self.orig_len);
        (a.min(b), b)
    }
}

/// NFKC, then the folds, of one cluster; and NFKC again when folding made a pair it composes
/// (a half-width small `ｯ` before a voicing mark folds to `つ`, and `つ` + `゙` is `づ`), so that
/// normalising normalised text changes nothing.
fn normalize_cluster(cluster: &str) -> String {
    let once: String = super::host_unicode::nfkc(cluster)
        .chars()
        .map(fold_char)
        .collect();
    // Folding twice is folding once: only what NFKC composed is new.
    super::host_unicode::nfkc_if_needed(once)
        .chars()
        .map(fold_char)
        .collect()
}

/// Starts (or continues) a byte-for-byte segment at original offset `orig`.
fn mark_ident(segs: &mut Vec<Seg>, out: &str, orig: usize) {
    if !segs.last().is_some_and(|s| s.ident) {
        segs.push(Seg {
            norm: out.len(),
            orig,
            ident: true,
        });
    }
}

/// The length of the cluster `rest` starts with: its first char and every following one up
/// to the next [`starts_cluster`] char. NFKC composes a char only with the chars before it
/// back to a starter that composes, and such a second element is never a char that starts
/// a cluster, so normalising clusters one by one equals normalising the whole text. (Unicode
/// grapheme clusters would do as well, but their tables were ~15 KB of the wasm module.)
fn cluster_len(rest: &str) -> usize {
    let mut chars = rest.char_indices();
    chars.next();
    chars
        .find(|&(_, c)| starts_cluster(c))
        .map_or(rest.len(), |(i, _)| i)
}

/// Characters that are never the second element of a canonical composition and have
/// combining class 0 (so no mark is reordered across them): a cluster may start at any of
/// them. The scripts of most docs; others (and every combining mark, Hangul jamo, Indic
/// vowel signs, the kana voicing marks) join the cluster before them.
fn starts_cluster(c: char) -> bool {
    c.is_ascii()
        || stable(c)
        || matches!(c,
            '\u{00A0}'..='\u{024F}'     // Latin-1 Supplement, Latin Extended-A and -B
            | '\u{0370}'..='\u{03FF}'   // Greek (its combining marks are in U+0300..U+036F)
            | '\u{0400}'..='\u{0482}'   // Cyrillic, before its combining marks
            | '\u{048A}'..='\u{04FF}'
            | '\u{2000}'..='\u{206F}'   // general punctuation
            | '\u{2070}'..='\u{20CF}'   // super- and subscripts, currency
            | '\u{2100}'..='\u{2BFF}'   // letterlike, number forms, arrows, maths, shapes
            | '\u{2E80}'..='\u{2FDF}'   // CJK radicals
            | '\u{3200}'..='\u{33FF}'   // enclosed CJK, CJK compatibility (㍿)
            | '\u{3000}'..='\u{3029}'   // CJK symbols and punctuation, without the
            | '\u{3030}'..='\u{3040}'   // tone marks U+302A..U+302F (combining)
            | '\u{AC00}'..='\u{D7A3}'   // Hangul syllables
            | '\u{FF01}'..='\u{FF5E}'   // full-width ASCII
            | '\u{FF66}'..='\u{FF9D}') // half-width katakana (not the voicing marks after)
}

/// Characters NFKC maps to themselves and that never compose with a neighbour in these
/// positions: the bulk of Japanese and Chinese text, so it skips the cluster machinery.
/// None of them has a case either (see `analyzer::caseless`).
pub(super) fn stable(c: char) -> bool {
    matches!(c,
        '\u{3041}'..='\u{3096}'     // hiragana
        | '\u{30A1}'..='\u{30FC}'   // katakana, ・ and ー
        | '\u{3001}'..='\u{3003}'   // 、。〃
        | '\u{3005}'..='\u{3011}'   // 々〆〇 and the brackets 〈〉《》「」『』【】
        | '\u{3014}'..='\u{301F}'   // 〔〕〖〗〘〙〚〛〜〝〞〟
        | '\u{4E00}'..='\u{9FFF}'   // CJK unified ideographs
        | '\u{3400}'..='\u{4DBF}') // extension A
}

/// Whether `c` never composes with the char before it, nor moves before it: ASCII and the
/// chars [`direct`] maps (each a starter whose NFKC quick check is "yes").
fn joins_nothing(c: char) -> bool {
    c.is_ascii() || direct(c).is_some()
}

/// What normalising makes of `c` (NFKC, then [`fold_char`]) when nothing follows that can
/// compose with it: ASCII, the [`stable`] CJK set, full-width ASCII, and the Latin, Greek and
/// Cyrillic characters of `scripts.rs` (feature `scripts`); `None`: ask NFKC. Written out
/// rather than read from Unicode's tables, which the browser build leaves out; a test checks
/// each against NFKC.
fn direct(c: char) -> Option<char> {
    if c.is_ascii() || stable(c) {
        return Some(fold_kana(c));
    }
    match c {
        // Full-width ASCII and the ideographic space (（） in most Japanese prose): ASCII.
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0),
        '\u{3000}' => Some(' '),
        c if super::scripts::nfkc_keeps(c) => Some(fold_char(c)),
        _ => None,
    }
}

/// The per-character folds applied after NFKC.
fn fold_char(c: char) -> char {
    match c {
        // A typographic apostrophe is an apostrophe: "don’t" and "don't" are one word.
        '\u{2019}' => '\'',
        _ => fold_kana(c),
    }
}

/// Katakana → hiragana (ァ..ヶ and the iteration marks ヽヾ; ー and ヷ..ヺ have no hiragana
/// counterpart and stay), and small kana → full size (ぁ → あ, ッ → つ, ョ → よ): two spellings
/// of one word are one term (ウォッチャー and ウオッチャー, both written).
pub(crate) fn fold_kana(c: char) -> char {
    let c = match c {
        '\u{30A1}'..='\u{30F6}' | '\u{30FD}'..='\u{30FE}' => {
            char::from_u32(c as u32 - 0x60).unwrap_or(c)
        }
        _ => c,
    };
    match c {
        'ぁ' => 'あ',
        'ぃ' => 'い',
        'ぅ' => 'う',
        'ぇ' => 'え',
        'ぉ' => 'お',
        'っ' => 'つ',
        'ゃ' => 'や',
        'ゅ' => 'ゆ',
        'ょ' => 'よ',
        'ゎ' => 'わ',
        'ゕ' => 'か',
        'ゖ' => 'け',
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What normalising cluster by cluster must equal: NFKC of the whole text, then the folds.
    fn whole(s: &str) -> String {
        let once: String = super::super::host_unicode::nfkc(s)
            .chars()
            .map(fold_char)
            .collect();
        super::super::host_unicode::nfkc(&once)
            .chars()
            .map(fold_char)
            .collect()
    }

    #[test]
    fn clusters_never_split_a_composition() {
        for s in [
            "e\u{301}x",                          // a mark after ASCII
            "カ\u{3099}ｶﾞ",                        // kana voicing marks, half-width too
            "\u{1100}\u{1161}\u{11A8}가\u{11A8}", // Hangul jamo, and a syllable + final jamo
            "Ａ\u{302A}字\u{302E}",               // ideographic tone marks
            "Москва\u{483}ё",                     // a Cyrillic combining mark
            "ୋ ୈ\u{B47}\u{B3E}",                  // an Oriya vowel sign that composes
            "ά\u{345}ΐ",                          // Greek with a combining ypogegrammeni
        ] {
            assert_eq!(Normalized::new(s).text, whole(s), "{s:?}");
        }
    }

    /// The characters mapped without asking NFKC ([`direct`]): each is what NFKC and the
    /// folds make of it, a starter (combining class 0), and has NFKC quick check "yes" when
    /// NFKC keeps it ("no" when it maps it), never "maybe", as a character that composes
    /// with the one before it has.
    #[test]
    fn directly_mapped_characters_are_what_nfkc_makes_of_them() {
        use unicode_normalization::char::canonical_combining_class;
        use unicode_normalization::{is_nfkc_quick, IsNormalized};
        let mut n = 0;
        for c in (0u32..0x11_0000).filter_map(char::from_u32) {
            let Some(mapped) = direct(c) else { continue };
            assert_eq!(whole(&c.to_string()), mapped.to_string(), "{c:?}");
            assert_eq!(canonical_combining_class(c), 0, "{c:?}");
            let quick = is_nfkc_quick(std::iter::once(c));
            let kept = super::super::host_unicode::nfkc(&c.to_string()) == c.to_string();
            let want = if kept {
                IsNormalized::Yes
            } else {
                IsNormalized::No
            };
            assert_eq!(quick, want, "{c:?}");
            n += 1;
        }
        assert!(n > 28_000, "{n}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        #[test]
        fn clusters_normalise_like_the_whole_text(s in any::<String>()) {
            let n = Normalized::new(&s);
            prop_assert_eq!(n.text.as_ref(), whole(&s));
        }

        #[test]
        fn clusters_normalise_like_the_whole_text_near_composing_chars(
            s in "[a-zA-Zé ÀΣςАяàüñßøłĳŀſǄǅ’…‑‼·΅ͅ²µぁ-んァ-ヶ・ー々〆〇〈-】〔-〟（）：！～\u{3000}ｦ-ﾟ一-龥\u{300}-\u{36f}\u{483}-\u{489}\u{3099}\u{309a}\u{302a}-\u{302f}\u{b3e}\u{b47}Ａ-Ｚ가-힣ᄀ-ᇿ\u{ffa0}-\u{ffdc}\u{2100}-\u{218f}\u{2460}-\u{24ff}\u{3130}-\u{318f}\u{3200}-\u{33ff}\u{20d0}-\u{20ff}]{0,40}"
        ) {
            let n = Normalized::new(&s);
            prop_assert_eq!(n.text.as_ref(), whole(&s));
        }
    }
}
