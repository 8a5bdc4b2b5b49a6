//! Unicode NFKC, the one piece of the analyzer whose tables the browser already has.
//!
//! Natively it is the `unicode-normalization` crate. The browser build of the keyword engine
//! (`midashi-wasm`, feature `host-nfkc`) asks the JS host's `String.prototype.normalize`
//! instead: the crate's composition and decomposition tables are a large share of the wasm
//! module's data, and every browser and Node ships the same normalisation in ICU. Only the
//! Unicode version can differ (characters assigned in the newest version may normalise
//! differently); documents are normalised at build time, queries in the browser.

/// `s` in NFKC.
#[cfg(not(all(target_arch = "wasm32", feature = "host-nfkc")))]
pub(crate) fn nfkc(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    s.nfkc().collect()
}

/// `s` in NFKC, when a quick check cannot tell that it already is.
#[cfg(not(all(target_arch = "wasm32", feature = "host-nfkc")))]
pub(crate) fn nfkc_if_needed(s: String) -> String {
    match unicode_normalization::is_nfkc_quick(s.chars()) {
        unicode_normalization::IsNormalized::Yes => s,
        _ => nfkc(&s),
    }
}

/// `s` in NFKC (the JS host's normaliser).
#[cfg(all(target_arch = "wasm32", feature = "host-nfkc"))]
pub(crate) fn nfkc(s: &str) -> String {
    String::from(js_sys::JsString::from(s).normalize("NFKC"))
}

/// `s` in NFKC (the JS host's normaliser).
#[cfg(all(target_arch = "wasm32", feature = "host-nfkc"))]
pub(crate) fn nfkc_if_needed(s: String) -> String {
    nfkc(&s)
}
