//! The page body as HTML, for a static site built from possibly hostile Markdown.
//!
//! Heading ids are the anchors of the index (so search results deep-link exactly), the
//! frontmatter is not rendered, `::: tip` containers become `<div class="custom-block tip">`,
//! every piece of raw HTML in the Markdown is escaped and shown as text, heading attributes
//! other than the id are dropped (they could carry `onclick=`), and link and image URLs with
//! a scheme other than http(s), mailto, tel or ftp(s) (`javascript:`, `data:`, …) become `#`.

use midashi_core::section::{Document, Section};
use pulldown_cmark::{CowStr, Event, Parser, Tag, TagEnd};

use crate::prepare::{markdown_options, prepare, Prepared};
use crate::sections::Lines;
use crate::{parse_document, Options, MAX_HEADINGS};

/// Renders `doc_source` (the Markdown `doc` was parsed from) as the HTML of the page body.
///
/// The ids of the headings are the `anchor`s of `doc`'s sections. If `doc` does not match
/// the source (it was parsed from another version of it), the source is parsed again with
/// `opts` so that ids and headings still agree.
pub fn render_html(doc_source: &str, doc: &Document, opts: &Options) -> String {
    let prepared = prepare(doc_source);
    let lines = Lines::new(doc_source);
    if let Some(html) = render_with(&prepared, &lines, &doc.sections) {
        return html;
    }
    let (fresh, _) = parse_document(&doc.path, doc_source, opts);
    render_with(&prepared, &lines, &fresh.sections).unwrap_or_default()
}

/// Renders with the anchors of `sections`; `None` if they are not this source's headings.
fn render_with(prepared: &Prepared<'_>, lines: &Lines, sections: &[Section]) -> Option<String> {
    let mut events: Vec<Event<'_>> = Vec::new();
    let mut next_section = 1;
    let mut next_marker = 0;
    let mut open_blocks: Vec<&'static str> = Vec::new();
    let parser = Parser::new_ext(&prepared.text, markdown_options()).into_offset_iter();
    for (event, range) in parser {
        if !matches!(event, Event::End(_)) {
            while let Some(m) = prepared.markers.get(next_marker) {
                if m.offset >= range.start {
                    break;
                }
                next_marker += 1;
                container_html(m.open.as_ref(), &mut open_blocks, &mut events);
            }
        }
        let event = match event {
            Event::Start(Tag::Heading { level, .. }) => {
                let line = lines.line_of(range.start + prepared.base);
                let anchor = match sections.get(next_section) {
                    Some(s) if s.start_line == line && s.depth == level as u8 => {
                        next_section += 1;
                        s.anchor.as_deref()
                    }
                    // Headings past the limit were folded into text: they get no id.
                    None if sections.len() > MAX_HEADINGS => None,
                    _ => return None,
                };
                let id = anchor
                    .map(|a| format!(" id=\"{}\"", escape(a)))
                    .unwrap_or_default();
                Event::Html(format!("<{level}{id}>").into())
            }
            Event::End(TagEnd::Heading(level)) => Event::Html(format!("</{level}>\n").into()),
            Event::Start(Tag::HtmlBlock) => Event::Html("<pre class=\"raw-html\">".into()),
            Event::End(TagEnd::HtmlBlock) => Event::Html("</pre>\n".into()),
            // Raw HTML is shown, never interpreted: the writer escapes text.
            Event::Html(t) | Event::InlineHtml(t) => Event::Text(t),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Link {
                link_type,
                dest_url: safe_url(dest_url),
                title,
                id,
            }),
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Image {
                link_type,
                dest_url: safe_url(dest_url),
                title,
                id,
            }),
            Event::Start(Tag::MetadataBlock(_)) | Event::End(TagEnd::MetadataBlock(_)) => continue,
            other => other,
        };
        events.push(event);
    }
    // Headings the source no longer has: the sections belong to another version of it.
    if next_section < sections.len() {
        return None;
    }
    for m in &prepared.markers[next_marker..] {
        container_html(m.open.as_ref(), &mut open_blocks, &mut events);
    }
    while let Some(close) = open_blocks.pop() {
        events.push(Event::Html(close.into()));
    }
    let mut html = String::with_capacity(prepared.text.len() + prepared.text.len() / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    Some(html)
}

/// The HTML for a `:::` line: VitePress's markup for custom blocks. Unmatched closing lines
/// are ignored, so the output stays balanced.
fn container_html(
    open: Option<&(String, String)>,
    open_blocks: &mut Vec<&'static str>,
    events: &mut Vec<Event<'_>>,
) {
    match open {
        Some((kind, title)) => {
            let kind: String = kind
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect::<String>()
                .to_ascii_lowercase();
            let html = if kind == "details" {
                open_blocks.push("</details>\n");
                let summary = if title.is_empty() { "Details" } else { title };
                format!(
                    "<details class=\"custom-block details\"><summary>{}</summary>\n",
                    escape(summary)
                )
            } else {
                open_blocks.push("</div>\n");
                let title = if title.is_empty() {
                    String::new()
                } else {
                    format!("<p class=\"custom-block-title\">{}</p>\n", escape(title))
                };
                format!("<div class=\"custom-block {kind}\">\n{title}")
            };
            events.push(Event::Html(html.into()));
        }
        None => {
            if let Some(close) = open_blocks.pop() {
                events.push(Event::Html(close.into()));
            }
        }
    }
}

/// The URL if its scheme (if any) is one a page may link to; `#` otherwise. Browsers ignore
/// whitespace and control characters inside a scheme, so they are ignored here too.
fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .take(32)
        .collect::<String>()
        .to_ascii_lowercase();
    let end = cleaned.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')));
    match end {
        Some(i) if i > 0 && cleaned[i..].starts_with(':') => {
            if matches!(
                &cleaned[..i],
                "http" | "https" | "mailto" | "tel" | "ftp" | "ftps"
            ) {
                url
            } else {
                CowStr::Borrowed("#")
            }
        }
        _ => url,
    }
}

/// Escapes text for HTML content and double-quoted attribute values.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let ok = |u: &str| safe_url(CowStr::Borrowed(u)).to_string();
        for kept in [
            "https://x.example/a",
            "HTTP://x",
            "mailto:a@b",
            "/abs",
            "rel/path:x",
            "#frag",
            "?q=1",
            "",
        ] {
            assert_eq!(ok(kept), kept);
        }
        for bad in [
            "javascript:alert(1)",
            " JaVaScRiPt:alert(1)",
            "java\tscript:x",
            "\u{0}javascript:x",
            "data:text/html,<script>",
            "vbscript:x",
            "file:///etc/passwd",
        ] {
            assert_eq!(ok(bad), "#", "{bad:?}");
        }
    }

    #[test]
    fn escaping() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
