//! Grouping a ranked list by ancestor chains, one rule for both layouts: which sections are
//! shown, and in whose place. A section's descendants are the next `subtree` ordinals
//! ([`section_facts`]).

use crate::rank::pipeline::SectionFacts;
use rustc_hash::FxHashMap as HashMap;

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

/// Groups a ranked list by ancestor chains, one rule for both layouts: each section's
/// descendants are the next `subtree` ordinals ([`section_facts`]).
///
/// Parent and child are different passages (a section indexes its own text; its ancestors'
/// headings only as breadcrumbs), so both are shown when both match. What would repeat is a
/// *bare* section ([`SectionFacts::bare`]): it matched by headings its descendants carry
/// too. So a bare section stands for its chain only until a section of the chain with text
/// ranks: that section takes the bare one's place (and score); a bare section ranked after
/// a shown descendant, or under a shown bare ancestor, is left out (and meets the rule
/// again if that ancestor's place is taken by a relative that is not its ancestor).
/// Measured on the docs question sets (bench/questions, keyword nDCG@10, against keeping
/// only each chain's best node): Rust book 0.752 → 0.792, Vue ja 0.550 → 0.575, Vue fr
/// 0.493 → 0.540, Rust book de 0.732 → 0.786.
///
/// A section in `named` (its heading names the query:
/// [`crate::rank::headings::Lifted::named`]) is shown as itself, bare or not, unless one of
/// its descendants is named too (a page's node and its title heading): a visitor who types
/// a page's title wants the page's top, not its first subsection.
pub(crate) fn group_chains(
    ranked: Vec<(u32, f32)>,
    named: &[u32],
    facts: impl Fn(u32) -> SectionFacts,
) -> Vec<(u32, f32)> {
    let innermost: Vec<u32> = named
        .iter()
        .copied()
        .filter(|&a| {
            let last = a.saturating_add(facts(a).subtree);
            !named.iter().any(|&b| b > a && b <= last)
        })
        .collect();
    let facts = |s: u32| {
        let mut f = facts(s);
        f.bare &= !innermost.contains(&s);
        f
    };
    Chains::new(&facts).group(ranked)
}

/// A ranked section: its rank, the section, its score.
type Placed = (usize, u32, f32);

/// A place (or a mark) per section ordinal: a table grown as far as the highest ordinal set,
/// not a hash map — a prefix typed on a large site ranks most of its sections, and hashing
/// them in and out of three maps was a fifth of such a keystroke's time. Ordinals and
/// subtrees come from a validated index (a subtree never reaches past its last section).
///
/// The tables outlive a query (one set per thread, [`SCRATCH`]): made afresh, three tables
/// over a 141k-section site were 1.7 MB to fill before grouping began, a seventh of a
/// grouped query's time. Each notes the ordinals it set and clears only those after use.
#[derive(Default)]
struct Slots {
    place: Vec<u32>,
    /// Ordinals set since the last [`Slots::clear`] (some perhaps removed since).
    set: Vec<u32>,
}

impl Slots {
    const NONE: u32 = u32::MAX;

    #[inline(always)]
    fn get(&self, s: u32) -> Option<usize> {
        match self.place.get(s as usize) {
            Some(&p) if p != Self::NONE => Some(p as usize),
            _ => None,
        }
    }

    #[inline(always)]
    fn contains(&self, s: u32) -> bool {
        self.get(s).is_some()
    }

    #[inline(always)]
    fn insert(&mut self, s: u32, place: usize) {
        let i = s as usize;
        if i >= self.place.len() {
            self.place.resize(i + 1, Self::NONE);
        }
        if self.place[i] == Self::NONE {
            self.set.push(s);
        }
        self.place[i] = place as u32;
    }

    #[inline(always)]
    fn remove(&mut self, s: u32) {
        if let Some(p) = self.place.get_mut(s as usize) {
            *p = Self::NONE;
        }
    }

    /// Empties the table for the next query: the ordinals set, or all of it when they were
    /// most (one fill is faster than as many scattered stores).
    fn clear(&mut self) {
        if self.set.len() > self.place.len() / 4 {
            self.place.fill(Self::NONE);
        } else {
            for &s in &self.set {
                self.place[s as usize] = Self::NONE;
            }
        }
        self.set.clear();
    }
}

std::thread_local! {
    /// The grouping tables of this thread's last query, empty, for the next.
    static SCRATCH: std::cell::Cell<Option<[Slots; 3]>> = const { std::cell::Cell::new(None) };
}

/// [`group_chains`]' state.
struct Chains<'a, F> {
    facts: &'a F,
    /// Results by place, a place being the rank of the section first shown there (so the
    /// list stays in rank order whatever is shown where); `None`: nothing shown there.
    out: Vec<Option<(u32, f32)>>,
    /// Shown section → its place in `out`.
    shown: Slots,
    /// Descendants of shown sections. Only a section with no shown ancestor marks its range
    /// (an ancestor's range holds it), so a section is marked at most once per ancestor:
    /// O(sections × depth) in all, depth ≤ 6.
    covered: Slots,
    /// Descendants of a shown bare section → its place. A shown bare section has no shown
    /// descendant (the first with text takes its place, a bare one is left out), so these
    /// ranges are disjoint.
    under_bare: Slots,
    /// Bare sections left out under a shown bare ancestor, by its place: if a relative takes
    /// that place, those that are not the relative's ancestors are results after all.
    waiting: HashMap<usize, Vec<Placed>>,
}

impl<'a, F: Fn(u32) -> SectionFacts> Chains<'a, F> {
    fn new(facts: &'a F) -> Self {
        Chains {
            facts,
            out: Vec::new(),
            shown: Slots::default(),
            covered: Slots::default(),
            under_bare: Slots::default(),
            waiting: HashMap::default(),
        }
    }

    /// Marks the descendants of `s`, shown now, unless a shown ancestor's range holds it.
    fn cover(&mut self, s: u32) {
        if !self.covered.contains(s) {
            for d in self.range(s) {
                self.covered.insert(d, 0);
            }
        }
    }

    /// Shows `s` in its own place.
    #[inline(always)]
    fn show(&mut self, rank: usize, s: u32, score: f32) {
        self.shown.insert(s, rank);
        self.out[rank] = Some((s, score));
    }

    #[inline(always)]
    fn range(&self, s: u32) -> std::ops::RangeInclusive<u32> {
        s.saturating_add(1)..=s.saturating_add((self.facts)(s).subtree)
    }

    fn group(mut self, ranked: Vec<(u32, f32)>) -> Vec<(u32, f32)> {
        self.out = vec![None; ranked.len()];
        // The tables grow as ordinals are set (by doubling, the first time: they are kept).
        let [shown, covered, under_bare] = SCRATCH.take().unwrap_or_default();
        (self.shown, self.covered, self.under_bare) = (shown, covered, under_bare);
        for (rank, (s, score)) in ranked.into_iter().enumerate() {
            let f = (self.facts)(s);
            if f.bare {
                self.bare((rank, s, score));
            } else if f.subtree == 0 && !self.under_bare.contains(s) {
                // Most candidates: a section with text and no descendants, under no shown bare
                // section — what `with_text` does with it, without asking its facts twice more.
                self.show(rank, s, score);
            } else {
                self.with_text((rank, s, score));
            }
        }
        let mut tables = [
            std::mem::take(&mut self.shown),
            std::mem::take(&mut self.covered),
            std::mem::take(&mut self.under_bare),
        ];
        for t in &mut tables {
            t.clear();
        }
        SCRATCH.set(Some(tables));
        self.out.into_iter().flatten().collect()
    }

    /// A bare section: left out when a shown relative carries its heading — a descendant (in
    /// its breadcrumbs), or a bare ancestor that stands for the chain already; else shown.
    fn bare(&mut self, placed: Placed) {
        let s = placed.1;
        if self.range(s).any(|d| self.shown.contains(d)) {
            return;
        }
        if let Some(i) = self.under_bare.get(s) {
            self.waiting.entry(i).or_default().push(placed);
            return;
        }
        let (place, _, score) = placed;
        let mark = !self.covered.contains(s);
        for d in self.range(s) {
            if mark {
                self.covered.insert(d, 0);
            }
            self.under_bare.insert(d, place);
        }
        self.shown.insert(s, place);
        self.out[place] = Some((s, score));
    }

    /// A section with text: a result of its own, in the place of the shown bare relatives
    /// it has — an ancestor, or descendants (several, on different branches), the first
    /// place among them.
    fn with_text(&mut self, (rank, s, score): Placed) {
        let mut places: Vec<usize> = Vec::new();
        if let Some(i) = self.under_bare.get(s) {
            places.push(i);
        } else {
            for d in self.range(s) {
                if let Some(i) = self.shown.get(d) {
                    if self.out[i].is_some_and(|(k, _)| (self.facts)(k).bare) {
                        places.push(i);
                    }
                }
            }
        }
        let Some(&first) = places.iter().min() else {
            self.cover(s);
            self.show(rank, s, score);
            return;
        };
        let mut waiting = Vec::new();
        for &i in &places {
            let Some((k, _)) = self.out[i] else {
                continue;
            };
            self.shown.remove(k);
            // Its marks are its own unless a shown ancestor's range holds it.
            let own_marks = !self.covered.contains(k);
            for d in self.range(k) {
                self.under_bare.remove(d);
                if own_marks {
                    self.covered.remove(d);
                }
            }
            if i != first {
                self.out[i] = None;
            }
            waiting.extend(self.waiting.remove(&i).unwrap_or_default());
        }
        let place_score = self.out[first].map_or(score, |(_, x)| x);
        self.out[first] = Some((s, score.max(place_score)));
        self.shown.insert(s, first);
        self.cover(s);
        // The sections that waited under what `s` replaced meet the rule again now that it
        // is gone (in rank order under each place; a rank of their own as their place).
        for placed in waiting {
            self.bare(placed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::pipeline::SectionFacts;

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
        let got = group_chains(vec![(1, 9.0), (2, 8.0)], &[], facts);
        assert_eq!(got, vec![(1, 9.0), (2, 8.0)]);
    }

    #[test]
    fn a_bare_section_named_by_the_query_is_shown_as_itself() {
        // H2 3 (bare) is headed as the query: shown, not replaced by its H3.
        let got = group_chains(vec![(3, 10.0), (4, 9.0)], &[3], facts);
        assert_eq!(got, vec![(3, 10.0), (4, 9.0)]);
        let got = group_chains(vec![(3, 10.0), (4, 9.0)], &[], facts);
        assert_eq!(got, vec![(4, 10.0)]);
        // The page's node and its H2 both named: the innermost stands for the page.
        let got = group_chains(vec![(0, 10.0), (3, 9.0), (4, 8.0)], &[0, 3], facts);
        assert_eq!(got, vec![(3, 10.0), (4, 8.0)]);
    }

    #[test]
    fn a_bare_section_gives_its_place_to_its_first_relative_with_text() {
        // The page's title ranks first; its H1 takes its place and score.
        let got = group_chains(vec![(0, 10.0), (6, 9.5), (1, 9.0), (2, 8.0)], &[], facts);
        assert_eq!(got, vec![(1, 10.0), (6, 9.5), (2, 8.0)]);
        // A bare section after a shown descendant is left out.
        let got = group_chains(vec![(4, 10.0), (3, 9.0), (0, 8.0), (5, 7.0)], &[], facts);
        assert_eq!(got, vec![(4, 10.0), (5, 7.0)]);
        // Under a shown bare ancestor too; under a shown ancestor with text it is a result
        // (its heading is its own) until its first descendant with text comes.
        let got = group_chains(vec![(0, 10.0), (3, 9.0)], &[], facts);
        assert_eq!(got, vec![(0, 10.0)]);
        let got = group_chains(vec![(1, 10.0), (3, 9.0), (6, 8.0), (4, 7.0)], &[], facts);
        assert_eq!(got, vec![(1, 10.0), (4, 9.0), (6, 8.0)]);
    }

    #[test]
    fn a_section_with_text_replaces_bare_descendants_on_several_branches() {
        // 3 and 5 are not relatives; 0 is bare and an ancestor of 3 only.
        let got = group_chains(vec![(3, 10.0), (5, 9.0), (1, 8.0), (4, 7.0)], &[], facts);
        // 1 takes 3's place (3 is its descendant); 4 is a child of bare 3, now gone, and
        // shown on its own as a passage inside 1.
        assert_eq!(got, vec![(1, 10.0), (5, 9.0), (4, 7.0)]);
    }

    #[test]
    fn a_bare_page_alone_stands_for_itself() {
        assert_eq!(group_chains(vec![(5, 3.0)], &[], facts), vec![(5, 3.0)]);
    }

    proptest::proptest! {
        /// On any tree, bareness and ranking: every section with text that ranked is shown,
        /// once; a section left out has a shown relative; no shown bare section has a shown
        /// descendant; places keep the ranked order's scores.
        #[test]
        fn grouping_keeps_every_passage_and_repeats_no_heading(
            depths in proptest::collection::vec(0u8..4, 1..40),
            bare in proptest::collection::vec(proptest::bool::ANY, 40),
            picks in proptest::collection::vec((0usize..40, 1u32..1000), 0..40),
        ) {
            // Preorder tree from depths: a section's parent is the nearest earlier section
            // of a smaller depth.
            let n = depths.len();
            let mut parent: Vec<Option<usize>> = vec![None; n];
            for i in 0..n {
                parent[i] = (0..i).rev().find(|&j| depths[j] < depths[i]);
            }
            let mut subtree = vec![0u32; n];
            for i in 0..n {
                let mut p = parent[i];
                while let Some(a) = p {
                    subtree[a] += 1;
                    p = parent[a];
                }
            }
            let facts = |s: u32| SectionFacts {
                depth: depths[s as usize],
                subtree: subtree[s as usize],
                bare: bare[s as usize],
                ..SectionFacts::default()
            };
            let mut ranked: Vec<(u32, f32)> = Vec::new();
            for (s, score) in picks {
                let s = (s % n) as u32;
                if !ranked.iter().any(|r| r.0 == s) {
                    ranked.push((s, score as f32));
                }
            }
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let out = group_chains(ranked.clone(), &[], facts);
            let related = |a: u32, b: u32| {
                let within = |x: u32, y: u32| y > x && y <= x + subtree[x as usize];
                within(a, b) || within(b, a)
            };
            let shown: Vec<u32> = out.iter().map(|r| r.0).collect();
            let mut unique = shown.clone();
            unique.sort_unstable();
            unique.dedup();
            proptest::prop_assert_eq!(unique.len(), shown.len());
            for &(s, _) in &ranked {
                if !bare[s as usize] {
                    proptest::prop_assert!(shown.contains(&s), "{} has text", s);
                } else if !shown.contains(&s) {
                    proptest::prop_assert!(shown.iter().any(|&k| related(s, k)));
                }
            }
            for &k in &shown {
                if bare[k as usize] {
                    proptest::prop_assert!(!shown.iter().any(|&d| d > k && related(k, d)));
                }
            }
            proptest::prop_assert!(out.windows(2).all(|w| w[0].1 >= w[1].1));
        }
    }
}
