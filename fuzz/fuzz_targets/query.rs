//! Parsing and running arbitrary queries with arbitrary options against the tiny fixture
//! index (built once from four Markdown files, with synonyms and vectors).
//!
//! Input: 8 option bytes, then the query as UTF-8 (lossy). A 0x01 byte in the query part
//! starts a path filter, a second one a tag filter.
#![no_main]

use libfuzzer_sys::fuzz_target;
use midashi_core::rank::fusion::Fusion;
use midashi_core::{Mode, SearchOptions};
use midashi_fuzz::{tiny_index, unit_vector, DIMS};

/// Awkward floats for fusion constants and score cut-offs.
const FLOATS: [f32; 8] = [
    60.0,
    0.0,
    -1.0,
    1.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1e-30,
];

fuzz_target!(|data: &[u8]| {
    let mut opt = [0u8; 8];
    let n = data.len().min(8);
    opt[..n].copy_from_slice(&data[..n]);
    let rest = String::from_utf8_lossy(&data[n..]);
    let mut parts = rest.split('\u{1}');
    let query = parts.next().unwrap_or("");
    let path = parts.next().map(str::to_string);
    let tags: Vec<String> = parts.next().map(str::to_string).into_iter().collect();

    let [flags, limit, offset, preview, depths, fusion, score, vec_sel] = opt;
    let mode = match (flags >> 3) & 3 {
        0 => Mode::Auto,
        1 => Mode::Keyword,
        2 => Mode::Semantic,
        _ => Mode::Hybrid,
    };
    let k = FLOATS[usize::from(fusion & 7)];
    let w = FLOATS[usize::from((fusion >> 3) & 7)];
    let fusion = if fusion & 0x80 != 0 {
        Fusion::Auto
    } else if fusion & 0x40 == 0 {
        Fusion::Rrf {
            k,
            keyword_weight: 1.0,
            semantic_weight: w,
        }
    } else {
        Fusion::Linear {
            keyword_weight: w,
            semantic_weight: k,
        }
    };
    let opts = SearchOptions {
        limit: if limit == 255 {
            1001
        } else {
            usize::from(limit)
        },
        offset: if offset == 255 {
            usize::MAX
        } else {
            usize::from(offset)
        },
        mode,
        fusion,
        path,
        category: (flags & 0x80 != 0).then(|| "guide".to_string()),
        tags,
        depth: (0..8u8).filter(|d| depths & (1 << d) != 0).collect(),
        lang: None,
        // Sometimes a language to put first: a matching, a near and a blank tag.
        prefer_lang: match (score >> 4) & 3 {
            0 => None,
            1 => Some("ja".to_string()),
            2 => Some("ja-JP_x".to_string()),
            _ => Some(" ".to_string()),
        },
        version: None,
        min_score: (score & 8 != 0).then(|| FLOATS[usize::from(score & 7)]),
        preview_lines: if preview == 255 {
            usize::MAX
        } else {
            usize::from(preview)
        },
        excerpts: flags & 0x20 == 0,
        prefix: flags & 1 != 0,
        fuzzy: flags & 2 != 0,
        group: flags & 4 != 0,
        collapse_versions: flags & 8 != 0,
        facets: flags & 0x40 != 0,
        facets_if_ranked: score & 0x40 != 0,
    };
    // The query vector: none, a real unit vector, a wrong-sized one, or one of odd floats.
    let vector: Option<Vec<f32>> = match vec_sel & 3 {
        0 => None,
        1 => Some(unit_vector(usize::from(vec_sel >> 2))),
        2 => Some(vec![1.0; usize::from(vec_sel >> 2)]),
        _ => Some(vec![FLOATS[usize::from(vec_sel >> 5)]; DIMS]),
    };
    let idx = tiny_index();
    let _ = idx.search(query, &opts, vector.as_deref());
    let _ = idx.suggest(query, usize::from(limit));
    let _ = idx.get_document(query);
    if let Some(p) = &opts.path {
        let _ = idx.find_anchor(p, query);
    }
});
