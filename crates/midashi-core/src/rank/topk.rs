//! Exact top-k without ranking every candidate: a bound on the scores a query can reach,
//! the postings that bound rules out, and the checks that the page they leave is the page
//! ranking every candidate gives.
//!
//! Why: a common word on a large site matches tens of thousands of sections, and sorting,
//! grouping and collapsing every one of them was two fifths of such a query's time for a
//! page of ten (issue #24). Lucene and tantivy skip them with the same argument (MaxScore):
//!
//! The bound is made in [`crate::rank::bound`] (feature `bounded`; the size-first sharded
//! keyword module leaves it out and ranks every candidate):
//!
//! - θ, a score at least k sections reach: a term that is a clause's whole alternative
//!   gives each of its sections at least its own score, so the k-th largest score in its
//!   list (read from the list's score column, [`crate::layout::Ranking::score_stats`]) is one;
//!   the largest such over the plan's terms is θ.
//! - A posting whose score, plus the most every other clause (and every other term of its
//!   alternative) can add, stays below θ belongs to a section that ranks below θ: it is left
//!   out ([`Pruning::floor`]). A section that reaches θ has no such posting, so its sum is
//!   exactly the full ranking's, made by the same additions in the same order.
//! - The sections at or above θ are then the full ranking's first ones, at least k of them;
//!   the lift, grouping and collapse run on them. What lies below θ can change the page in
//!   two ways only, both checked against the postings left out, and the query is ranked
//!   whole when either could happen: a section with text below θ takes the place of a bare
//!   relative shown above it ([`crate::rank::grouping`]), or a version below θ joins a result
//!   of the page ([`crate::rank::versions::collapse`], which shows the newest).
//!
//! What it costs: the total becomes a lower bound when postings were left out
//! ([`at_least`]), as Lucene's is past its threshold — the sections with text of distinct
//! families, each of which is a result whatever ranks where.
use crate::rank::facts::{SectionFacts, Seen};
use crate::rank::versions::Collapsed;

/// How many sections at least θ must keep: the exact-heading lift reads the first
/// `lift_head` of the ranked list, and a page of ten on a versioned site collapses several
/// sections into each result.
pub(crate) fn depth(lift_head: usize, offset: usize, limit: usize) -> usize {
    lift_head.max(offset.saturating_add(limit).saturating_mul(20))
}

/// The bound of one query: θ, which clauses are essential, and per term of the plan in its
/// order (clause, alternative, term) the smallest weighted score a posting of an essential
/// clause needs to be kept.
#[derive(Debug)]
pub(crate) struct Pruning {
    /// A score at least [`depth`] sections reach.
    pub theta: f32,
    pub(crate) floors: Vec<f64>,
    /// Per clause: whether it is essential. The clauses that are not, together, add less
    /// than θ: a section matching only them ranks below it, so their postings count only
    /// for sections an essential clause found (MaxScore's split).
    pub(crate) essential: Vec<bool>,
    /// Per clause: the most it can add to a section (its best alternative's largest
    /// weighted scores).
    pub(crate) tops: Vec<f64>,
    /// How many sections θ stands for ([`depth`]): a θ raised while ranking must be reached
    /// by as many.
    pub(crate) depth: usize,
    /// Per clause: its lists' postings (empty when unknown: every later essential clause is
    /// then tested, [`Partial`]).
    pub(crate) postings: Vec<usize>,
    /// How many times θ's depth a clause's lists must hold to be tested (the index's
    /// bounding factor, [`crate::rank::bound::WORTH_IT`] unless a test lowers it).
    pub(crate) worth: usize,
}

impl Pruning {
    /// The most the clauses `c` for which `left(c)` holds can add together.
    pub fn top_of(&self, left: impl Fn(usize) -> bool) -> f64 {
        self.tops
            .iter()
            .enumerate()
            .filter(|&(c, _)| left(c))
            .map(|(_, t)| t)
            .sum()
    }

    /// The floor of the `i`-th term of the plan (in clause, alternative, term order).
    #[inline(always)]
    pub fn floor(&self, i: usize) -> f64 {
        self.floors.get(i).copied().unwrap_or(f64::NEG_INFINITY)
    }

    /// Whether clause `c` is essential.
    #[inline(always)]
    pub fn essential(&self, c: usize) -> bool {
        self.essential.get(c).copied().unwrap_or(true)
    }

    /// Whether some clause is not essential (its postings wait for the essential ones').
    pub fn splits(&self) -> bool {
        self.essential.iter().any(|e| !e)
    }
}

/// Which postings of a term's walk the bound leaves out ([`Pruning`]): those whose
/// weighted score is below the term's floor; for a clause that is not essential, those of
/// sections no essential clause found; and, once earlier clauses were added up, those that
/// cannot lift their section's sum to θ ([`Partial`]).
#[derive(Clone, Copy)]
pub(crate) struct Split<'a> {
    /// The smallest weighted score kept.
    pub floor: f64,
    /// The sections found, for a clause that is not essential.
    pub found: Option<&'a Bits>,
    /// What the clauses walked before this one add to each section.
    pub partial: Option<&'a Partial<'a>>,
}

/// The test a posting of a later essential clause meets (MaxScore's floor with the section's
/// own sum in place of the most the earlier clauses could add): the sum of the essential
/// clauses walked before, plus the posting, plus the most every clause not yet walked can
/// add, must reach θ — a θ raised to the k-th best of those sums, which k sections' totals
/// reach (each total is at least its sum: scores are not negative, and adding one to a float
/// sum never lowers it).
///
/// Why: a typed prefix after complete words ("Help Before th") completes to common words
/// whose lists hold most of a large site's sections, every posting over the bound from the
/// lists alone, so all ninety thousand were summed, sorted and grouped for a page of five;
/// most of those sections hold none of the earlier words, and this leaves them out.
#[derive(Clone, Copy)]
pub(crate) struct Partial<'a> {
    /// Per section ordinal: the sum so far (0 where none).
    pub sums: &'a [f32],
    /// The most the clauses not yet walked (this one's other terms aside) can add.
    pub rest: f64,
    /// θ less the float slack ([`crate::rank::bound`]'s margin).
    pub reach: f64,
}

impl Split<'_> {
    /// Whether a posting of section `s` and weighted score `v` is left out.
    #[inline(always)]
    pub fn leaves_out(&self, s: u32, v: f32) -> bool {
        f64::from(v) < self.floor
            || self.found.is_some_and(|f| !f.contains(s))
            || self.partial.is_some_and(|p| {
                let sum = p.sums.get(s as usize).copied().unwrap_or(0.0);
                f64::from(sum) + f64::from(v) + p.rest < p.reach
            })
    }

    /// A posting of a term of weight `w` handed to `emit`, or noted in `below` if it is
    /// left out: the split applied as postings are handed over, for a layout that does not
    /// split them as it reads them.
    #[inline(always)]
    pub fn hand_over(
        &self,
        w: f32,
        (s, score, f): (u32, f32, SectionFacts),
        emit: &mut dyn FnMut(u32, f32, SectionFacts),
        below: &mut Below,
    ) {
        if self.leaves_out(s, w * score) {
            below.note(s, f);
        } else {
            emit(s, score, f);
        }
    }
}

/// A set of ordinals (sections or families) below `n`, as bits.
#[derive(Debug, Default)]
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    /// An empty set of ordinals below `n`.
    pub(crate) fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }

    /// Sets `i`; false if it was set already. An ordinal past the table (a family numbered
    /// past the index's sections) is never counted as set.
    #[inline(always)]
    pub(crate) fn insert(&mut self, i: u32) -> bool {
        let i = i as usize;
        match self.0.get_mut(i / 64) {
            Some(word) if *word & (1 << (i % 64)) == 0 => {
                *word |= 1 << (i % 64);
                true
            }
            Some(_) => false,
            None => true,
        }
    }

    #[inline(always)]
    pub(crate) fn contains(&self, i: u32) -> bool {
        let i = i as usize;
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// The set ordinals in `from..to`, ascending.
    fn range(&self, from: u32, to: u32) -> impl Iterator<Item = u32> + '_ {
        (from..to).filter(move |&i| self.contains(i))
    }

    fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
}

/// What the postings left out of a query tell the checks of its page and its count: which
/// sections with text and which families they hold, and the results certain to be there.
/// Bit tables over the index's sections (made on the first posting left out), so that a
/// common word's tens of thousands of postings cost a bit each, and each check a look at a
/// few.
#[derive(Debug, Default)]
pub(crate) struct Below {
    n: usize,
    collapsing: bool,
    /// Whether a posting was left out.
    any: bool,
    /// Sections with text left out.
    text: Bits,
    /// Families of sections left out (a family numbered past `n` makes every page unsettled).
    families: Bits,
    beyond: bool,
    /// Results certain to be there: families of sections with text, and sections with text
    /// and no family (or every section with text, not collapsing).
    certain_families: Bits,
    certain_sections: Bits,
    /// Whether a matching section is bare (left out, or among those counted in
    /// [`Below::at_least`]).
    bare: bool,
    /// Per ordinal: the subtree of a section with text left out, read only where `text` is
    /// set (so never cleared, and kept between queries: [`Below::with_subtrees`]). A left-out
    /// posting's facts go nowhere else
    /// ([`crate::layout::sharded::read::Sharded::scores_split`]), and the ancestor check of
    /// [`Below::bare_relative`] needs them.
    subtrees: Vec<u32>,
}

impl Below {
    /// For an index of `n` sections; `collapsing`: results are one per family.
    pub fn new(n: usize, collapsing: bool) -> Self {
        Below {
            n,
            collapsing,
            ..Below::default()
        }
    }

    /// [`Below::new`], with the subtree table of an earlier query to write into (what
    /// [`Below::into_subtrees`] gave back: a table over a large site's sections is too big
    /// to make for every query).
    pub fn with_subtrees(n: usize, collapsing: bool, subtrees: Vec<u32>) -> Self {
        Below {
            subtrees,
            ..Below::new(n, collapsing)
        }
    }

    /// The subtree table, for the next query's [`Below::with_subtrees`].
    pub fn into_subtrees(self) -> Vec<u32> {
        self.subtrees
    }

    /// Whether a posting was left out.
    pub fn any(&self) -> bool {
        self.any
    }

    /// Notes a posting of section `s` (with facts `f`) left out.
    #[inline(always)]
    pub fn note(&mut self, s: u32, f: SectionFacts) {
        if !self.any {
            self.any = true;
            self.text = Bits::new(self.n);
            self.families = Bits::new(self.n);
            self.certain_families = Bits::new(self.n);
            self.certain_sections = Bits::new(self.n);
            if self.subtrees.len() < self.n {
                self.subtrees.resize(self.n, 0);
            }
        }
        if let Some(family) = f.family {
            self.beyond |= family as usize >= self.n;
            self.families.insert(family);
        }
        if f.bare {
            self.bare = true;
        } else {
            self.text.insert(s);
            if let Some(t) = self.subtrees.get_mut(s as usize) {
                *t = f.subtree;
            }
            self.certain(s, f);
        }
    }

    #[inline(always)]
    fn certain(&mut self, s: u32, f: SectionFacts) {
        match f.family.filter(|_| self.collapsing) {
            Some(family) => self.certain_families.insert(family),
            None => self.certain_sections.insert(s),
        };
    }

    /// A lower bound of the results of the query (its matching sections being those left
    /// out and `touched`, with their facts in `facts`): grouping shows every section with
    /// text once, and collapsing makes one result of a family, so the distinct families
    /// (or sections, outside a family) of the sections with text are results whatever
    /// ranks where.
    pub fn at_least(&mut self, touched: impl Iterator<Item = u32>, facts: &Seen) -> usize {
        for s in touched {
            match facts.get(s) {
                Some(f) if f.bare => self.bare = true,
                Some(f) => self.certain(s, f),
                None => {}
            }
        }
        self.certain_families.len() + self.certain_sections.len()
    }

    /// Whether [`Below::at_least`] is the exact count: no matching section is bare, so
    /// grouping shows each once, and the results are exactly the distinct families (or
    /// sections) counted. Records without headings (a BEIR corpus) and most queries on
    /// docs count exactly so.
    pub fn exact(&self) -> bool {
        !self.bare
    }

    /// Whether a section with text left out is a relative — descendant or ancestor — of a
    /// bare section in `shown_bare` (shown among the page's places): grouping would give it
    /// that section's place, so the page is not settled without it. `document_start` says
    /// where a section's document begins (its ancestors lie between).
    pub fn bare_relative(
        &self,
        shown_bare: &[u32],
        facts: &Seen,
        document_start: impl Fn(u32) -> Option<u32>,
    ) -> bool {
        shown_bare.iter().any(|&b| {
            let Some(f) = facts.get(b) else {
                return true;
            };
            let end = b.saturating_add(f.subtree).saturating_add(1);
            if self.text.range(b + 1, end).next().is_some() {
                return true;
            }
            if f.depth == 0 {
                return false;
            }
            let Some(start) = document_start(b) else {
                return true;
            };
            // Every section in `text` had its subtree noted with it (`note`).
            self.text.range(start, b).any(|a| {
                self.subtrees
                    .get(a as usize)
                    .is_none_or(|&t| a.saturating_add(t) >= b)
            })
        })
    }

    /// Whether a section left out has one of `families` (the page's results'): a version
    /// below θ would join that result, and the result shows its newest version.
    pub fn family(&self, families: &[u32]) -> bool {
        self.beyond && !families.is_empty() || families.iter().any(|&f| self.families.contains(f))
    }
}

/// The `k`-th largest positive total of `ranked` (`None` when fewer are positive): a θ that
/// `k` sections reach, for a query whose postings were all kept but whose candidates are
/// many. Those below it are then left out as below a bound's θ — sorted, grouped and
/// collapsed only if the page's checks ([`settled`]) ask for them.
///
/// A radix select on the totals' bits (a positive f32 orders as its bits do), 11 bits at a
/// time from the top: linear whatever the scores, and a few hundred bytes of wasm where the
/// standard library's `select_nth_unstable` cost the bounded modules 1.5 KB gzip.
pub(crate) fn kth_total(ranked: &[(u32, f32)], k: usize) -> Option<f32> {
    kth_largest(ranked.iter().map(|r| r.1.to_bits()).collect(), k)
}

/// The `k`-th largest positive value among `keys`, f32s as their bits (`None` when fewer are
/// positive), by [`kth_total`]'s radix select. Bits in a `Vec`, not an iterator: one
/// instance of the select in the module for both callers.
pub(crate) fn kth_largest(mut keys: Vec<u32>, k: usize) -> Option<f32> {
    // Positive totals only: a positive f32 orders as its bits do (zero and negatives out).
    keys.retain(|&b| f32::from_bits(b) > 0.0);
    if k == 0 || keys.len() < k {
        return None;
    }
    // The wanted key's rank among `keys`, counted from the largest.
    let mut rank = k;
    let mut counts = [0usize; 1 << 11];
    for (shift, width) in [(21, 11), (10, 11), (0, 10)] {
        let digit = |x: u32| ((x >> shift) & ((1 << width) - 1)) as usize;
        counts.fill(0);
        for &x in &keys {
            counts[digit(x)] += 1;
        }
        // The digit whose keys hold the wanted rank: the counts above it add up to less.
        let mut d = (1 << width) - 1;
        while counts[d] < rank {
            rank -= counts[d];
            d -= 1;
        }
        keys.retain(|&x| digit(x) == d);
    }
    keys.first().map(|&b| f32::from_bits(b))
}

/// Whether the page (`offset`, `limit`) of a query whose postings below θ were left out
/// (`below`) is the page ranking every candidate gives: it is full, no section left out
/// takes the place of a bare section shown before the page ends, and none is a version of
/// a result on the page. `grouped` and `collapsed` are the query's ranked list after
/// grouping and after collapsing; `document_start` as in [`Below::bare_relative`].
pub(crate) fn settled(
    (offset, limit): (usize, usize),
    grouped: &[(u32, f32)],
    collapsed: &[Collapsed],
    below: &Below,
    facts: &Seen,
    document_start: impl Fn(u32) -> Option<u32>,
) -> bool {
    let end = offset.saturating_add(limit);
    let Some(last) = collapsed.get(end.wrapping_sub(1)) else {
        return false;
    };
    // The places up to the page's last result: later ones cannot move it.
    let places = grouped
        .iter()
        .position(|r| r.0 == last.section)
        .map_or(grouped.len(), |i| i + 1);
    let mut shown_bare: Vec<u32> = grouped[..places]
        .iter()
        .map(|r| r.0)
        .filter(|&s| facts.get(s).is_some_and(|f| f.bare))
        .collect();
    crate::sort::sort(&mut shown_bare);
    if below.bare_relative(&shown_bare, facts, document_start) {
        return false;
    }
    let families: Vec<u32> = collapsed[..end]
        .iter()
        .filter_map(|c| facts.get(c.section).and_then(|f| f.family))
        .collect();
    !below.family(&families)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts of a small site: page 0 (bare title) ⊃ 1 (text) ⊃ 2 (text); page 3 (text,
    /// family 1) ⊃ 4 (bare) ⊃ 5 (text, family 2).
    fn site() -> Seen {
        let mut seen = Seen::default();
        let at = |depth, subtree, family, bare| SectionFacts {
            depth,
            subtree,
            family,
            bare,
        };
        for (s, f) in [
            at(0, 2, None, true),
            at(1, 1, None, false),
            at(2, 0, None, false),
            at(0, 2, Some(1), false),
            at(1, 1, None, true),
            at(2, 0, Some(2), false),
        ]
        .into_iter()
        .enumerate()
        {
            seen.insert(6, s as u32, f);
        }
        seen
    }

    #[test]
    fn what_was_left_out_unsettles_the_bare_places_and_versions_it_touches() {
        let seen = site();
        let start = |s: u32| Some(if s < 3 { 0 } else { 3 });
        let mut below = Below::new(6, true);
        assert!(!below.any());
        // A descendant with text of the shown bare title 0.
        below.note(2, seen.get(2).unwrap());
        assert!(below.any() && below.exact());
        assert!(below.bare_relative(&[0], &seen, start));
        // An ancestor with text of the shown bare section 4.
        let mut below = Below::new(6, true);
        below.note(3, seen.get(3).unwrap());
        assert!(below.bare_relative(&[4], &seen, start));
        assert!(!below.bare_relative(&[0], &seen, start), "another page");
        assert!(below.family(&[1]) && !below.family(&[2]));
        // A family numbered past the index (a damaged list): no page is settled.
        below.note(
            5,
            SectionFacts {
                family: Some(9),
                ..seen.get(5).unwrap()
            },
        );
        assert!(below.family(&[2]));
        // A bare section left out moves nothing, but the count is no longer exact.
        let mut below = Below::new(6, true);
        below.note(4, seen.get(4).unwrap());
        assert!(!below.bare_relative(&[0], &seen, start) && !below.exact());
    }

    #[test]
    fn a_left_out_ancestor_is_told_by_the_subtree_noted_with_it() {
        // Page 3 (text) ⊃ 4 (bare, shown) ⊃ 5. Only 4 was kept, so only its facts are in
        // `Seen`; 3 was left out, and its facts went to `Below` alone.
        let mut seen = Seen::default();
        let at = |depth, subtree, bare| SectionFacts {
            depth,
            subtree,
            family: None,
            bare,
        };
        seen.insert(6, 4, at(1, 1, true));
        let start = |_| Some(3);
        let mut below = Below::new(6, false);
        below.note(3, at(0, 2, false));
        assert!(below.bare_relative(&[4], &seen, start), "3 holds 4");
        // Before 4 in its page but not holding it: no relative (once unknown, so unsettled).
        let mut below = Below::new(6, false);
        below.note(3, at(0, 0, false));
        assert!(!below.bare_relative(&[4], &seen, start));
        // A table lent by an earlier query: what it wrote is read only where this one noted.
        let mut below = Below::with_subtrees(6, false, vec![9; 6]);
        below.note(3, at(0, 0, false));
        assert!(!below.bare_relative(&[4], &seen, start));
        let mut again = Below::with_subtrees(6, false, below.into_subtrees());
        again.note(5, at(2, 0, false));
        assert!(
            again.bare_relative(&[4], &seen, start),
            "5 is 4's descendant"
        );
    }

    #[test]
    fn the_kth_total_counts_ties_and_only_positive_totals() {
        let ranked = [(0, 3.0), (1, 0.0), (2, 5.0), (3, 3.0), (4, 1.0), (5, -0.0)];
        assert_eq!(kth_total(&ranked, 1), Some(5.0));
        // Two sections reach 3: the second and third best are both 3.
        assert_eq!(kth_total(&ranked, 2), Some(3.0));
        assert_eq!(kth_total(&ranked, 3), Some(3.0));
        assert_eq!(kth_total(&ranked, 4), Some(1.0));
        // Zero totals are no candidates: a fifth does not exist.
        assert_eq!(kth_total(&ranked, 5), None);
        assert_eq!(kth_total(&ranked, 0), None);
        assert_eq!(kth_total(&[], 1), None);
        // Against a sort, on totals that share their high bits, their low bits or nothing.
        let mut x = 0x9e37_79b9_u32;
        for mask in [u32::MAX, 0x000f_ffff, 0x7ff0_0000] {
            let ranked: Vec<(u32, f32)> = (0..5000)
                .map(|i| {
                    x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (
                        i,
                        f32::from_bits(0x3f80_0000 | (x & mask & 0x007f_ffff)) * (1 + x % 3) as f32,
                    )
                })
                .collect();
            let mut sorted: Vec<f32> = ranked.iter().map(|r| r.1).collect();
            sorted.sort_by(|a, b| b.total_cmp(a));
            for k in [1, 2, 200, 4999, 5000] {
                assert_eq!(kth_total(&ranked, k), Some(sorted[k - 1]), "k {k}");
            }
        }
    }

    #[test]
    fn the_count_is_the_distinct_families_and_sections_with_text() {
        let seen = site();
        let mut below = Below::new(6, true);
        below.note(5, seen.get(5).unwrap());
        below.note(5, seen.get(5).unwrap());
        // 1, 2 alone; 3 and 5 are families 1 and 2; the bare 0 is not certain.
        assert_eq!(below.at_least([0, 1, 2, 3].into_iter(), &seen), 4);
        assert!(!below.exact());
        let mut ungrouped = Below::new(6, false);
        ungrouped.note(5, seen.get(5).unwrap());
        assert_eq!(ungrouped.at_least([1, 3].into_iter(), &seen), 3);
        assert!(ungrouped.exact());
    }
}
