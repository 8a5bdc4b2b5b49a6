//! One module per subcommand.

pub mod build;
pub mod eval;
pub mod get;
pub mod prepare_model;
pub mod search;
pub mod vectors;
