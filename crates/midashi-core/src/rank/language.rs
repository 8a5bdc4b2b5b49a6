//! The reader's language first (`SearchOptions::prefer_lang`): on a site that ships several
//! languages, a query's results in the page's language come before the same query's results
//! in the others, which stay in the list (a filter, `lang`, would drop them).
//!
//! A reorder after ranking, not a score boost: a boost large enough to always win would give
//! the same order with scores that no longer mean BM25F, and a smaller one would still let a
//! strong English result stand above a weak Japanese one for a Japanese reader. Within each
//! group the engine's order is kept.

use crate::rank::versions::Collapsed;

/// Whether a document tagged `tag` is in the language `want`: the same tag, ignoring case
/// and `_`/`-`, or one a subtag of the other (`ja` and `ja-JP`; `zh-TW` and `zh`, not
/// `zh-CN`).
pub fn same_language(want: &str, tag: &str) -> bool {
    let norm = |s: &str| s.trim().to_ascii_lowercase().replace('_', "-");
    let (a, b) = (norm(want), norm(tag));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let within = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
    };
    within(&a, &b) || within(&b, &a)
}

/// Where a document tagged `tag` goes for a reader of `want`: 0 in that language, 1 naming
/// none, 2 another.
fn rank_of(want: &str, tag: Option<&str>) -> u8 {
    match tag {
        Some(tag) if same_language(want, tag) => 0,
        None => 1,
        Some(_) => 2,
    }
}

/// `results` with those in `want` first, then those whose document names no language (an
/// index built without one; build-index gives every page the site's), then the rest; stable
/// within each. `doc_of` names a result's document and `lang_of` a document's tag: each
/// document's tag is compared once, not each result's (a common word's results on a large
/// site are tens of thousands of sections of a few thousand pages).
pub(crate) fn prefer<'a>(
    results: Vec<Collapsed>,
    want: &str,
    doc_of: impl Fn(u32) -> Option<u32>,
    lang_of: impl Fn(u32) -> Option<&'a str>,
) -> Vec<Collapsed> {
    // The results by document (its ordinal, or u32::MAX for none; then position), each
    // document's group found once and written to each of its results.
    let mut by_doc: Vec<(u32, u32)> = results
        .iter()
        .enumerate()
        .map(|(i, r)| (doc_of(r.section).unwrap_or(u32::MAX), i as u32))
        .collect();
    crate::sort::sort_pairs_u32(&mut by_doc);
    let mut keys = vec![0u8; results.len()];
    let mut current: Option<(u32, u8)> = None;
    for (doc, i) in by_doc {
        let key = match current {
            Some((d, key)) if d == doc => key,
            _ => rank_of(want, if doc == u32::MAX { None } else { lang_of(doc) }),
        };
        current = Some((doc, key));
        keys[i as usize] = key;
    }
    let mut keyed: Vec<(u8, Collapsed)> = keys.into_iter().zip(results).collect();
    crate::sort::sort_by_key(&mut keyed, |(k, _)| *k);
    keyed.into_iter().map(|(_, r)| r).collect()
}

/// Whether preferring `want` can change any order on a site whose documents carry `tags`
/// (each distinct tag once): not when every document falls in one group — a site in one
/// language, the reader's or not. Such a query is ranked as if no language were preferred
/// (and may then be bounded: [`crate::rank::topk`]).
pub(crate) fn reorders(want: &str, tags: &[Option<String>]) -> bool {
    let mut groups = tags.iter().map(|t| rank_of(want, t.as_deref()));
    let first = groups.next();
    groups.any(|g| Some(g) != first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_match_their_subtags_and_base_only() {
        assert!(same_language("ja", "ja"));
        assert!(same_language("ja", "ja-JP"));
        assert!(same_language("JA_jp", "ja-JP"));
        assert!(same_language("zh-TW", "zh"));
        assert!(!same_language("zh-TW", "zh-CN"));
        assert!(!same_language("en", "eu"));
        assert!(!same_language("e", "en"));
        assert!(!same_language("", "en"));
    }

    #[test]
    fn the_wanted_language_first_then_untagged_then_the_rest_each_in_order() {
        let langs = [
            Some("en"),
            Some("ja"),
            None,
            Some("ja-JP"),
            Some("fr"),
            None,
        ];
        let results: Vec<Collapsed> = (0..6u32)
            .map(|section| Collapsed {
                section,
                score: 10.0 - section as f32,
                others: Vec::new(),
            })
            .collect();
        let order: Vec<u32> = prefer(results.clone(), "ja", Some, |d| langs[d as usize])
            .into_iter()
            .map(|r| r.section)
            .collect();
        assert_eq!(order, vec![1, 3, 2, 5, 0, 4]);
        // Sections of one document take its place together; a section of no document
        // counts as untagged.
        let doc = [0, 1, 0, 1, 2, 9];
        let order: Vec<u32> = prefer(
            results,
            "ja",
            |s| (doc[s as usize] < 3).then_some(doc[s as usize]),
            |d| [Some("en"), Some("ja"), Some("fr")][d as usize],
        )
        .into_iter()
        .map(|r| r.section)
        .collect();
        assert_eq!(order, vec![1, 3, 5, 0, 2, 4]);
    }

    #[test]
    fn a_site_in_one_language_is_never_reordered() {
        let tags = |t: &[Option<&str>]| t.iter().map(|t| t.map(String::from)).collect::<Vec<_>>();
        assert!(!reorders("en", &tags(&[Some("en")])));
        assert!(
            !reorders("ja", &tags(&[Some("en")])),
            "none in the reader's: all alike"
        );
        assert!(!reorders("en", &tags(&[None])));
        assert!(!reorders("en", &tags(&[])));
        assert!(!reorders("en", &tags(&[Some("en"), Some("en-US")])));
        assert!(reorders("en", &tags(&[Some("en"), Some("ja")])));
        assert!(reorders("en", &tags(&[Some("en"), None])));
        assert!(
            !reorders("de", &tags(&[Some("en"), Some("ja")])),
            "both others"
        );
    }
}
