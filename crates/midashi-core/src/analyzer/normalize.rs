//! Normalisation with a way back: NFKC + kana folding into a buffer, plus a compact map from
//! buffer byte offsets to byte offsets of the original text.
//!
//! Case is *not* folded here: identifier splitting needs it (`getElementById`), so words are
//! lower-cased one by one when they become terms. [`super::normalize`] adds the folding.

use std::borrow::Cow;
use std::cell::Cell;

use unicode_segmentation::UnicodeSegmentation;

/// A stretch of the normalised buffer that came from one place in the original.
#[derive(Debug, Clone, Copy)]
struct Seg {
    /// Start in the normalised buffer.
    norm: usize,
    /// Start in the original text.
    orig: usize,
    /// `true`: byte-for-byte (every char kept its UTF-8 length), so offsets inside map
    /// linearly. `false`: one grapheme cluster whose normalised form differs in length or
    /// shape; any offset inside maps to the whole cluster.
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
    /// Normalises `text` one grapheme cluster at a time (NFKC only composes within a
    /// cluster, and clusters are what an offset may point at), with fast paths for ASCII
    /// and for common CJK characters that NFKC leaves alone.
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
            if stable(c) && chars.next().is_none_or(|n| n.is_ascii() || stable(n)) {
                // Nothing can combine with it: map the one char directly (same UTF-8 length).
                mark_ident(&mut segs, &out, i);
                out.push(fold_kana(c));
                i += c.len_utf8();
                continue;
            }
            let cluster = rest.graphemes(true).next().unwrap_or(rest);
            let start = out.len();
            for n in super::host_unicode::nfkc(cluster).chars() {
                out.push(fold_char(n));
            }
            let produced = &out[start..];
            let same_shape = {
                let mut a = cluster.chars();
                let mut b = produced.chars();
                matches!((a.next(), a.next(), b.next(), b.next()), (Some(x), None, Some(y), None) if x.len_utf8() == y.len_utf8())
            };
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

/// Characters NFKC maps to themselves and that never compose with a neighbour in these
/// positions: the bulk of Japanese and Chinese text, so it skips the cluster machinery.
fn stable(c: char) -> bool {
    matches!(c,
        '\u{3041}'..='\u{3096}'     // hiragana
        | '\u{30A1}'..='\u{30FA}'   // katakana
        | '\u{30FC}'                // ー
        | '\u{3001}'..='\u{3002}'   // 、。
        | '\u{300C}'..='\u{300F}'   // 「」『』
        | '\u{4E00}'..='\u{9FFF}'   // CJK unified ideographs
        | '\u{3400}'..='\u{4DBF}') // extension A
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
/// counterpart and stay).
pub(crate) fn fold_kana(c: char) -> char {
    match c {
        '\u{30A1}'..='\u{30F6}' | '\u{30FD}'..='\u{30FE}' => {
            char::from_u32(c as u32 - 0x60).unwrap_or(c)
        }
        _ => c,
    }
}
