//! Every Snowball stemmer (rust-stemmers), and the stop lists of their languages
//! (`stoplists.rs`, which tell a page's language: `Language::guess`; English keeps its own,
//! `stopwords.rs`, which queries drop). Feature `languages`: ~35 KB gzip of wasm that the
//! English keyword modules leave out.

use super::Language;
use rust_stemmers::{Algorithm, Stemmer};

/// This build stems every [`Language`].
pub(super) const ALL_LANGUAGES: bool = true;

/// The stemmer of `lang`.
pub(super) fn stemmer(lang: Language) -> Option<Stemmer> {
    let algorithm = match lang {
        Language::English => Algorithm::English,
        Language::Arabic => Algorithm::Arabic,
        Language::Danish => Algorithm::Danish,
        Language::Dutch => Algorithm::Dutch,
        Language::Finnish => Algorithm::Finnish,
        Language::French => Algorithm::French,
        Language::German => Algorithm::German,
        Language::Greek => Algorithm::Greek,
        Language::Hungarian => Algorithm::Hungarian,
        Language::Italian => Algorithm::Italian,
        Language::Norwegian => Algorithm::Norwegian,
        Language::Portuguese => Algorithm::Portuguese,
        Language::Romanian => Algorithm::Romanian,
        Language::Russian => Algorithm::Russian,
        Language::Spanish => Algorithm::Spanish,
        Language::Swedish => Algorithm::Swedish,
        Language::Tamil => Algorithm::Tamil,
        Language::Turkish => Algorithm::Turkish,
    };
    Some(Stemmer::create(algorithm))
}

/// The stop list of a language other than English (none for English: see
/// `stopwords.rs`).
pub(super) fn stoplist(lang: Language) -> impl Iterator<Item = &'static str> {
    let list = if lang == Language::English {
        ""
    } else {
        super::stoplists::of(lang.code())
    };
    list.split('\n').filter(|w| !w.is_empty())
}
