//! What ranking knows of a section beyond its score — depth, descendants, family,
//! bareness — and the table of it a query fills as its postings are read ([`Seen`]).
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
    /// No text of its own ([`crate::rank::grouping::is_bare`]). Not in the facts' own
    /// encoding: the sharded files carry it in lists of their own, which a 1.11 reader
    /// leaves unread.
    #[serde(skip)]
    pub bare: bool,
}

/// What the keyword leg learnt of its candidates' [`SectionFacts`], by section ordinal (a
/// sharded index's postings carry them, so that ranking reads no other file). Tables over
/// every ordinal, made on the first fact, rather than a map: a common word's postings on a
/// large site are tens of thousands of sections, and hashing each one in and out was a
/// seventh of a query's time on powershell-docs. Column by column (5 bytes a section; the
/// families only once one is noted), not `Option<SectionFacts>` (20): the tables are made
/// for every query, and zeroing 2.8 MB of them on a 141k-section site showed in each
/// keystroke's time. Kept between queries ([`crate::rank::workspace`]) and cleared by the
/// ordinals noted.
#[derive(Debug, Default)]
pub struct Seen {
    /// Per ordinal: the subtree, or [`Seen::UNSEEN`].
    subtree: Vec<u32>,
    /// Per ordinal: depth | bare << 3.
    flags: Vec<u8>,
    /// Per ordinal: the family; empty until a fact names one.
    family: Vec<Option<u32>>,
    /// The ordinals noted since the last [`Seen::clear`].
    noted: Vec<u32>,
}

impl Seen {
    /// No facts noted (a real subtree is smaller: it lies inside the index).
    const UNSEEN: u32 = u32::MAX;

    /// The facts noted for section `s`, if any.
    #[inline(always)]
    pub fn get(&self, s: u32) -> Option<SectionFacts> {
        let i = s as usize;
        let subtree = *self.subtree.get(i)?;
        if subtree == Self::UNSEEN {
            return None;
        }
        let flags = self.flags[i];
        Some(SectionFacts {
            depth: flags & 7,
            subtree,
            family: self.family.get(i).copied().flatten(),
            bare: flags & 8 != 0,
        })
    }

    /// Notes the facts of section `s` of an index of `n` sections (a section past the
    /// index's end, from a damaged file, is not noted: the table never grows past `n`).
    #[inline(always)]
    pub fn insert(&mut self, n: usize, s: u32, f: SectionFacts) {
        let i = s as usize;
        if i >= n || f.subtree == Self::UNSEEN {
            return;
        }
        if self.subtree.len() < n {
            self.subtree.resize(n, Self::UNSEEN);
            self.flags.resize(n, 0);
        }
        if self.subtree[i] == Self::UNSEEN {
            self.noted.push(s);
        }
        self.subtree[i] = f.subtree;
        self.flags[i] = (f.depth & 7) | (u8::from(f.bare) << 3);
        if f.family.is_some() && self.family.len() < n {
            self.family.resize(n, None);
        }
        if let Some(slot) = self.family.get_mut(i) {
            *slot = f.family;
        }
    }

    /// Forgets every fact noted, keeping the tables' room: entry by entry, or the whole
    /// table at once when most of it was noted (a common prefix on a large site).
    pub fn clear(&mut self) {
        if self.noted.len() > self.subtree.len() / 8 {
            self.subtree.fill(Self::UNSEEN);
            self.family.fill(None);
            self.noted.clear();
            return;
        }
        for s in self.noted.drain(..) {
            let i = s as usize;
            self.subtree[i] = Self::UNSEEN;
            if let Some(f) = self.family.get_mut(i) {
                *f = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SectionFacts, Seen};

    #[test]
    fn seen_facts_stay_within_the_index() {
        let mut seen = Seen::default();
        let f = SectionFacts {
            depth: 2,
            ..SectionFacts::default()
        };
        assert!(seen.get(3).is_none());
        seen.insert(10, 3, f);
        assert_eq!(seen.get(3), Some(f));
        assert!(seen.get(4).is_none());
        // A damaged posting's section past the index's end is not noted (and allocates
        // nothing for it).
        seen.insert(10, u32::MAX, f);
        assert!(seen.get(u32::MAX).is_none());
        assert!(seen.subtree.len() <= 10 && seen.flags.len() <= 10);
        assert!(seen.family.is_empty(), "no family named: no family table");
    }

    #[test]
    fn seen_facts_come_back_as_noted() {
        let mut seen = Seen::default();
        let facts = [
            SectionFacts {
                depth: 6,
                subtree: 3,
                family: None,
                bare: true,
            },
            SectionFacts {
                depth: 0,
                subtree: 0,
                family: Some(7),
                bare: false,
            },
            SectionFacts {
                depth: 3,
                subtree: 1,
                family: Some(0),
                bare: true,
            },
        ];
        for (s, f) in facts.iter().enumerate() {
            seen.insert(5, s as u32 + 1, *f);
        }
        for (s, f) in facts.iter().enumerate() {
            assert_eq!(seen.get(s as u32 + 1), Some(*f));
        }
        assert!(seen.get(0).is_none() && seen.get(4).is_none());
        // Noted again (a section in several lists): the same facts.
        seen.insert(5, 1, facts[0]);
        assert_eq!(seen.get(1), Some(facts[0]));
        // Cleared: nothing noted, whether entry by entry (few noted) or whole (most).
        for noted in [1u32, 90] {
            let mut seen = Seen::default();
            for s in 0..noted {
                seen.insert(100, s, facts[(s % 3) as usize]);
            }
            seen.clear();
            assert!((0..100).all(|s| seen.get(s).is_none()), "{noted}");
            seen.insert(100, 50, facts[1]);
            assert_eq!(seen.get(50), Some(facts[1]));
            assert_eq!(seen.get(0), None);
        }
    }
}
