//! Tests of how shards are named and separated.

use super::{name_shards, separator, ShortNames};
use crate::layout::sharded::{starts_group, Shard, ShardRef};

#[test]
fn separators_are_the_shortest_prefix_after_the_previous_term() {
    assert_eq!(separator("reca", "recurse"), "recu");
    assert_eq!(separator("get", "get-childitem"), "get-");
    assert_eq!(separator("item", "items"), "items");
    assert_eq!(separator("a", "b"), "b");
    // Cut at characters, not bytes.
    assert_eq!(separator("日本", "日本語"), "日本語");
    assert_eq!(separator("日a", "日本"), "日本");
    for (prev, term) in [("reca", "recurse"), ("get", "get-childitem"), ("x", "zz")] {
        let sep = separator(prev, term);
        assert!(prev < sep && sep <= term && term.starts_with(sep));
    }
}

#[test]
fn names_are_short_unique_and_deterministic() {
    let mut a = ShortNames::default();
    let first = a.hash(b"shard bytes");
    // The same bytes twice stand in for two files whose short hashes clash.
    let clash = a.hash(b"shard bytes");
    assert_ne!(first, clash);
    assert!(first < 1 << 40 && clash < 1 << 40);
    let mut b = ShortNames::default();
    assert_eq!(
        (b.hash(b"shard bytes"), b.hash(b"shard bytes")),
        (first, clash)
    );
}

fn shards(n: usize, edited: Option<usize>) -> Vec<(String, Vec<u8>)> {
    let mut refs: Vec<ShardRef> = (0..n)
        .map(|i| ShardRef {
            first_term: if i == 0 {
                String::new()
            } else {
                format!("t{i:03}")
            },
            group: 0,
        })
        .collect();
    let shards = (0..n)
        .map(|i| Shard {
            fst: Vec::new(),
            lists: format!(
                "shard {i}{}",
                if edited == Some(i) { " edited" } else { "" }
            )
            .into_bytes(),
            surfaces: Vec::new(),
            bare: Vec::new(),
            group: 0,
        })
        .collect();
    name_shards(&mut refs, shards).unwrap()
}

#[test]
fn an_edited_shard_renames_its_group_and_no_other() {
    let n = 60;
    let before = shards(n, None);
    let names: std::collections::HashSet<_> = before.iter().map(|(name, _)| name).collect();
    assert_eq!(names.len(), n, "names are unique");
    assert_eq!(before, shards(n, None), "names are deterministic");
    let starts: Vec<usize> = (0..n)
        .filter(|&i| starts_group(i, &before_term(i)))
        .collect();
    assert!(starts.len() > 3, "groups are drawn: {starts:?}");
    let edited = 30;
    let group_start = *starts.iter().rev().find(|&&s| s <= edited).unwrap();
    let group_end = starts.iter().copied().find(|&s| s > edited).unwrap_or(n);
    let after = shards(n, Some(edited));
    for i in 0..n {
        let renamed = before[i].0 != after[i].0;
        assert_eq!(renamed, (group_start..group_end).contains(&i), "shard {i}");
    }
}

fn before_term(i: usize) -> String {
    if i == 0 {
        String::new()
    } else {
        format!("t{i:03}")
    }
}
