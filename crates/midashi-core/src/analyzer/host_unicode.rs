//! NFKC and lower-casing: the pieces of the analyzer whose Unicode tables the browser
//! already has.
//!
//! Natively they are the `unicode-normalization` crate and `str::to_lowercase`. The browser
//! build of the keyword engine (`midashi-wasm`, feature `host-unicode`) asks the JS host's
//! `String.prototype.normalize` and `toLowerCase` instead: the normalisation tables and
//! std's case-conversion table were the largest data in the wasm module (the case table
//! alone ~12 KB), and every browser and Node ships the same mappings in ICU — full case
//! mappings with the final-sigma rule, as std's. Only the Unicode version can differ
//! (characters assigned in the newest version may map differently); documents are analysed
//! at build time, queries in the browser.

/// `s` in NFKC.
#[cfg(not(all(target_arch = "wasm32", feature = "host-unicode")))]
pub(crate) fn nfkc(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    s.nfkc().collect()
}

/// `s` in NFKC, when a quick check cannot tell that it already is.
#[cfg(not(all(target_arch = "wasm32", feature = "host-unicode")))]
pub(crate) fn nfkc_if_needed(s: String) -> String {
    match unicode_normalization::is_nfkc_quick(s.chars()) {
        unicode_normalization::IsNormalized::Yes => s,
        _ => nfkc(&s),
    }
}

/// `s` in NFD without its combining marks (accents taken off, as BERT's uncased
/// normaliser does: `vectors::pieces`).
#[cfg(not(all(target_arch = "wasm32", feature = "host-unicode")))]
pub(crate) fn without_accents(s: &str) -> String {
    use unicode_normalization::char::canonical_combining_class;
    use unicode_normalization::UnicodeNormalization;
    s.nfd()
        .filter(|&c| canonical_combining_class(c) == 0)
        .collect()
}

/// `s` lower-cased (Unicode full case mapping; callers take the ASCII fast path first).
#[cfg(not(all(target_arch = "wasm32", feature = "host-unicode")))]
pub(crate) fn to_lowercase(s: &str) -> String {
    s.to_lowercase()
}

/// `s` in NFKC (the JS host's normaliser).
#[cfg(all(target_arch = "wasm32", feature = "host-unicode"))]
pub(crate) fn nfkc(s: &str) -> String {
    String::from(js_sys::JsString::from(s).normalize("NFKC"))
}

/// `s` in NFKC (the JS host's normaliser).
#[cfg(all(target_arch = "wasm32", feature = "host-unicode"))]
pub(crate) fn nfkc_if_needed(s: String) -> String {
    nfkc(&s)
}

/// `s` in NFD without its nonspacing marks (the JS host's normaliser and `\p{Mn}`, the
/// category BERT's uncased normaliser drops).
#[cfg(all(target_arch = "wasm32", feature = "host-unicode"))]
pub(crate) fn without_accents(s: &str) -> String {
    let marks = js_sys::RegExp::new("\\p{Mn}", "gu");
    String::from(
        js_sys::JsString::from(s)
            .normalize("NFD")
            .replace_by_pattern(&marks, ""),
    )
}

/// `s` lower-cased (the JS host's `toLowerCase`).
#[cfg(all(target_arch = "wasm32", feature = "host-unicode"))]
pub(crate) fn to_lowercase(s: &str) -> String {
    String::from(js_sys::JsString::from(s).to_lower_case())
}
