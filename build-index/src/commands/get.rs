//! `build-index get <dir> <section-id | path[#anchor]>`: the full source of a section or
//! document, with its metadata.

use crate::error::{CliError, Result};
use crate::folder::open_index;
use midashi_core::answer::quote::{quote_document, quote_section};
use midashi_core::section::SectionId;
use std::path::Path;

/// Runs the command.
pub fn run(dir: &Path, target: &str, json: bool) -> Result<()> {
    let index = open_index(dir, false)?;
    let id = match SectionId::parse(target) {
        Some(id) => Some(id),
        None => match target.split_once('#') {
            Some((path, anchor)) => Some(
                index
                    .find_anchor(path, anchor)
                    .ok_or_else(|| CliError::NotFound(target.to_string()))?,
            ),
            None => None,
        },
    };
    if let Some(id) = id {
        let view = index
            .get_section(id)
            .ok_or_else(|| CliError::NotFound(target.to_string()))?;
        if json {
            println!(
                "{}",
                serde_json::to_string_pretty(&view).unwrap_or_default()
            );
            return Ok(());
        }
        print!("{}", quote_section(&view));
        return Ok(());
    }
    let doc = index
        .get_document(target)
        .ok_or_else(|| CliError::NotFound(target.to_string()))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return Ok(());
    }
    print!("{}", quote_document(&doc));
    Ok(())
}
