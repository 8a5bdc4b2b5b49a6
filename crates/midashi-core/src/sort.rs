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

/// Sorts `keys` ascending: a least-significant-digit radix sort over the bits that differ
/// between keys, insertion for short lists. No comparator and no sort instance of its own:
/// ranked lists (`rank::bm25::sort_ranked`) are sorted as `u64` keys, tens of thousands of
/// them for a common word on a large site, and std's unstable sort for `u64` was 1.5 KB gzip
/// of the keyword module.
///
/// The digit's width follows the list's length: a pass moves every key once and sums one
/// count per digit value, so a list of a few hundred keys (a JSQuAD or SciFact query's
/// candidates) is sorted with 8-bit digits — with 11-bit digits for every list, zeroing and
/// summing six tables of 2,048 counts was most of its sort and 13 % of a JSQuAD query's
/// instructions. Only the bits some key differs in are passed over (found in one read): a
/// ranked list's keys share their high bits (quantised scores, ordinals below 2^24).
pub fn sort_u64(keys: &mut Vec<u64>) {
    let n = keys.len();
    if n <= 32 {
        for i in 1..n {
            let mut j = i;
            while j > 0 && keys[j - 1] > keys[j] {
                keys.swap(j - 1, j);
                j -= 1;
            }
        }
        return;
    }
    let first = keys[0];
    let differ = keys.iter().fold(0, |d, &k| d | (k ^ first));
    if differ == 0 {
        return;
    }
    // About log2(n) − 1 bits: 8 for 300 keys, 11 (the most) from 4,096 on.
    let bits = ((usize::BITS - n.leading_zeros()) as usize - 1).clamp(4, 11);
    let mask = (1u64 << bits) - 1;
    let (low, high) = (
        differ.trailing_zeros() as usize,
        64 - differ.leading_zeros() as usize,
    );
    // The digits some keys differ in, lowest first.
    let shifts: Vec<usize> = (low..high)
        .step_by(bits)
        .filter(|&s| (differ >> s) & mask != 0)
        .collect();
    let buckets = 1usize << bits;
    // Every pass's counts from one read of the keys.
    let mut counts = vec![0u32; shifts.len() * buckets];
    for &k in keys.iter() {
        for (count, &s) in counts.chunks_exact_mut(buckets).zip(&shifts) {
            count[((k >> s) & mask) as usize] += 1;
        }
    }
    let mut spare = vec![0u64; n];
    for (start, &s) in counts.chunks_exact_mut(buckets).zip(&shifts) {
        // Each digit's first place: the counts before it.
        let mut sum = 0;
        for c in start.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        for &k in keys.iter() {
            let d = ((k >> s) & mask) as usize;
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

        /// Lists long enough for every digit width (4 to 11 bits), whose keys differ only
        /// in some bits (`mask`, shifted anywhere): the passes over bits no key differs in are
        /// left out, and a digit may straddle the top bit.
        #[test]
        fn radix_sorts_long_lists_of_few_differing_bits(
            seeds in proptest::collection::vec(proptest::num::u64::ANY, 33..5000),
            mask in proptest::num::u64::ANY,
            shift in 0u32..64,
            base in proptest::num::u64::ANY,
        ) {
            let mask = mask.rotate_left(shift);
            let list: Vec<u64> = seeds.iter().map(|&x| (base & !mask) | (x & mask)).collect();
            let mut ours = list.clone();
            sort_u64(&mut ours);
            let mut std_sorted = list;
            std_sorted.sort_unstable();
            prop_assert_eq!(ours, std_sorted);
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
