//! Sectioning arbitrary Markdown (midashi-markdown), checking the section tree's invariants,
//! and rendering it as HTML.
//!
//! Input: the file's bytes (invalid UTF-8 replaced, as build-index reads files). The slug
//! style is picked by the input's length, so seeds can be plain Markdown files.
#![no_main]

use libfuzzer_sys::fuzz_target;
use midashi_markdown::{parse_document, render_html, Options, SlugStyle, MAX_HEADING_BYTES};

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let slug = [SlugStyle::Github, SlugStyle::Vitepress, SlugStyle::Mdbook][data.len() % 3];
    let opts = Options {
        slug,
        ..Options::default()
    };
    let (doc, _warnings) = parse_document("dir/page.md", &src, &opts);

    // The line-range invariants every consumer relies on.
    let lines = src.split_inclusive('\n').count().max(1) as u32;
    let s = &doc.sections;
    assert!(!s.is_empty() && s[0].depth == 0 && s[0].start_line == 1);
    for (i, sec) in s.iter().enumerate() {
        assert!(sec.start_line >= 1 && sec.end_line <= lines, "{sec:?}");
        assert!(sec.start_line <= sec.own_end_line && sec.own_end_line <= sec.end_line);
        assert!(sec.heading.len() <= MAX_HEADING_BYTES);
        if let Some(pid) = sec.parent {
            let p = s[..i]
                .iter()
                .find(|p| p.id == pid)
                .expect("parent before child");
            assert!(p.depth < sec.depth);
            assert!(p.start_line <= sec.start_line && sec.end_line <= p.end_line);
        } else {
            assert_eq!(i, 0);
        }
    }
    let html = render_html(&src, &doc, &opts);
    // Raw HTML in the Markdown is escaped: no script element can come out.
    assert!(!html.contains("<script"), "{html}");
});
