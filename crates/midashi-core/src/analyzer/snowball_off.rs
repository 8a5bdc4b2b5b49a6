//! A build without feature `languages` (the browser's keyword modules): English only. An
//! index or query that needs another language's stemmer answers `Error::NeedsFullEngine`
//! (see `Analyzer::for_index`), so nothing is ever analysed by the wrong rules.

use super::Language;
use rust_stemmers::{Algorithm, Stemmer};

/// This build stems English only.
pub(super) const ALL_LANGUAGES: bool = false;

/// The English stemmer; `None` for the languages this build leaves out.
pub(super) fn stemmer(lang: Language) -> Option<Stemmer> {
    (lang == Language::English).then(|| Stemmer::create(Algorithm::English))
}

/// No stop lists besides English's.
pub(super) fn stoplist(_: Language) -> impl Iterator<Item = &'static str> {
    std::iter::empty()
}
