//! Without feature `scripts` (midashi-core with no default features; every wasm module has
//! it, through midashi-wasm's `memo`): the Latin, Greek and Cyrillic characters are
//! normalised and lower-cased by the JS host, as any other (`scripts.rs` says why).

/// No: ask NFKC.
pub(super) fn nfkc_keeps(_: char) -> bool {
    false
}

/// No: ask for the lower case.
pub(super) fn own_lower_case(_: char) -> bool {
    false
}
