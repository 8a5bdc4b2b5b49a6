//! Tables over an index's sections that ranking fills for a query, kept between queries.
//!
//! Why: on a large site they are megabytes (141k sections: the facts 5–13 bytes a section,
//! the sums 4, a clause's best alternative and an alternative's sum 5 each), and making
//! them anew for every query — allocated, zeroed, faulted in page by page — was a third of
//! a median query's time on the 141k-section mix. Each table knows which entries a query
//! wrote and clears only those (all of it at once when most were written), so a query pays
//! for what it touches, not for the size of the site.
use crate::rank::facts::Seen;
use std::sync::Mutex;

/// What one query's ranking writes: the facts its postings carried ([`Seen`]) and the
/// sums of its clauses ([`Sums`]). Empty between queries.
#[derive(Debug, Default)]
pub struct Workspace {
    /// The facts of the keyword leg's candidates.
    pub facts: Seen,
    /// The per-section sums [`crate::rank::pipeline`] adds the postings up in.
    pub(crate) sums: Sums,
    /// The stems of the words results were marked in: not cleared, they hold for every
    /// query ([`crate::analyzer::StemMemo`] bounds them).
    pub(crate) stems: crate::analyzer::StemMemo,
    /// The subtrees of the sections a query left out ([`crate::rank::topk::Below`]), lent
    /// to each query's and given back: read only where that query wrote, never cleared.
    pub(crate) subtrees: Vec<u32>,
}

impl Workspace {
    /// Empties every table, keeping its room.
    pub fn clear(&mut self) {
        self.facts.clear();
        self.sums.clear();
    }
}

/// The sums of one query: the totals, and the two tables a clause of several alternatives
/// needs.
#[derive(Debug, Default)]
pub(crate) struct Sums {
    /// Per section: the sum of its clauses.
    pub(crate) totals: Totals,
    /// A clause's best alternative per section.
    pub(crate) best: Scratch,
    /// An alternative's sum of its terms per section.
    pub(crate) alt: Scratch,
    /// The essential lists' kept postings (section, weighted score), when a bounded query
    /// walks them first to find their sections ([`crate::rank::pipeline`]): added up from
    /// here instead of walked again.
    pub(crate) kept: Vec<(u32, f32)>,
    /// Per section: the sum of the essential clauses walked so far, while a bounded query's
    /// essential lists are walked ([`crate::rank::topk::Partial`]).
    pub(crate) partial: Totals,
}

impl Sums {
    fn clear(&mut self) {
        self.totals.clear();
        self.best.clear();
        self.alt.clear();
        self.kept.clear();
        self.partial.clear();
    }
}

/// The total per section and the sections that have one.
#[derive(Debug, Default)]
pub(crate) struct Totals {
    /// Per ordinal: the total so far (0 when none).
    total: Vec<f32>,
    /// The ordinals with a total, in the order first seen.
    touched: Vec<u32>,
}

impl Totals {
    /// Room for `n` sections (the table is made on the first query).
    pub(crate) fn ready(&mut self, n: usize) {
        if self.total.len() != n {
            self.clear();
            self.total.clear();
            self.total.resize(n, 0.0);
        }
    }

    /// Adds `v` to section `s`'s total (none past the index's end).
    #[inline(always)]
    pub(crate) fn add(&mut self, s: u32, v: f32) {
        if let Some(slot) = self.total.get_mut(s as usize) {
            if *slot == 0.0 {
                self.touched.push(s);
            }
            *slot += v;
        }
    }

    /// The touched sections with their totals, in the order first seen, leaving the
    /// table empty.
    /// The table by ordinal (0 for a section not touched).
    pub(crate) fn values(&self) -> &[f32] {
        &self.total
    }

    /// The `k`-th largest positive sum ([`crate::rank::topk::kth_largest`]).
    pub(crate) fn kth(&self, k: usize) -> Option<f32> {
        let total = &self.total;
        let keys = self.touched.iter().map(|&s| total[s as usize].to_bits());
        crate::rank::topk::kth_largest(keys.collect(), k)
    }

    pub(crate) fn take(&mut self) -> Vec<(u32, f32)> {
        let total = &mut self.total;
        self.touched
            .drain(..)
            .map(|s| (s, std::mem::take(&mut total[s as usize])))
            .collect()
    }

    pub(crate) fn clear(&mut self) {
        for s in self.touched.drain(..) {
            if let Some(v) = self.total.get_mut(s as usize) {
                *v = 0.0;
            }
        }
    }
}

/// Scores by section ordinal for one clause or alternative: a table over the index's
/// sections (made on first use) and the ordinals that have an entry.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    value: Vec<f32>,
    has: Vec<bool>,
    order: Vec<u32>,
}

impl Scratch {
    /// The slot of section `s` of an index of `n` sections (none past the end: a damaged
    /// posting's ordinal never grows the table).
    #[inline(always)]
    fn slot(&mut self, n: usize, s: u32) -> Option<usize> {
        let i = s as usize;
        if i >= n {
            return None;
        }
        if self.value.len() < n {
            self.value.resize(n, 0.0);
            self.has.resize(n, false);
        }
        if !self.has[i] {
            self.has[i] = true;
            self.value[i] = 0.0;
            self.order.push(s);
        }
        Some(i)
    }

    /// Adds `v` to section `s`'s entry.
    #[inline(always)]
    pub(crate) fn add(&mut self, n: usize, s: u32, v: f32) {
        if let Some(i) = self.slot(n, s) {
            self.value[i] += v;
        }
    }

    /// Keeps the larger of `v` and section `s`'s entry.
    ///
    /// Compared, not `f32::max`: in wasm that is a call to libm's `fmaxf` (wasm's `f32.max`
    /// answers NaN where Rust's returns the other operand), once per posting of a typed
    /// prefix's completions — 1.5 % of the mix's slowest keystrokes in Node. An entry starts
    /// at 0 and a NaN is never taken, so this is `f32::max`'s value, NaN included.
    #[inline(always)]
    pub(crate) fn max(&mut self, n: usize, s: u32, v: f32) {
        if let Some(i) = self.slot(n, s) {
            let kept = &mut self.value[i];
            if v > *kept {
                *kept = v;
            }
        }
    }

    /// The entries, in the order first seen, leaving the table empty.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = (u32, f32)> + '_ {
        let (value, has) = (&self.value, &mut self.has);
        self.order.drain(..).map(move |s| {
            has[s as usize] = false;
            (s, value[s as usize])
        })
    }

    fn clear(&mut self) {
        for s in self.order.drain(..) {
            self.has[s as usize] = false;
        }
    }
}

/// An index's workspace between queries. A query takes it and gives it back emptied; a
/// query that finds it taken (another thread's, or a query run inside one) makes its own.
#[derive(Debug, Default)]
pub struct Workspaces(Mutex<Option<Box<Workspace>>>);

impl Workspaces {
    /// The kept workspace, or a new one.
    pub fn take(&self) -> Box<Workspace> {
        let kept = match self.0.lock() {
            Ok(mut slot) => slot.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        kept.unwrap_or_default()
    }

    /// Keeps `ws`, emptied, for the next query.
    pub fn give_back(&self, mut ws: Box<Workspace>) {
        ws.clear();
        match self.0.lock() {
            Ok(mut slot) => *slot = Some(ws),
            Err(poisoned) => *poisoned.into_inner() = Some(ws),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::facts::SectionFacts;

    #[test]
    fn a_workspace_given_back_is_empty() {
        let pool = Workspaces::default();
        let mut ws = pool.take();
        ws.sums.totals.ready(10);
        ws.sums.totals.add(3, 1.5);
        ws.sums.totals.add(7, 2.0);
        ws.sums.best.max(10, 4, 1.0);
        ws.sums.alt.add(10, 5, 1.0);
        let f = SectionFacts {
            depth: 2,
            family: Some(1),
            ..SectionFacts::default()
        };
        ws.facts.insert(10, 6, f);
        pool.give_back(ws);
        let mut ws = pool.take();
        assert!(ws.sums.totals.total.iter().all(|&v| v == 0.0));
        assert!(ws.sums.totals.touched.is_empty());
        assert!(ws.facts.get(6).is_none());
        assert_eq!(ws.sums.best.drain().count(), 0);
        assert_eq!(ws.sums.alt.drain().count(), 0);
        // A second taker while it is out gets a table of its own.
        let other = pool.take();
        assert!(other.sums.totals.total.is_empty());
        ws.sums.totals.ready(10);
        ws.sums.totals.add(2, 1.0);
        assert_eq!(ws.sums.totals.take(), vec![(2, 1.0)]);
        assert!(ws.sums.totals.total.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn max_keeps_what_f32_max_keeps() {
        // Every order of two values, NaN and infinities included: the compared maximum
        // (no `fmaxf` call in wasm) is `f32::max`'s, bit for bit.
        let values = [0.5f32, 2.0, -1.0, f32::NAN, f32::INFINITY, 1e-30, 0.5];
        for &a in &values {
            for &b in &values {
                let mut s = Scratch::default();
                s.max(4, 1, a);
                s.max(4, 1, b);
                let got = s.drain().next().unwrap().1;
                let want = 0f32.max(a).max(b);
                assert_eq!(got.to_bits(), want.to_bits(), "max of 0, {a}, {b}");
            }
        }
    }
}
