//! The encoder's integration tests, one binary: each file below was its own test binary,
//! and each linked tract and the tokenizers again (~50 MB, a few seconds of a clean
//! build apiece).

mod bert;
mod common;
mod multilingual;
mod passages;
mod pieces;
mod prepared;
mod reference;
mod trim;
