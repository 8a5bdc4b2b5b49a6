//! A result made from a stored section: the lines it previews, the words it highlights, the
//! links to its other versions. Both layouts make their hits here, so a result reads the
//! same from a sections file, a card or a bundle.
use super::marks::{Marker, Shown};
use super::{deep_link, DocumentView, SearchHit, SectionView};
use crate::analyzer::{Analyzer, Language};
use crate::section::records::{line_starts, lines_of, DocRecord, SectionRecord};
use crate::section::SectionId;
use rustc_hash::FxHashSet as HashSet;
/// A search result for a section of `doc` (`starts`: the document's line starts).
pub(crate) fn make_hit(
    analyzer: &Analyzer,
    sec: &SectionRecord,
    doc: &DocRecord,
    starts: &[u32],
    score: f32,
    shown: &Shown<'_>,
) -> SearchHit {
    let text = lines_of(&doc.source, starts, sec.start_line, sec.end_line);
    make_hit_from(analyzer, sec, HitDoc::from(doc), text, score, shown)
}

/// What a hit shows of its document.
pub(crate) struct HitDoc<'a> {
    pub path: &'a str,
    pub url: &'a str,
    pub title: &'a str,
    pub description: Option<&'a str>,
    pub version: Option<&'a str>,
    /// The rules its words were indexed by: its highlights and excerpt are found by them.
    pub lang: Language,
}

impl<'a> From<&'a DocRecord> for HitDoc<'a> {
    fn from(d: &'a DocRecord) -> Self {
        HitDoc {
            path: &d.path,
            url: &d.url,
            title: &d.title,
            description: d.hints.description.as_deref(),
            version: d.hints.version.as_deref(),
            lang: Language::of_tag(d.hints.lang.as_deref()),
        }
    }
}

/// The most bytes of source a preview shows: a section whose first lines are one 5 MB line
/// (minified code, a data table) must not become a 5 MB result, card and DOM node. Cut at a
/// character boundary and marked with "…"; the whole section is still one `get` away.
pub const MAX_PREVIEW_BYTES: usize = 8 * 1024;

/// Bytes of a section's own text a card keeps beyond its first lines, so the excerpt drawn
/// from the card shows the words that matched, as one drawn from the whole section does:
/// as much as an excerpt reads ([`super::plain::MAX_PLAIN_BYTES`]). Measured (keyword-only
/// sharded builds, cards gzip -9):
///
/// | card keeps | rust-book | vue-docs-ja | powershell-docs | Lambda guide |
/// |---|---:|---:|---:|---:|
/// | first 5 lines + own text to 2 KB | 2.4 KB a card | 1.9 | 1.09 | 1.5 |
/// | + own text to 64 KB (all, here) | 3.1 KB a card | 2.2 | 1.13 | 1.8 |
///
/// The largest card is ~10 KB gzip, about what Pagefind fetches for one long page's
/// fragment; with 2 KB a word 20 lines into a long section was not in the card, and the
/// excerpt showed the section's opening instead.
pub const CARD_OWN_TEXT_BYTES: usize = 64 * 1024;

/// What a card keeps of a section's text from its heading on (`text`: its first `lines`
/// lines, then the rest of its own text): the first lines a little past
/// [`MAX_PREVIEW_BYTES`], so a preview made from a card is cut exactly where one made from
/// the whole source is, and at least [`CARD_OWN_TEXT_BYTES`] in all, for its excerpt.
pub(crate) fn card_text(text: &str, lines: u32) -> &str {
    let preview = first_lines(text, lines).len().min(MAX_PREVIEW_BYTES + 4);
    &text[..char_floor(text, preview.max(CARD_OWN_TEXT_BYTES))]
}

/// The largest character boundary of `text` at or below `at` (`str::floor_char_boundary`
/// is newer than this crate's minimum Rust).
fn char_floor(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// The first `n` lines of `text`, line breaks included.
fn first_lines(text: &str, n: u32) -> &str {
    if n == 0 {
        return "";
    }
    match text.match_indices('\n').nth(n as usize - 1) {
        Some((i, _)) => &text[..=i],
        None => text,
    }
}

/// A search hit for `sec`, whose lines from its heading on are `text` (at least as many as
/// the preview shows: a bundle gives the whole subtree, a card its first lines).
pub(crate) fn make_hit_from(
    analyzer: &Analyzer,
    sec: &SectionRecord,
    doc: HitDoc<'_>,
    text: &str,
    score: f32,
    shown: &Shown<'_>,
) -> SearchHit {
    let (preview_lines, marker) = (shown.preview_lines, &shown.marker);
    // Saturating: line numbers come from a file, and a damaged one must not panic here.
    let span = sec
        .end_line
        .saturating_sub(sec.start_line)
        .saturating_add(1);
    let lines_shown = u32::try_from(preview_lines).unwrap_or(u32::MAX).min(span);
    let lines = first_lines(text, lines_shown);
    let cut = lines.len() > MAX_PREVIEW_BYTES;
    let lines = if cut {
        &lines[..char_floor(lines, MAX_PREVIEW_BYTES)]
    } else {
        lines
    };
    let mut preview = lines.trim_end_matches(['\n', '\r']).to_string();
    if cut {
        preview.push('…');
    }
    // The page's words as its own language's rules made them (a German page's highlights on
    // a query read by English rules are its German terms, which the query also tried).
    let own = analyzer.for_page(doc.lang);
    let analyzer = own.as_ref();
    let highlights = highlight_ranges(analyzer, &preview, marker);
    let excerpt = if shown.excerpts {
        super::excerpt::excerpt(analyzer, text, sec.start_line, sec.own_end_line, marker)
    } else {
        super::excerpt::Excerpt {
            line: sec.start_line,
            ..Default::default()
        }
    };
    SearchHit {
        id: SectionId(sec.id).to_string(),
        path: doc.path.to_string(),
        url: deep_link(doc.url, sec.anchor.as_deref()),
        anchor: sec.anchor.clone(),
        heading: sec.heading.clone(),
        heading_path: sec.heading_path.clone(),
        depth: sec.depth,
        section_number: sec.section_number,
        start_line: sec.start_line,
        end_line: sec.end_line,
        score,
        preview,
        more_lines: span - lines_shown,
        highlights,
        excerpt: excerpt.text,
        excerpt_highlights: excerpt.highlights,
        excerpt_line: excerpt.line,
        title: doc.title.to_string(),
        description: doc.description.map(str::to_string),
        token_estimate: sec.token_estimate,
        version: doc.version.map(str::to_string),
        other_versions: Vec::new(),
    }
}

/// A section with its whole text.
pub(crate) fn section_view(
    analyzer: &Analyzer,
    sec: &SectionRecord,
    doc: &DocRecord,
    starts: &[u32],
) -> SectionView {
    let text = lines_of(&doc.source, starts, sec.start_line, sec.end_line).to_string();
    SectionView {
        hit: make_hit(
            analyzer,
            sec,
            doc,
            starts,
            0.0,
            &Shown {
                preview_lines: usize::MAX,
                excerpts: true,
                marker: Marker::new(&HashSet::default()),
            },
        ),
        text,
    }
}

/// Byte ranges of `text` whose terms the marker marks, merged, as UTF-16 offsets.
pub fn highlight_ranges(analyzer: &Analyzer, text: &str, marker: &Marker<'_>) -> Vec<[u32; 2]> {
    let ranges: Vec<(usize, usize)> = marker
        .find(analyzer, text)
        .into_iter()
        .map(|(a, b, _)| (a, b))
        .collect();
    super::excerpt::utf16_ranges(text, ranges)
}

/// A document with its outline (`sections`: the document's sections, in order).
pub(crate) fn document_view(
    analyzer: &Analyzer,
    d: &DocRecord,
    sections: &[SectionRecord],
) -> DocumentView {
    let starts = line_starts(&d.source);
    let none = HashSet::default();
    let outline = Shown {
        preview_lines: 0,
        excerpts: true,
        marker: Marker::new(&none),
    };
    DocumentView {
        path: d.path.clone(),
        url: d.url.clone(),
        title: d.title.clone(),
        source: d.source.clone(),
        sections: sections
            .iter()
            .map(|sec| make_hit(analyzer, sec, d, &starts, 0.0, &outline))
            .collect(),
    }
}

/// Where a document's sections sit in a list of sections whose first is ordinal `base`.
pub(crate) fn document_range(d: &DocRecord, base: u32) -> std::ops::Range<usize> {
    let a = d.first_section.saturating_sub(base) as usize;
    a..a + d.section_count as usize
}
