//! One module per subcommand.

pub mod build;
pub mod eval;
pub mod get;
pub mod search;
pub mod vectors;
