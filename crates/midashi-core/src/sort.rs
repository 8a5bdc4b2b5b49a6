//! One sort for everything query time sorts.
//!
//! Why not `slice::sort_by`: each call with its own element type or closure is a copy of the
//! standard library's sort (driftsort or ipnsort with their small-sort networks, 2–4 KB of
//! wasm each), and a large site's first query downloads the search module before anything
//! else. Here the standard sort runs once, on a list of positions with a comparator behind a
//! `dyn`, and the elements are then moved into that order by swaps: one sort instance in the
//! module however many callers, and what each caller adds is a few dozen bytes.
//!
//! The order is the standard library's stable order: elements that compare equal keep their
//! relative order.

use std::cmp::Ordering;

/// Sorts `v` by `cmp`, stably.
pub fn sort_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let mut order = positions_in_order(v.len(), &|a, b| cmp(&v[a], &v[b]));
    // order[k] is the position the element that belongs at k comes from: follow each cycle
    // once, swapping, and mark every visited slot as placed.
    for start in 0..v.len() {
        let mut k = start;
        loop {
            let from = order[k] as usize;
            order[k] = k as u32;
            if from == start || from == k {
                break;
            }
            v.swap(k, from);
            k = from;
        }
    }
}

/// Sorts `v` in its natural order, stably.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Sorts `v` by a key, stably.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `pairs` by their first number, then their second, through [`sort_u64`] (no sort
/// instance of its own): how results are grouped by document — the first number a document
/// ordinal, the second what stands for the result — for facet counts and the reader's
/// language first.
pub fn sort_pairs_u32(pairs: &mut Vec<(u32, u32)>) {
    let mut keys: Vec<u64> = pairs
        .iter()
        .map(|&(a, b)| u64::from(a) << 32 | u64::from(b))
        .collect();
    sort_u64(&mut keys);
    pairs.clear();
    pairs.extend(keys.into_iter().map(|k| ((k >> 32) as u32, k as u32)));
}

/// Sorts `keys` ascending: a least-significant-digit radix sort, 11 bits per pass (passes where
/// every key has the same digit are skipped), insertion for short lists. No comparator and no
/// sort instance of its own: ranked lists (`rank::bm25::sort_ranked`) are sorted as `u64`
/// keys, tens of thousands of them for a common word on a large site, and std's unstable sort
/// for `u64` was 1.5 KB gzip of the keyword module.
pub fn sort_u64(keys: &mut Vec<u64>) {
    if keys.len() <= 32 {
        for i in 1..keys.len() {
            let mut j = i;
            while j > 0 && keys[j - 1] > keys[j] {
                keys.swap(j - 1, j);
                j -= 1;
            }
        }
        return;
    }
    // Every pass's digit counts from one read of the keys (not one read per pass): a ranked
    // list's keys differ in few bits (quantised scores, ordinals below 2^24), so passes
    // whose digit every key shares are skipped and the counting was most of the work.
    // Digits of 11 bits: six passes at most instead of eight bytes' worth, and on ranked
    // lists four or five that are not skipped instead of seven; the counts stay small
    // (6 × 2048) for short lists.
    const BITS: usize = 11;
    const PASSES: usize = 64_usize.div_ceil(BITS);
    const MASK: u64 = (1 << BITS) - 1;
    let mut counts = vec![[0u32; 1 << BITS]; PASSES];
    for &k in keys.iter() {
        for (pass, count) in counts.iter_mut().enumerate() {
            count[((k >> (pass * BITS)) & MASK) as usize] += 1;
        }
    }
    let len = keys.len() as u32;
    let mut spare = vec![0u64; keys.len()];
    let mut start = vec![0u32; 1 << BITS];
    for (pass, count) in counts.iter().enumerate() {
        if count.contains(&len) {
            continue;
        }
        let shift = pass * BITS;
        start[0] = 0;
        for d in 1..start.len() {
            start[d] = start[d - 1] + count[d - 1];
        }
        for &k in keys.iter() {
            let d = ((k >> shift) & MASK) as usize;
            spare[start[d] as usize] = k;
            start[d] += 1;
        }
        std::mem::swap(keys, &mut spare);
    }
}

/// The one monomorphic sort: positions `0..len` ordered by `cmp`.
fn positions_in_order(len: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<u32> {
    let mut order: Vec<u32> = (0..len as u32).collect();
    order.sort_by(|&a, &b| cmp(a as usize, b as usize));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_sort_by_first_then_second() {
        let mut v = vec![(3, 1), (u32::MAX, 0), (1, 9), (3, 0), (1, 2)];
        super::sort_pairs_u32(&mut v);
        assert_eq!(v, vec![(1, 2), (1, 9), (3, 0), (3, 1), (u32::MAX, 0)]);
    }
    use proptest::prelude::*;

    proptest! {
        /// Same result as the standard library's stable sort, including the order of equal
        /// keys (pairs carry their original position to tell them apart).
        #[test]
        fn equals_std_stable_sort(keys in proptest::collection::vec(0u8..6, 0..200)) {
            let items: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
            let mut ours = items.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std_sorted = items;
            std_sorted.sort_by_key(|a| a.0);
            prop_assert_eq!(ours, std_sorted);
        }

        #[test]
        fn radix_sorts_like_std(keys in proptest::collection::vec(proptest::num::u64::ANY, 0..300), small in proptest::collection::vec(0u64..4, 0..80)) {
            for list in [keys, small] {
                let mut ours = list.clone();
                sort_u64(&mut ours);
                let mut std_sorted = list;
                std_sorted.sort_unstable();
                prop_assert_eq!(ours, std_sorted);
            }
        }

        #[test]
        fn sorts_strings(words in proptest::collection::vec("[a-c]{0,3}", 0..60)) {
            let mut ours = words.clone();
            sort(&mut ours);
            let mut std_sorted = words;
            std_sorted.sort();
            prop_assert_eq!(ours, std_sorted);
        }
    }

    #[test]
    fn by_key_and_reverse() {
        let mut v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd')];
        sort_by_key(&mut v, |p| std::cmp::Reverse(p.0));
        assert_eq!(v, [(3, 'a'), (3, 'c'), (2, 'd'), (1, 'b')]);
    }
}
