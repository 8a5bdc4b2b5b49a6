//! Word boundaries (UAX#29) of a span of text: `unicode-segmentation`'s, with a table-driven
//! path for ASCII spans.
//!
//! Hand-written on purpose, and only for ASCII (a span's ASCII chunks, see
//! [`for_each_segment`]): finding each character's word-break class
//! in the crate's Unicode tables (a binary search per character) was the largest single
//! cost of marking a page of results (15 % of a SciFact query natively, more in the
//! size-optimised wasm), and most documentation text is ASCII. For ASCII the rules reduce
//! to the few below; the test checks them against the crate on every string of a
//! punctuation-heavy alphabet, so both paths cut text alike.
use unicode_segmentation::UnicodeSegmentation;

/// Calls `each(offset, segment)` for every segment of `span` between word boundaries, in
/// order (what `split_word_bound_indices` yields).
pub(super) fn for_each_segment(span: &str, each: &mut dyn FnMut(usize, &str)) {
    if span.is_ascii() {
        ascii_segments(span, 0, each);
        return;
    }
    // Text with a few non-ASCII words (a `β`, a `–`): cut into chunks that end after a run
    // of spaces followed by an ASCII character other than a space. Every rule is decided
    // there — a space breaks from what follows it unless that is a mark or format character
    // (WB4), and no rule looks across a space — so each chunk is cut alone, by table when it
    // is ASCII.
    let b = span.as_bytes();
    let mut start = 0;
    for p in 1..b.len() {
        if b[p - 1] == b' ' && b[p] != b' ' && b[p].is_ascii() {
            chunk(&span[start..p], start, each);
            start = p;
        }
    }
    chunk(&span[start..], start, each);
}

fn chunk(text: &str, at: usize, each: &mut dyn FnMut(usize, &str)) {
    if text.is_ascii() {
        ascii_segments(text, at, each);
    } else {
        for (i, seg) in text.split_word_bound_indices() {
            each(at + i, seg);
        }
    }
}

/// The segments of ASCII `text`, whose first byte is at `at` of the span.
fn ascii_segments(text: &str, at: usize, each: &mut dyn FnMut(usize, &str)) {
    let b = text.as_bytes();
    let mut start = 0;
    for i in 1..b.len() {
        if breaks(b, i) {
            each(at + start, &text[start..i]);
            start = i;
        }
    }
    if start < b.len() {
        each(at + start, &text[start..]);
    }
}

/// Word-break classes of the ASCII characters (UAX#29's Word_Break property).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Cr,
    Lf,
    Newline,
    Space,
    Letter,
    Numeric,
    /// `.` (MidNumLet) and `'` (Single_Quote): between letters or between digits.
    MidNumLetQ,
    /// `:`: between letters only.
    MidLetter,
    /// `,` `;`: between digits only.
    MidNum,
    /// `_`.
    ExtendNumLet,
    Other,
}

// Inlined by hand: the size-optimised wasm would call it for every byte of every result.
#[inline(always)]
fn class(b: u8) -> Class {
    match b {
        b'\r' => Class::Cr,
        b'\n' => Class::Lf,
        0x0B | 0x0C => Class::Newline,
        b' ' => Class::Space,
        b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
        b'0'..=b'9' => Class::Numeric,
        b'.' | b'\'' => Class::MidNumLetQ,
        b':' => Class::MidLetter,
        b',' | b';' => Class::MidNum,
        b'_' => Class::ExtendNumLet,
        _ => Class::Other,
    }
}

/// Whether there is a word boundary before byte `i` (0 < i < len) of ASCII text `b`: rules
/// WB3–WB13b as they apply to ASCII (WB4's ignored classes, Hebrew, Katakana and regional
/// indicators have no ASCII members), else WB999.
fn breaks(b: &[u8], i: usize) -> bool {
    use Class::*;
    let prev = class(b[i - 1]);
    let cur = class(b[i]);
    let before = (i >= 2).then(|| class(b[i - 2]));
    let after = b.get(i + 1).map(|&x| class(x));
    match (prev, cur) {
        (Cr, Lf) => false,                                                   // WB3
        (Cr | Lf | Newline, _) | (_, Cr | Lf | Newline) => true,             // WB3a, WB3b
        (Space, Space) => false,                                             // WB3d
        (Letter, Letter) => false,                                           // WB5
        (Letter, MidLetter | MidNumLetQ) if after == Some(Letter) => false,  // WB6
        (MidLetter | MidNumLetQ, Letter) if before == Some(Letter) => false, // WB7
        (Numeric, Numeric) | (Letter, Numeric) | (Numeric, Letter) => false, // WB8–10
        (MidNum | MidNumLetQ, Numeric) if before == Some(Numeric) => false,  // WB11
        (Numeric, MidNum | MidNumLetQ) if after == Some(Numeric) => false,   // WB12
        (Letter | Numeric | ExtendNumLet, ExtendNumLet) => false,            // WB13a
        (ExtendNumLet, Letter | Numeric) => false,                           // WB13b
        _ => true,                                                           // WB999
    }
}

#[cfg(test)]
mod tests {
    use super::for_each_segment;
    use proptest::prelude::*;
    use unicode_segmentation::UnicodeSegmentation;

    fn ours(s: &str) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        for_each_segment(s, &mut |i, seg| out.push((i, seg.to_string())));
        out
    }

    fn crates(s: &str) -> Vec<(usize, String)> {
        s.split_word_bound_indices()
            .map(|(i, seg)| (i, seg.to_string()))
            .collect()
    }

    #[test]
    fn ascii_cuts_as_unicode_segmentation_does() {
        for s in [
            "std::collections::HashMap",
            "v-model and a.b.c, 3.14 or 1,000;2 don't 'quoted' _x_ a_1 __init__",
            "bind:href\r\nline two\n\n  spaces\t\ttabs",
            "e.g. U.S.A. 1.2.3 a1b2 x'y 5'6 ::a a:: :a: 'a' .5",
        ] {
            assert_eq!(ours(s), crates(s), "{s:?}");
        }
    }

    proptest! {
        /// Every ASCII string of letters, digits and the classes' punctuation is cut alike.
        #[test]
        fn agrees_with_the_crate(s in "[aZ09 ._:',;\\-\r\n\t\u{b}\u{c}\"#]{0,24}") {
            prop_assert_eq!(ours(&s), crates(&s));
        }

        /// Text with non-ASCII letters, marks, dashes and spaces among the ASCII is cut alike.
        #[test]
        fn mixed_text_agrees_with_the_crate(
            s in "[aZ09 ._:',;\\-\r\n\u{301}\u{200d}\u{a0}\u{3000}éβ–…💡ー]{0,24}"
        ) {
            prop_assert_eq!(ours(&s), crates(&s));
        }
    }
}
