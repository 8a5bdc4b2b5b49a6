//! Counting a query's results per facet value: what a search box offers as filters.
use crate::answer::{FacetCount, Facets};
use crate::layout::Layout;
use crate::rank::versions::Collapsed;
use rustc_hash::FxHashMap as HashMap;

/// The results counted per value of each facet, most first (ties by value). The results
/// are counted per document first and each document's values read once: a common word's
/// results on a large site are tens of thousands of sections of a few thousand pages, and
/// reading (and hashing) their values per result was most of such a query's time.
pub(super) fn count(store: &dyn Layout, results: &[Collapsed]) -> Facets {
    // (document, section) sorted: each run is one document, counted with its first section
    // standing for it.
    let mut by_doc: Vec<(u32, u32)> = results
        .iter()
        .map(|r| (store.document_of(r.section).unwrap_or(u32::MAX), r.section))
        .collect();
    crate::sort::sort_pairs_u32(&mut by_doc);
    let mut docs: Vec<(u32, u32)> = Vec::new();
    let mut last_doc = None;
    for (doc, section) in by_doc {
        match docs.last_mut() {
            // A section without a document (none in a sound index) counts alone.
            Some(d) if last_doc == Some(doc) && doc != u32::MAX => d.1 += 1,
            _ => docs.push((section, 1)),
        }
        last_doc = Some(doc);
    }
    let mut counts: [HashMap<&str, u32>; 4] = Default::default();
    for (section, n) in docs {
        let f = store.doc_facets(section);
        for (i, v) in [(0, f.category), (2, f.version), (3, f.lang)] {
            if let Some(v) = v {
                *counts[i].entry(v).or_default() += n;
            }
        }
        let mut tags = f.tags;
        crate::sort::sort(&mut tags);
        tags.dedup();
        for t in tags {
            *counts[1].entry(t).or_default() += n;
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
