//! The exact-heading lift, one rule for both layouts: a section whose heading names what was
//! asked comes first, a page titled so before a section headed so.
//!
//! Headings and queries are compared without the site's own words ([`is_site_word`]): on
//! the AWS Lambda guide the page "AWS Lambda layers" names the topic "layers" as exactly as a
//! permissions table's "Layers" heading does, and a visitor who types "layers" wants the page.
use crate::analyzer::Analyzer;

/// A section's heading as the exact-heading lift compares it with a query: its distinct
/// query terms, sorted. (The sharded layout's writer stores the same, per posting.)
pub fn heading_terms(analyzer: &Analyzer, heading: &str) -> Vec<String> {
    let mut have: Vec<String> = analyzer
        .analyze_query(heading)
        .into_iter()
        .filter(|t| !t.part)
        .map(|t| t.term)
        .collect();
    crate::sort::sort(&mut have);
    have.dedup();
    have
}

/// Whether a term that `df` of the index's `sections` hold is one of the site's own words:
/// more than half of the sections hold it ("AWS" and "Lambda" in the AWS Lambda guide). A
/// heading that adds such words to a topic's name still names only the topic. Decided from
/// the document frequency both layouts store, so the writer and every reader agree.
pub fn is_site_word(df: u64, sections: usize) -> bool {
    df.saturating_mul(2) > sections as u64
}

/// A heading or a query as the lift compares them, the site's words left out: `len` counts
/// term occurrences (as the heading field's length does), `count` distinct terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Term occurrences.
    pub len: u32,
    /// Distinct terms.
    pub count: u32,
}

impl Shape {
    /// The shape of a text (a heading or a query) whose distinct meaningful terms are
    /// `terms` (sorted): its term occurrences and the number of `terms`, those that
    /// `site_word` names left out. Stopwords count in the length: with them left out too,
    /// "Structs and Tuples" named the query "tuple structs" exactly and went first in the
    /// Rust book (navigational Top-1 0.914 → 0.886).
    pub fn of(
        analyzer: &Analyzer,
        text: &str,
        terms: &[&str],
        mut site_word: impl FnMut(&str) -> bool,
    ) -> Self {
        let site: Vec<&str> = terms.iter().copied().filter(|t| site_word(t)).collect();
        let mut len = 0;
        analyzer.visit_terms(text, &mut |t, _| {
            if !site.contains(&t) {
                len += 1;
            }
        });
        Shape {
            len,
            count: (terms.len() - site.len()) as u32,
        }
    }
}

/// A section's heading as the lift compares it, one definition for the sharded writer and
/// the single-file reader: its distinct meaningful terms, sorted ([`heading_terms`]), and its
/// shape ([`Shape::of`]).
pub fn heading_shape(
    analyzer: &Analyzer,
    heading: &str,
    site_word: impl FnMut(&str) -> bool,
) -> (Vec<String>, Shape) {
    let have = heading_terms(analyzer, heading);
    let terms: Vec<&str> = have.iter().map(String::as_str).collect();
    let shape = Shape::of(analyzer, heading, &terms, site_word);
    (have, shape)
}

/// The query as the lift reads it: its distinct meaningful terms, sorted, and its shape.
pub(crate) struct Asked<'a> {
    /// Distinct meaningful query terms, sorted.
    pub wanted: &'a [&'a str],
    /// The query without the site's words ([`Shape::of`]).
    pub shape: Shape,
}

impl<'a> Asked<'a> {
    /// The query `text`, whose distinct meaningful terms are `wanted` (sorted).
    pub fn new(
        analyzer: &Analyzer,
        text: &str,
        wanted: &'a [&'a str],
        site_word: impl FnMut(&str) -> bool,
    ) -> Self {
        Asked {
            wanted,
            shape: Shape::of(analyzer, text, wanted, site_word),
        }
    }
}

/// How a section's heading compares with the query, for `lift_exact_headings`.
pub(crate) struct HeadingMatch {
    /// The heading says exactly what was asked (same terms, same length), the site's words
    /// aside.
    pub exact: bool,
    /// The heading contains every query word.
    pub contains_all: bool,
    /// The share of the heading's terms (the site's words aside) that the query holds.
    pub coverage: f32,
    /// The section's depth.
    pub depth: u8,
    /// How many sections its page has: of two pages titled alike, the one with more is where
    /// the topic is treated (the guide's page, not a tutorial step of the same title).
    pub page_sections: u32,
}

impl HeadingMatch {
    /// A heading of `shape` holding `have` of the query's distinct terms, at `depth`, on a
    /// page of `page_sections` sections.
    pub fn new(
        asked: &Asked<'_>,
        shape: Shape,
        have: usize,
        (depth, page_sections): (u8, u32),
    ) -> Self {
        let contains_all = have == asked.wanted.len();
        HeadingMatch {
            exact: contains_all && shape == asked.shape,
            contains_all,
            coverage: if shape.count == 0 {
                1.0
            } else {
                (asked.shape.count as f32 / shape.count as f32).min(1.0)
            },
            depth,
            page_sections,
        }
    }
}

/// A section whose heading says exactly what was asked comes first: its score is lifted
/// above the best non-exact score (keeping order among exact matches). Headings that merely
/// contain every query word get a smaller lift, larger for page-level headings (a page about
/// X beats a subsection mentioning X). `matching(i, s)` describes the heading of the `i`th
/// ranked section `s` (`None`: no match worth checking).
pub(crate) fn lift_exact_headings(
    ranked: &mut [(u32, f32)],
    mut matching: impl FnMut(usize, u32) -> Option<HeadingMatch>,
) -> Lifted {
    let top = ranked.first().map_or(0.0, |r| r.1);
    let mut lifted = Lifted::default();
    // Exact matches are near the top anyway; looking further only costs time.
    let head = ranked.len().min(LIFT_HEAD);
    for (i, r) in ranked[..head].iter_mut().enumerate() {
        let Some(m) = matching(i, r.0) else {
            continue;
        };
        if m.exact {
            // A page titled exactly so is the page about it: above a section of another page
            // that happens to carry the same heading ("Suspense" the guide's page, not the
            // API reference's entry); of pages titled alike, the one with more sections; of
            // sections headed alike, an h2 (a topic of its page) before a deeper one.
            r.1 += match m.depth {
                0 | 1 => 2.0 * top * (1.0 + 0.1 * (m.page_sections.clamp(1, 1024) as f32).ln()),
                2 => 1.2 * top,
                _ => top,
            };
            lifted.all.push(r.0);
            lifted.named.push(r.0);
        } else if m.contains_all {
            let lift: f32 = match m.depth {
                0 | 1 => 0.25,
                2 => 0.15,
                _ => 0.1,
            };
            // A heading that is mostly other words ("… Kinesis Data Firehose" for
            // "kinesis") names the query less than one that is half of it.
            r.1 *= 1.0 + lift * (2.0 * m.coverage).min(1.0);
            lifted.all.push(r.0);
        }
    }
    if !lifted.all.is_empty() {
        // Only the head needs sorting again: a lift only raises scores, and every section
        // after the head was ranked below every section in it (by score, then ordinal), so
        // it still is. Re-sorting a common prefix's tens of thousands of candidates was a
        // tenth of such a keystroke's time.
        crate::rank::bm25::sort_ranked(&mut ranked[..head]);
    }
    lifted
}

/// The sections [`lift_exact_headings`] lifted.
#[derive(Debug, Default)]
pub(crate) struct Lifted {
    /// Every section lifted: hybrid fusion keeps their keyword places
    /// ([`crate::rank::fusion::keep_places`]).
    pub all: Vec<u32>,
    /// Those whose heading names the query exactly: grouping shows them as themselves even
    /// when they have no text of their own ([`crate::rank::grouping::group_chains`]), since
    /// a visitor who types a page's title wants the page's top, not its first subsection.
    pub named: Vec<u32>,
}

/// How many of a ranked list's first sections the exact-heading lift looks at.
pub(crate) const LIFT_HEAD: usize = 200;

/// How many of a ranked list's first sections are checked whatever their heading's length
/// (past them, only headings as long as the query, the site's words aside).
pub(crate) const LIFT_ANY_LEN: usize = 50;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_words_are_held_by_more_than_half_the_sections() {
        assert!(is_site_word(51, 100));
        assert!(!is_site_word(50, 100));
        assert!(!is_site_word(0, 0));
    }

    #[test]
    fn a_heading_names_a_topic_up_to_the_site_words() {
        let a = Analyzer::default();
        let site = |t: &str| t == "aw" || t == "aws" || t == "lambda";
        let heading = "AWS Lambda layers";
        let terms = heading_terms(&a, heading);
        let terms: Vec<&str> = terms.iter().map(String::as_str).collect();
        let shape = Shape::of(&a, heading, &terms, site);
        assert_eq!(shape, Shape { len: 1, count: 1 });

        let query = "layers";
        let wanted = heading_terms(&a, query);
        let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
        let asked = Asked::new(&a, query, &wanted, site);
        let have = wanted.iter().filter(|w| terms.contains(w)).count();
        assert!(HeadingMatch::new(&asked, shape, have, (1, 1)).exact);
        // Without the site's words left out, the heading is longer than the query.
        let plain = Shape::of(&a, heading, &terms, |_| false);
        assert!(!HeadingMatch::new(&asked, plain, have, (1, 1)).exact);
    }
}
