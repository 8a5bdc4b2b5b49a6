//! The characters of the Latin, Greek and Cyrillic scripts that normalising and lower-casing
//! can take without Unicode's tables: what NFKC makes of each, and which are their own lower
//! case. Why: the browser build asks its JS host for NFKC and lower case
//! (`host_unicode.rs`), a call per character and per word; on a French or German page every
//! accented letter and word went there (~340 calls a query with excerpts on Vue's French
//! docs: 0.62x the time without them). The ranges are written out here, by hand, because
//! the tables are what the browser build leaves out; tests check each against NFKC and
//! `to_lowercase` over every character (`normalize.rs`, `tests.rs`).
//!
//! Feature `scripts`: every wasm module has it; a build without it (`scripts_off.rs`, ~0.35 KB
//! gzip less) leaves these characters to the JS host, which answers them as any other.

/// Whether NFKC keeps `c` as it is, and nothing composes with it when nothing follows
/// that can (it is a starter whose quick check is "yes").
pub(super) fn nfkc_keeps(c: char) -> bool {
    matches!(c,
        // Accented Latin letters, Greek and Cyrillic (each precomposed, so NFKC keeps it),
        // Latin-1's and general punctuation, without the characters NFKC decomposes
        // (`ª ² ´ µ ¸ ¹ º ¼ ½ ¾`, `Ĳ ĳ Ŀ ŀ ŉ ſ`, the Latin digraphs, `‑ … ‼`, the primes …).
        '\u{A1}'..='\u{A7}'
        | '\u{A9}'
        | '\u{AB}'..='\u{AE}'
        | '\u{B0}'..='\u{B1}'
        | '\u{B6}'..='\u{B7}'
        | '\u{BB}'
        | '\u{BF}'..='\u{131}'
        | '\u{134}'..='\u{13E}'
        | '\u{141}'..='\u{148}'
        | '\u{14A}'..='\u{17E}'
        | '\u{180}'..='\u{1C3}'
        | '\u{1CD}'..='\u{1F0}'
        | '\u{1F4}'..='\u{24F}'
        | '\u{386}'
        | '\u{388}'..='\u{38A}'
        | '\u{38C}'
        | '\u{38E}'..='\u{3A1}'
        | '\u{3A3}'..='\u{3CE}'
        | '\u{400}'..='\u{45F}'
        | '\u{2010}'
        | '\u{2012}'..='\u{2016}'
        | '\u{2018}'..='\u{2023}'
        | '\u{2027}'
        | '\u{2030}'
        | '\u{2032}'
        | '\u{2035}'
        | '\u{2039}'..='\u{203A}')
}

/// Whether `c` is a lower-case letter or a mark of punctuation of those [`nfkc_keeps`]
/// knows: its own lower case wherever it stands (no context rule of Unicode's lower case
/// applies to one: the final sigma is a rule for `Σ`). Latin Extended-A alternates capital
/// and small letter, an odd or an even code point by stretch; Latin Extended-B, which does
/// not keep to one rule, is left to the host.
pub(super) fn own_lower_case(c: char) -> bool {
    let odd = c as u32 % 2 == 1;
    nfkc_keeps(c)
        && match c {
            // Punctuation and signs, which have no case.
            '\u{A1}'..='\u{BF}' | '\u{D7}' | '\u{2010}'..='\u{203A}' => true,
            // Small letters: Latin-1's (and ÷), Greek's, Cyrillic's.
            '\u{DF}'..='\u{FF}' | '\u{138}' | '\u{3AC}'..='\u{3CE}' | '\u{430}'..='\u{45F}' => true,
            '\u{101}'..='\u{137}' | '\u{14B}'..='\u{177}' => odd,
            '\u{13A}'..='\u{148}' | '\u{17A}'..='\u{17E}' => !odd,
            _ => false,
        }
}
