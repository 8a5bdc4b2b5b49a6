//! Without feature `scripts` (the size-first sharded keyword module): the Latin, Greek and
//! Cyrillic characters are normalised and lower-cased by the JS host, as any other
//! (`scripts.rs` says why the others have them).

/// No: ask NFKC.
pub(super) fn nfkc_keeps(_: char) -> bool {
    false
}

/// No: ask for the lower case.
pub(super) fn own_lower_case(_: char) -> bool {
    false
}
