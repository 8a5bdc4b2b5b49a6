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

/// `results` with those in `want` first, then those whose document names no language (an
/// index built without one; build-index gives every page the site's), then the rest; stable
/// within each.
pub(crate) fn prefer<'a>(
    results: Vec<Collapsed>,
    want: &str,
    lang_of: impl Fn(u32) -> Option<&'a str>,
) -> Vec<Collapsed> {
    let mut keyed: Vec<(u8, Collapsed)> = results
        .into_iter()
        .map(|r| {
            let key = match lang_of(r.section) {
                Some(tag) if same_language(want, tag) => 0,
                None => 1,
                Some(_) => 2,
            };
            (key, r)
        })
        .collect();
    crate::sort::sort_by_key(&mut keyed, |(k, _)| *k);
    keyed.into_iter().map(|(_, r)| r).collect()
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
        let order: Vec<u32> = prefer(results, "ja", |s| langs[s as usize])
            .into_iter()
            .map(|r| r.section)
            .collect();
        assert_eq!(order, vec![1, 3, 2, 5, 0, 4]);
    }
}
