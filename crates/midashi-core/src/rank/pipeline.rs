//! The ranking pipeline after scoring, one rule for both layouts: BM25F summed over a
//! plan's clauses (`accumulate`), the filters (`filters_pass`), the exact-heading lift
//! (`lift_exact_headings`) and grouping by ancestor chains (`group_by_ranges`). Each
//! layout hands in what it knows of a section; the arithmetic and the order of float
//! additions happen here once, so the two layouts rank alike, bit for bit.
use crate::analyzer::Analyzer;
use crate::answer::SearchOptions;
use crate::query::{QueryPlan, WeightedTerm};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::{Deserialize, Serialize};
/// What ranking needs of a section, whatever leg found it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionFacts {
    /// 0–6.
    pub depth: u8,
    /// Number of sections below it (its descendants are the next `subtree` ordinals).
    pub subtree: u32,
    /// Version family (a versioned site's sections that are one section in several versions).
    pub family: Option<u32>,
    /// No text of its own ([`is_bare`]). Not in the facts' own encoding: the sharded files
    /// carry it in lists of their own, which a 1.11 reader leaves unread.
    #[serde(skip)]
    pub bare: bool,
}

/// Whether a section has no text of its own — no prose, no code: a page's title over its
/// first heading, a heading followed at once by a subheading. It matches by its heading
/// and breadcrumbs only, which its descendants show too, so it is not a passage of its own
/// (see [`group_chains`]). One definition for the single-file reader and the sharded writer.
pub fn is_bare(field_lengths: &[u8], s: u32) -> bool {
    use crate::rank::fields::{field_len, Field};
    let len = |f: Field| field_len(field_lengths, s, f as usize).unwrap_or(0);
    len(Field::Body) == 0 && len(Field::Code) == 0
}

/// Per section: depth, number of descendants (sections are in document order, so a
/// section's descendants are the next `subtree` ordinals), family and bareness.
pub fn section_facts(
    sections: &crate::section::records::SectionsData,
    families: Option<&crate::rank::versions::Families>,
    field_lengths: &[u8],
) -> Vec<SectionFacts> {
    let n = sections.sections.len();
    let mut facts: Vec<SectionFacts> = sections
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| SectionFacts {
            depth: s.depth,
            subtree: 0,
            family: families.and_then(|f| f.family(i as u32)),
            bare: is_bare(field_lengths, i as u32),
        })
        .collect();
    for s in &sections.sections {
        let mut p = s.parent;
        while let Some(a) = p {
            if let Some(f) = facts.get_mut(a as usize) {
                f.subtree += 1;
            }
            p = sections.sections.get(a as usize).and_then(|x| x.parent);
        }
    }
    debug_assert!(facts.iter().all(|f| (f.subtree as usize) < n.max(1)));
    facts
}

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

/// Sums BM25F over a plan's clauses: each clause scores its best alternative, the clauses
/// add up. `scores` hands each term's `(section, score)` pairs to the callback. One
/// function for both layouts, so the float additions happen in the same order and the
/// totals agree to the bit. Returns the sections touched with their totals.
pub(crate) fn accumulate(
    n: usize,
    plan: &QueryPlan,
    mut scores: impl FnMut(&WeightedTerm, &mut dyn FnMut(u32, f32)),
) -> Vec<(u32, f32)> {
    let mut total = vec![0f32; n];
    let mut touched: Vec<u32> = Vec::new();
    let add = |total: &mut Vec<f32>, touched: &mut Vec<u32>, s: u32, v: f32| {
        if let Some(slot) = total.get_mut(s as usize) {
            if *slot == 0.0 {
                touched.push(s);
            }
            *slot += v;
        }
    };
    for clause in &plan.clauses {
        let single = clause.alternatives.len() == 1 && clause.alternatives[0].terms.len() == 1;
        let mut best: HashMap<u32, f32> = HashMap::default();
        for alt in &clause.alternatives {
            let mut alt_scores: HashMap<u32, f32> = HashMap::default();
            for t in &alt.terms {
                scores(t, &mut |s, score| {
                    let v = t.weight * score;
                    if single {
                        add(&mut total, &mut touched, s, v);
                    } else {
                        *alt_scores.entry(s).or_insert(0.0) += v;
                    }
                });
            }
            for (s, v) in alt_scores {
                let e = best.entry(s).or_insert(0.0);
                *e = e.max(v);
            }
        }
        // Sorted so the float additions happen in the same order everywhere.
        let mut best: Vec<(u32, f32)> = best.into_iter().collect();
        crate::sort::sort_by_key(&mut best, |&(s, _)| s);
        for (s, v) in best {
            add(&mut total, &mut touched, s, v);
        }
    }
    touched
        .into_iter()
        .map(|s| (s, total[s as usize]))
        .collect()
}

/// How a section's heading compares with the query, for `lift_exact_headings`.
pub(crate) struct HeadingMatch {
    /// The heading says exactly what was asked (same length, same terms).
    pub exact: bool,
    /// The heading contains every query word.
    pub contains_all: bool,
    /// The section's depth.
    pub depth: u8,
}

/// A section whose heading says exactly what was asked comes first: its score is lifted
/// above the best non-exact score (keeping order among exact matches). Headings that merely
/// contain every query word get a smaller lift, larger for page-level headings (a page about
/// X beats a subsection mentioning X). `matching(i, s)` describes the heading of the `i`th
/// ranked section `s` (`None`: no match worth checking). Returns the sections lifted:
/// hybrid fusion keeps their keyword places ([`crate::rank::fusion::keep_places`]).
pub(crate) fn lift_exact_headings(
    ranked: &mut [(u32, f32)],
    mut matching: impl FnMut(usize, u32) -> Option<HeadingMatch>,
) -> Vec<u32> {
    let top = ranked.first().map_or(0.0, |r| r.1);
    let mut lifted = Vec::new();
    // Exact matches are near the top anyway; looking further only costs time.
    for (i, r) in ranked.iter_mut().take(200).enumerate() {
        let Some(m) = matching(i, r.0) else {
            continue;
        };
        if m.exact {
            r.1 += top;
            lifted.push(r.0);
        } else if m.contains_all {
            r.1 *= match m.depth {
                0 | 1 => 1.25,
                2 => 1.15,
                _ => 1.1,
            };
            lifted.push(r.0);
        }
    }
    if !lifted.is_empty() {
        crate::rank::bm25::sort_ranked(ranked);
    }
    lifted
}

/// Groups a ranked list by ancestor chains, one rule for both layouts: each section's
/// descendants are the next `subtree` ordinals ([`section_facts`]).
///
/// Parent and child are different passages (a section indexes its own text; its ancestors'
/// headings only as breadcrumbs), so both are shown when both match. What would repeat is a
/// *bare* section ([`SectionFacts::bare`]): it matched by headings its descendants carry
/// too. So a bare section stands for its chain only until a section of the chain with text
/// ranks: that section takes the bare one's place (and score); a bare section ranked after
/// a shown descendant, or under a shown bare ancestor, is left out. Measured on the docs question sets (bench/questions,
/// keyword nDCG@10, against keeping only each chain's best node): Rust book 0.752 → 0.792,
/// Vue ja 0.550 → 0.575, Vue fr 0.493 → 0.540, Rust book de 0.732 → 0.786.
pub(crate) fn group_chains(
    ranked: Vec<(u32, f32)>,
    facts: impl Fn(u32) -> SectionFacts,
) -> Vec<(u32, f32)> {
    // Hash maps and sets, not ordered maps: the wasm module has these types already, a
    // B-tree would add its own (~12 KB).
    let mut out: Vec<Option<(u32, f32)>> = Vec::new();
    // Shown section → its place in `out`.
    let mut shown: HashMap<u32, usize> = HashMap::default();
    // Descendants of shown sections. Only a section with no shown ancestor marks its range
    // (an ancestor's range holds it), so a section is marked at most once per ancestor:
    // O(sections × depth) in all, depth ≤ 6.
    let mut covered: HashSet<u32> = HashSet::default();
    // Descendants of a shown bare section → its place. A shown bare section has no shown
    // descendant (the first with text takes its place, a bare one is left out), so these
    // ranges are disjoint.
    let mut under_bare: HashMap<u32, usize> = HashMap::default();
    let range = |s: u32| s.saturating_add(1)..=s.saturating_add(facts(s).subtree);
    for (s, score) in ranked {
        let f = facts(s);
        if f.bare {
            // Left out when a shown relative carries its heading: a descendant (in its
            // breadcrumbs), or a bare ancestor that stands for the chain already.
            let shown_below = range(s).any(|d| shown.contains_key(&d));
            if shown_below || under_bare.contains_key(&s) {
                continue;
            }
            let mark = !covered.contains(&s);
            for d in range(s) {
                if mark {
                    covered.insert(d);
                }
                under_bare.insert(d, out.len());
            }
            shown.insert(s, out.len());
            out.push(Some((s, score)));
            continue;
        }
        // The shown bare relatives `s` takes the place of: an ancestor, or descendants
        // (several, on different branches); it takes the first place among them.
        let mut places: Vec<usize> = Vec::new();
        if let Some(&i) = under_bare.get(&s) {
            places.push(i);
        } else {
            for d in range(s) {
                if let Some(&i) = shown.get(&d) {
                    if out[i].is_some_and(|(k, _)| facts(k).bare) {
                        places.push(i);
                    }
                }
            }
        }
        let Some(&first) = places.iter().min() else {
            if !covered.contains(&s) {
                covered.extend(range(s));
            }
            shown.insert(s, out.len());
            out.push(Some((s, score)));
            continue;
        };
        for &i in &places {
            let Some((k, _)) = out[i] else { continue };
            shown.remove(&k);
            for d in range(k) {
                under_bare.remove(&d);
                // Its marks are its own unless a shown ancestor's range holds it.
                if !covered.contains(&k) {
                    covered.remove(&d);
                }
            }
            if i != first {
                out[i] = None;
            }
        }
        let (_, place_score) = out[first].unwrap_or((s, score));
        out[first] = Some((s, place_score));
        shown.insert(s, first);
        if !covered.contains(&s) {
            covered.extend(range(s));
        }
    }
    out.into_iter().flatten().collect()
}

/// The filters of `opts`, one rule for both layouts: what a section's document says of its
/// path (asked only under a path filter), its depth (only under a depth filter), category,
/// language, version (`facets`, in that order) and tags.
pub(crate) fn filters_pass(
    opts: &SearchOptions,
    path_starts_with: impl FnOnce(&str) -> bool,
    depth: impl FnOnce() -> u8,
    facets: [Option<&str>; 3],
    has_tag: impl Fn(&str) -> bool,
) -> bool {
    let [category, lang, version] = facets;
    let is =
        |want: &Option<String>, have: Option<&str>| want.as_deref().is_none_or(|w| have == Some(w));
    opts.path
        .as_ref()
        .is_none_or(|p| path_starts_with(p.trim_start_matches('/')))
        && (opts.depth.is_empty() || opts.depth.contains(&depth()))
        && is(&opts.category, category)
        && is(&opts.lang, lang)
        && is(&opts.version, version)
        && opts.tags.iter().all(|t| has_tag(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Preorder ordinals: page 0 (bare title) ⊃ 1 (H1, text) ⊃ 2 (H2, text) and
    /// 3 (H2, bare) ⊃ 4 (H3, text); page 5 (bare) ⊃ 6 (text).
    fn facts(s: u32) -> SectionFacts {
        let (subtree, bare) = match s {
            0 => (4, true),
            1 => (3, false),
            3 => (1, true),
            5 => (1, true),
            _ => (0, false),
        };
        SectionFacts {
            subtree,
            bare,
            ..SectionFacts::default()
        }
    }

    #[test]
    fn a_parent_and_its_child_with_text_are_two_passages() {
        let got = group_chains(vec![(1, 9.0), (2, 8.0)], facts);
        assert_eq!(got, vec![(1, 9.0), (2, 8.0)]);
    }

    #[test]
    fn a_bare_section_gives_its_place_to_its_first_relative_with_text() {
        // The page's title ranks first; its H1 takes its place and score.
        let got = group_chains(vec![(0, 10.0), (6, 9.5), (1, 9.0), (2, 8.0)], facts);
        assert_eq!(got, vec![(1, 10.0), (6, 9.5), (2, 8.0)]);
        // A bare section after a shown descendant is left out.
        let got = group_chains(vec![(4, 10.0), (3, 9.0), (0, 8.0), (5, 7.0)], facts);
        assert_eq!(got, vec![(4, 10.0), (5, 7.0)]);
        // Under a shown bare ancestor too; under a shown ancestor with text it is a result
        // (its heading is its own) until its first descendant with text comes.
        let got = group_chains(vec![(0, 10.0), (3, 9.0)], facts);
        assert_eq!(got, vec![(0, 10.0)]);
        let got = group_chains(vec![(1, 10.0), (3, 9.0), (6, 8.0), (4, 7.0)], facts);
        assert_eq!(got, vec![(1, 10.0), (4, 9.0), (6, 8.0)]);
    }

    #[test]
    fn a_section_with_text_replaces_bare_descendants_on_several_branches() {
        // 3 and 5 are not relatives; 0 is bare and an ancestor of 3 only.
        let got = group_chains(vec![(3, 10.0), (5, 9.0), (1, 8.0), (4, 7.0)], facts);
        // 1 takes 3's place (3 is its descendant); 4 is a child of bare 3, now gone, and
        // shown on its own as a passage inside 1.
        assert_eq!(got, vec![(1, 10.0), (5, 9.0), (4, 7.0)]);
    }

    #[test]
    fn a_bare_page_alone_stands_for_itself() {
        assert_eq!(group_chains(vec![(5, 3.0)], facts), vec![(5, 3.0)]);
    }
}
