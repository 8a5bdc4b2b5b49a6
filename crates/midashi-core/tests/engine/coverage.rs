//! A Japanese question in hybrid mode (#22): the keyword head that fusion reads is ordered by
//! how much of the question each section holds (`rank::coverage`), so a section that holds
//! the question's words once beats one that repeats two of them; keyword mode keeps BM25F's
//! order, and so does a question in Chinese (no kana). Both layouts. The semantic leg is
//! flat here (every section the same vector), so the order is the keyword leg's.

use midashi_core::vectors::VectorsData;
use midashi_core::{Mode, SearchIndex, SearchOptions};

use crate::common;
use common::unit_vector;

const DOCS: [(&str, &str); 5] = [
    // Repeats 梅雨 and 北海道: BM25 ranks it first.
    (
        "repeats.md",
        "# 梅雨と北海道\n\n北海道の梅雨。梅雨の北海道。北海道と梅雨。\n",
    ),
    // Holds the question (日本, 梅雨, 北海道と) once, in a longer text.
    (
        "answer.md",
        "# 気象\n\n東アジアの広い範囲で見られる気象現象のうち、北海道と小笠原諸島を除く日本では、五月から七月にかけて雨の多い時期があり、これを梅雨と呼ぶ。雨季の一種である。\n",
    ),
    ("typhoon.md", "# 台風\n\n台風は夏から秋に日本へ来る。\n"),
    ("snow.md", "# 雪\n\n冬の北海道には雪が降る。\n"),
    ("sakura.md", "# 桜\n\n春には桜が咲く。\n"),
];

/// Both layouts of [`DOCS`], every section with the same vector.
fn both() -> [SearchIndex; 2] {
    common::both_layouts_with_vectors(&DOCS, &["ja", "zh"], |b| {
        let sections: usize = b.documents_sorted().iter().map(|d| d.sections.len()).sum();
        let mut flat = VectorsData::new(unit_vector(0).len() as u32);
        for s in 0..sections {
            flat.push(s as u32, &unit_vector(0));
        }
        flat
    })
}

fn first(idx: &SearchIndex, q: &str, mode: Mode) -> String {
    let opts = SearchOptions {
        mode,
        ..SearchOptions::default()
    };
    let r = idx.search(q, &opts, Some(&unit_vector(0))).unwrap();
    r.results[0].path.clone()
}

#[test]
fn a_japanese_question_fuses_the_section_that_holds_it() {
    for idx in both() {
        let q = "日本で梅雨がないのは北海道とどこか。";
        assert_eq!(first(&idx, q, Mode::Keyword), "repeats.md", "BM25F's order");
        assert_eq!(first(&idx, q, Mode::Hybrid), "answer.md");
        assert_eq!(
            first(&idx, q, Mode::Auto),
            "answer.md",
            "auto is hybrid here"
        );
    }
}

#[test]
fn a_question_without_kana_keeps_bm25_in_fusion() {
    // The same words in kanji alone (read as Chinese): coverage is not used.
    for idx in both() {
        let q = "日本梅雨北海道";
        assert_eq!(first(&idx, q, Mode::Keyword), "repeats.md");
        assert_eq!(first(&idx, q, Mode::Hybrid), "repeats.md");
    }
}
