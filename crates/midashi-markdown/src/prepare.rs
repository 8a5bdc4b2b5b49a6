//! What pulldown-cmark is given: the source with the BOM removed and the frontmatter and
//! `::: container` marker lines blanked out byte for byte, so that every offset (and so every
//! line number) in the parsed text is the same as in the source.
//!
//! Blanking instead of cutting is what keeps line numbers exact. The frontmatter is found by
//! pulldown-cmark's own metadata-block rules, but only at the very start of the file: with
//! those options on for the whole parse, a `---` / text / `---` run in the middle of a
//! document would silently swallow its content, headings included.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, MetadataBlockKind, Options, Parser, Tag, TagEnd};

use crate::frontmatter::Kind;

/// The Markdown extensions Midashi parses with (metadata blocks are handled separately).
pub(crate) fn markdown_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_GFM
}

/// The frontmatter block found at the start of a file.
#[derive(Debug)]
pub(crate) struct Frontmatter {
    pub kind: Kind,
    /// The text between the fences (line endings normalised).
    pub body: String,
    /// 1-based line of the body's first line in the source.
    pub body_line: u32,
    /// Offset (in the text without its BOM) just past the closing fence.
    pub end: usize,
}

/// A `:::` container line (VitePress custom blocks, markdown-it-container).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marker {
    /// Offset of the line in the parsed text.
    pub offset: usize,
    /// `Some((kind, title))` for an opening line, `None` for a closing `:::`.
    pub open: Option<(String, String)>,
}

/// The source as handed to pulldown-cmark, with what was taken out of it.
#[derive(Debug)]
pub(crate) struct Prepared<'a> {
    /// The text to parse: same length and line breaks as the source minus its BOM.
    pub text: Cow<'a, str>,
    /// Bytes removed at the front (the BOM): add to an offset in `text` for the source.
    pub base: usize,
    pub frontmatter: Option<Frontmatter>,
    /// Container lines in document order.
    pub markers: Vec<Marker>,
}

pub(crate) fn prepare(source: &str) -> Prepared<'_> {
    let text = source.strip_prefix('\u{feff}').unwrap_or(source);
    let base = source.len() - text.len();
    let maybe_frontmatter = text.starts_with("---") || text.starts_with("+++");
    let maybe_markers = text.contains(":::");
    let mut prepared = Prepared {
        text: Cow::Borrowed(text),
        base,
        frontmatter: None,
        markers: Vec::new(),
    };
    // pulldown-cmark parses the whole block structure up front: without containers to look
    // for, only the prefix that can hold the frontmatter is given to the first pass.
    let scan_len = if maybe_markers {
        text.len()
    } else if maybe_frontmatter {
        frontmatter_extent(text)
    } else {
        0
    };
    if scan_len == 0 {
        return prepared;
    }

    // First pass: the frontmatter, and the blocks whose lines are never container markers.
    let opts = markdown_options()
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS;
    let mut literal: Vec<Range<usize>> = Vec::new();
    let mut fm: Option<(Kind, Range<usize>, String)> = None;
    let mut in_fm = false;
    for (event, range) in Parser::new_ext(&text[..scan_len], opts).into_offset_iter() {
        match event {
            Event::Start(Tag::MetadataBlock(kind)) => {
                if range.start == 0 && fm.is_none() {
                    let kind = match kind {
                        MetadataBlockKind::YamlStyle => Kind::Yaml,
                        MetadataBlockKind::PlusesStyle => Kind::Toml,
                    };
                    fm = Some((kind, range.clone(), String::new()));
                    in_fm = true;
                }
                literal.push(range);
            }
            Event::End(TagEnd::MetadataBlock(_)) => in_fm = false,
            Event::Text(t) if in_fm => {
                if let Some((_, _, body)) = fm.as_mut() {
                    body.push_str(&t);
                }
            }
            Event::Start(Tag::CodeBlock(_)) | Event::Start(Tag::HtmlBlock) => literal.push(range),
            _ => {}
        }
        if !maybe_markers && !in_fm {
            // Only the frontmatter was wanted and the file does not start with one.
            break;
        }
    }

    let mut blanked: Option<String> = None;
    if let Some((kind, range, body)) = fm {
        let s = blanked.get_or_insert_with(|| text.to_string());
        let end = range.end;
        blank(s, range);
        prepared.frontmatter = Some(Frontmatter {
            kind,
            body,
            body_line: 2,
            end,
        });
    }
    if maybe_markers {
        literal.sort_by_key(|r| r.start);
        let mut li = 0;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            while li < literal.len() && literal[li].end <= start {
                li += 1;
            }
            if literal[li..]
                .iter()
                .take_while(|r| r.start <= start)
                .any(|r| r.end > start)
            {
                continue;
            }
            let content = line.trim_end_matches(['\n', '\r']);
            // Containers may sit in block quotes and list items: look past `>` and indents.
            let rest = content.trim_start_matches([' ', '\t', '>']);
            let Some(after) = rest.strip_prefix(":::") else {
                continue;
            };
            let after = after.trim_start_matches(':').trim();
            let open = if after.is_empty() {
                None
            } else {
                let (kind, title) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
                Some((kind.to_string(), title.trim().to_string()))
            };
            let marker_start = start + (content.len() - rest.len());
            let s = blanked.get_or_insert_with(|| text.to_string());
            blank(s, marker_start..start + content.len());
            prepared.markers.push(Marker {
                offset: start,
                open,
            });
        }
    }
    if let Some(s) = blanked {
        prepared.text = Cow::Owned(s);
    }
    prepared
}

/// The Markdown of a source file as a reader sees it: without its BOM and frontmatter block
/// (what a page's Markdown copy for AI tools holds).
pub fn body_of(source: &str) -> &str {
    let p = prepare(source);
    let text = &source[p.base..];
    match p.frontmatter {
        Some(fm) => text[fm.end.min(text.len())..].trim_start_matches(['\r', '\n']),
        None => text,
    }
}

/// The end of the first line after the first that could close a frontmatter block (`---`,
/// `...` or `+++` and trailing spaces), 0 if there is none: no frontmatter can end later.
fn frontmatter_extent(text: &str) -> usize {
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        offset += line.len();
        let fence = line.trim_end_matches(['\n', '\r']).trim_end_matches(' ');
        if i > 0 && matches!(fence, "---" | "..." | "+++") {
            return offset;
        }
    }
    0
}

/// Replaces `range` of `s` with spaces, keeping line breaks (and so line numbers).
fn blank(s: &mut String, range: Range<usize>) {
    let end = range.end.min(s.len());
    let start = range.start.min(end);
    if !s.is_char_boundary(start) || !s.is_char_boundary(end) {
        return;
    }
    let spaces: String = s[start..end]
        .bytes()
        .map(|b| {
            if b == b'\n' || b == b'\r' {
                b as char
            } else {
                ' '
            }
        })
        .collect();
    s.replace_range(start..end, &spaces);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_blanked_only_at_the_start() {
        let src = "---\ntitle: T\n---\n# H\n\n---\nnot: fm\n---\n";
        let p = prepare(src);
        let fm = p.frontmatter.as_ref().unwrap();
        assert_eq!(fm.kind, Kind::Yaml);
        assert_eq!(fm.body, "title: T\n");
        assert_eq!(p.text.len(), src.len());
        assert!(p.text.starts_with("   \n        \n   \n# H\n"));
        assert!(p.text.ends_with("---\nnot: fm\n---\n"));
    }

    #[test]
    fn the_body_is_the_source_without_bom_and_frontmatter() {
        assert_eq!(
            body_of("\u{feff}---\ntitle: T\n---\n\n# H\n\ntext\n"),
            "# H\n\ntext\n"
        );
        assert_eq!(body_of("+++\ntitle = 'T'\n+++\n# H\n"), "# H\n");
        assert_eq!(
            body_of("# H\n\n---\n\nafter a rule\n"),
            "# H\n\n---\n\nafter a rule\n"
        );
        assert_eq!(body_of("---\nnot closed\n"), "---\nnot closed\n");
    }

    #[test]
    fn bom_and_toml() {
        let src = "\u{feff}+++\r\ntitle = \"T\"\r\n+++\r\ntext";
        let p = prepare(src);
        assert_eq!(p.base, 3);
        assert_eq!(p.frontmatter.as_ref().unwrap().kind, Kind::Toml);
        assert_eq!(p.text.len(), src.len() - 3);
        assert!(p.text.ends_with("\r\ntext"));
        assert_eq!(p.text.lines().count(), 4);
    }

    #[test]
    fn container_lines_outside_code() {
        let src = "::: tip Mind the gap\nText\n:::\n\n```\n::: not a marker\n```\n> ::: warning\n";
        let p = prepare(src);
        let opens: Vec<_> = p.markers.iter().map(|m| m.open.clone()).collect();
        assert_eq!(
            opens,
            [
                Some(("tip".into(), "Mind the gap".into())),
                None,
                Some(("warning".into(), String::new()))
            ]
        );
        assert!(p
            .text
            .starts_with(&format!("{}\nText\n   \n", " ".repeat(20))));
        assert!(p.text.contains("::: not a marker"));
        assert!(p.text.ends_with(&format!(">{}\n", " ".repeat(12))));
    }
}
