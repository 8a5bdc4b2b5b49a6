//! What a lean build of the engine leaves out, each behind one feature, with a stand-in
//! that refuses the file (or the request) with an error naming the engine that has it:
//! - [`bundles`] (feature `bundles`): whole documents, for previews longer than a card's
//!   lines and for look-ups by id or path;
//! - [`lexicon`] (feature `typos`): every term, for typo corrections;
//! - [`tree`] (feature `semantic`): every section's facts, for the semantic leg.
//!
//! The keyword modules are built without all three (web/wasm-modules.json).

#[cfg_attr(not(feature = "bundles"), path = "bundles_off.rs")]
mod bundles;
#[cfg_attr(not(feature = "typos"), path = "lexicon_off.rs")]
mod lexicon;
#[cfg_attr(not(feature = "semantic"), path = "tree_off.rs")]
mod tree;
