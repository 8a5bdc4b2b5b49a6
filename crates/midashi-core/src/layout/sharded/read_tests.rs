//! The loaded-file cache's eviction: least recently used first, never what the last call used,
//! down to a bound in bytes.

use super::Loaded;
use std::sync::Arc;

/// A cache of `n` files of one byte, file `i` loaded by call `i` (one file per call).
fn loaded(n: u32, keep: usize) -> Loaded<u32> {
    let mut l = Loaded::default();
    for i in 0..n {
        l.insert(i, Arc::new(i), 1);
        l.evict(keep);
    }
    l
}

fn present(l: &Loaded<u32>) -> Vec<usize> {
    l.ordinals()
}

#[test]
fn below_the_bound_nothing_is_dropped() {
    let l = loaded(8, 8);
    assert_eq!(present(&l), (0..8).collect::<Vec<_>>());
}

#[test]
fn past_the_bound_the_least_recently_used_go_first() {
    let mut l = loaded(8, 8);
    // Files 0 and 1 are read again: the oldest are now 2, 3, ...
    l.get(0);
    l.get(1);
    l.evict(8);
    l.insert(8, Arc::new(8), 1);
    l.evict(8);
    // Nine loaded, bound eight: down to six (three quarters), oldest first.
    assert_eq!(present(&l), vec![0, 1, 5, 6, 7, 8]);
}

#[test]
fn what_the_last_call_used_is_never_dropped() {
    let mut l = loaded(4, 4);
    // One call reads more files than the bound allows: all of them stay for the next round.
    for i in 4..12 {
        l.insert(i, Arc::new(i), 1);
    }
    l.evict(4);
    assert_eq!(present(&l), (4..12).collect::<Vec<_>>());
    // The next call uses none of them: they are the least recently used now.
    l.get(11);
    l.evict(4);
    assert_eq!(present(&l).len(), 3);
    assert!(present(&l).contains(&11));
}

#[test]
fn the_bound_is_in_bytes() {
    // Eight one-byte files, bound eight bytes: then one of six bytes.
    let mut l = loaded(8, 8);
    l.insert(8, Arc::new(8), 6);
    l.evict(8);
    // Fourteen bytes: down to six (three quarters), the oldest first: the eight small ones
    // go, the big one (the last call's) stays.
    assert_eq!(present(&l), vec![8]);
    assert_eq!(l.bytes, 6);
    // Loaded again with another size (a file attached twice): counted once, at its new size.
    l.insert(8, Arc::new(8), 2);
    assert_eq!((l.count, l.bytes), (1, 2));
}
