//! Counting a query's results per facet value: what a search box offers as filters.
use crate::answer::{FacetCount, Facets};
use crate::layout::Layout;
use crate::rank::versions::Collapsed;
use rustc_hash::FxHashMap as HashMap;

/// The results counted per value of each facet, most first (ties by value).
pub(super) fn count(store: &dyn Layout, results: &[Collapsed]) -> Facets {
    let mut counts: [HashMap<&str, u32>; 4] = Default::default();
    for r in results {
        let f = store.doc_facets(r.section);
        for (i, v) in [(0, f.category), (2, f.version), (3, f.lang)] {
            if let Some(v) = v {
                *counts[i].entry(v).or_default() += 1;
            }
        }
        let mut tags = f.tags;
        crate::sort::sort(&mut tags);
        tags.dedup();
        for t in tags {
            *counts[1].entry(t).or_default() += 1;
        }
    }
    let [category, tags, version, lang] = counts.map(|c| {
        let mut v: Vec<FacetCount> = c
            .into_iter()
            .map(|(value, count)| FacetCount {
                value: value.to_string(),
                count,
            })
            .collect();
        crate::sort::sort_by(&mut v, |a, b| {
            b.count.cmp(&a.count).then(a.value.cmp(&b.value))
        });
        v
    });
    Facets {
        category,
        tags,
        version,
        lang,
    }
}
