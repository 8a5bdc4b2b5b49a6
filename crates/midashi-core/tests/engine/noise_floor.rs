//! Honest empty results (#22 item 2): a query whose words match nothing in the index keeps
//! its semantic results only when its best similarity lies above the noise floor the
//! vectors file stores; otherwise the answer is empty in every mode, and did-you-mean still
//! runs. A query with a matching word is never cut, and vectors without a floor (format
//! ≤ 1.9) answer as before. Both layouts.

use midashi_core::format::{decode, encode, frame_as_minor, FileKind};
use midashi_core::vectors::VectorsData;
use midashi_core::{Mode, SearchIndex, SearchOptions};

use crate::common;
use common::unit_vector;

const DOCS: [(&str, &str); 3] = [
    (
        "a.md",
        "# Zebra stripes\n\nWhy zebras have stripes.\n\n## Herds\n\nThey live in herds.\n",
    ),
    ("b.md", "# Giraffe necks\n\nLong necks reach leaves.\n"),
    ("c.md", "# Pagination\n\nSplitting results into pages.\n"),
];

/// Both layouts of [`DOCS`] with synthetic vectors whose noise floor is `floor`.
fn both(floor: Option<f32>) -> [SearchIndex; 2] {
    common::both_layouts_with_vectors(&DOCS, &[], |b| {
        let mut v = common::synthetic_vectors(b);
        v.noise_floor = floor;
        v
    })
}

fn total(idx: &SearchIndex, q: &str, mode: Mode, qv: &[f32]) -> usize {
    let opts = SearchOptions {
        mode,
        ..SearchOptions::default()
    };
    let r = idx.search(q, &opts, Some(qv)).unwrap();
    assert_eq!(r.total == 0, r.results.is_empty(), "{q}");
    r.total
}

#[test]
fn words_matching_nothing_answer_only_above_the_noise_floor() {
    let qv = unit_vector(0);
    let best = both(None)[0].vectors().unwrap().scan(&qv)[0].1;
    let modes = [Mode::Semantic, Mode::Hybrid, Mode::Auto];
    for idx in both(Some(best + 0.001)) {
        for mode in modes {
            assert_eq!(total(&idx, "qqxxzzvv", mode, &qv), 0, "{mode:?}");
            // A word the index has: never cut, whatever the similarity.
            assert!(total(&idx, "zebra", mode, &qv) > 0, "{mode:?}");
        }
        // A misspelt word is corrected, so it matches: the answer stands, as does
        // did-you-mean for the few results it has.
        let r = idx
            .search("giraffs", &SearchOptions::default(), Some(&qv))
            .unwrap();
        assert!(r.total > 0);
    }
    for idx in both(Some(best - 0.01)).into_iter().chain(both(None)) {
        for mode in modes {
            assert!(total(&idx, "qqxxzzvv", mode, &qv) > 0, "{mode:?}");
        }
    }
}

#[test]
fn vectors_of_format_1_9_read_without_a_floor() {
    let mut v = VectorsData::new(2);
    v.push(0, &[1.0, 0.0]);
    v.noise_floor = Some(0.25);
    let now = encode(FileKind::Vectors, &v).unwrap();
    assert_eq!(
        decode::<VectorsData>(FileKind::Vectors, "v", &now).unwrap(),
        v
    );
    // 1.9 wrote the same payload without the trailing option (one byte: its tag, then f32).
    let payload = &now[midashi_core::format::HEADER_LEN..now.len() - 5];
    let old = frame_as_minor(FileKind::Vectors, payload, 9);
    let read: VectorsData = decode(FileKind::Vectors, "v", &old).unwrap();
    assert_eq!(read.noise_floor, None);
    assert!(read.clearly_above_noise(-1.0));
    assert_eq!(read.row_section, v.row_section);
}
