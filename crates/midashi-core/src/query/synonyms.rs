//! User synonym dictionaries: groups of equivalent words or phrases, applied at query time.
//!
//! File format: one group per line, members separated by `=` (or `,`), `#` starts a comment:
//!
//! ```text
//! ページング = paging = pagination
//! k8s = kubernetes
//! ```
//!
//! Members are analyzed with the one analyzer when the index is built, so a query matches a
//! member exactly when its terms contain the member's terms in order.

use crate::analyzer::Analyzer;
use crate::error::{Error, Result};

/// Parsed synonym groups (members as raw text).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Synonyms {
    /// Each group: its members.
    pub groups: Vec<Vec<String>>,
}

impl Synonyms {
    /// Parses a synonyms file.
    pub fn parse(text: &str) -> Result<Self> {
        let mut groups = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let members: Vec<String> = line
                .split(['=', ','])
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty())
                .collect();
            if members.len() < 2 {
                return Err(Error::Synonyms {
                    line: i + 1,
                    detail: format!("{line:?} has fewer than two members; write `a = b [= c …]`"),
                });
            }
            groups.push(members);
        }
        Ok(Synonyms { groups })
    }

    /// The groups with every member analyzed into its terms (members with no terms dropped).
    pub fn analyzed(&self, analyzer: &Analyzer) -> Vec<Vec<Vec<String>>> {
        self.groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|m| {
                        analyzer
                            .analyze(m)
                            .into_iter()
                            .map(|t| t.term)
                            .collect::<Vec<_>>()
                    })
                    .filter(|terms| !terms.is_empty())
                    .collect::<Vec<_>>()
            })
            .filter(|g| g.len() >= 2)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_groups_and_reports_bad_lines() {
        let s = Synonyms::parse("# comment\nページング = paging = pagination\n\nk8s, kubernetes\n")
            .unwrap();
        assert_eq!(s.groups.len(), 2);
        assert_eq!(s.groups[0], vec!["ページング", "paging", "pagination"]);
        let err = Synonyms::parse("ok = fine\nlonely\n").unwrap_err();
        assert_eq!(
            err,
            Error::Synonyms {
                line: 2,
                detail: "\"lonely\" has fewer than two members; write `a = b [= c …]`".into()
            }
        );
    }
}
