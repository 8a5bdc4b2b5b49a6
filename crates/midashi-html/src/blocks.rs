//! The content region as a list of blocks (headings, prose, code), each with its plain text
//! (what is indexed) and its Markdown-like lines (what is quoted).

use ego_tree::NodeRef;
use scraper::{ElementRef, Node};

/// What a block is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `<h1>`–`<h6>`, with the id a link can point at.
    Heading { level: u8, id: Option<String> },
    /// A paragraph, list item, table row, quote or definition.
    Prose,
    /// A `<pre>`.
    Code,
}

/// One block of the page.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub kind: Kind,
    /// Plain text: whitespace collapsed for prose, verbatim for code.
    pub text: String,
    /// Markdown-like lines, without a trailing newline.
    pub md: String,
    /// Whether it sits tight against the block before it (list items, table rows).
    pub tight: bool,
}

/// Elements that never carry a page's content.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "embed",
    "canvas", "video", "audio", "button", "select", "textarea", "input", "form", "nav", "aside",
    "footer", "dialog", "img", "picture", "head", "link", "meta",
];

/// Elements after which text starts a new block.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "figure",
    "figcaption",
    "details",
    "summary",
    "header",
    "hgroup",
    "address",
    "center",
    "fieldset",
    "hr",
    "body",
    "caption",
];

/// Deeper nesting than this is read as plain text: hostile pages must not exhaust the
/// stack (html5ever does not limit depth).
const MAX_DEPTH: usize = 256;

/// The blocks of `region`, in document order.
pub(crate) fn collect(region: ElementRef<'_>) -> Vec<Block> {
    let mut w = Walker::default();
    w.children(*region, 0);
    w.flush();
    w.blocks
}

fn element(node: NodeRef<'_, Node>) -> Option<ElementRef<'_>> {
    ElementRef::wrap(node)
}

fn is_skipped(el: &ElementRef<'_>) -> bool {
    let v = el.value();
    let name = v.name();
    if SKIPPED.contains(&name) {
        return true;
    }
    if v.attr("data-midashi-ignore").is_some()
        || v.attr("hidden").is_some()
        || v.attr("aria-hidden") == Some("true")
    {
        return true;
    }
    // A page header holding the title stays; a site header (logo, links) goes.
    name == "header" && !has_heading(el)
}

fn has_heading(el: &ElementRef<'_>) -> bool {
    el.descendants()
        .filter_map(element)
        .any(|e| heading_level(e.value().name()).is_some())
}

fn heading_level(name: &str) -> Option<u8> {
    match name {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

/// Zero-width characters that themes put into heading permalinks.
fn visible(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{FEFF}'))
        .collect()
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Default)]
struct Walker {
    blocks: Vec<Block>,
    /// The paragraph being read: plain and Markdown-like.
    text: String,
    md: String,
    /// Open list items (for indentation) and quotes.
    lists: usize,
    quotes: usize,
    /// A list item has begun and its first line is not written yet.
    bullet: bool,
    /// The last heading's id, until text follows it: a permalink right after a heading
    /// (`<a href="#id">`) is the theme's, not the page's.
    heading_id: Option<String>,
    /// The next block sits tight against the one before.
    tight: bool,
}

impl Walker {
    fn push_text(&mut self, raw: &str) {
        let t = visible(raw);
        if t.is_empty() {
            return;
        }
        let starts_space = t.starts_with(char::is_whitespace);
        let ends_space = t.ends_with(char::is_whitespace);
        let words = collapse(&t);
        if starts_space || words.is_empty() {
            self.space();
        }
        if !words.is_empty() {
            self.text.push_str(&words);
            self.md.push_str(&words);
            self.heading_id = None;
            if ends_space {
                self.space();
            }
        }
    }

    fn space(&mut self) {
        if self
            .text
            .chars()
            .next_back()
            .is_some_and(|c| !c.is_whitespace())
        {
            self.text.push(' ');
        }
        if self
            .md
            .chars()
            .next_back()
            .is_some_and(|c| !c.is_whitespace())
        {
            self.md.push(' ');
        }
    }

    /// Ends the paragraph being read as a block.
    fn flush(&mut self) {
        let text = self.text.trim().to_string();
        let md = self.md.trim().to_string();
        self.text.clear();
        self.md.clear();
        if text.is_empty() {
            return;
        }
        let mut prefix = "> ".repeat(self.quotes);
        let mut tight = self.tight;
        if self.lists > 0 {
            prefix.push_str(&"  ".repeat(self.lists - 1));
            if std::mem::take(&mut self.bullet) {
                prefix.push_str("- ");
                tight = true;
            } else {
                prefix.push_str("  ");
            }
        }
        let md = md
            .lines()
            .map(|l| format!("{prefix}{}", l.trim()))
            .collect::<Vec<_>>()
            .join("\n");
        self.tight = false;
        self.blocks.push(Block {
            kind: Kind::Prose,
            text,
            md,
            tight,
        });
    }

    fn children(&mut self, node: NodeRef<'_, Node>, depth: usize) {
        for child in node.children() {
            match child.value() {
                Node::Text(t) => self.push_text(t),
                Node::Element(_) => {
                    if let Some(el) = element(child) {
                        self.element(el, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }

    fn element(&mut self, el: ElementRef<'_>, depth: usize) {
        if is_skipped(&el) {
            return;
        }
        if depth > MAX_DEPTH {
            let t: String = el.text().collect();
            self.push_text(&t);
            return;
        }
        let name = el.value().name();
        if let Some(level) = heading_level(name) {
            return self.heading(el, level);
        }
        match name {
            "pre" => self.code(el),
            "br" => {
                self.text.push(' ');
                self.md.push('\n');
            }
            "code" | "kbd" | "samp" => {
                let t = collapse(&visible(&el.text().collect::<String>()));
                if !t.is_empty() {
                    self.push_text(&t);
                    // The Markdown-like text marks it as code.
                    let n = self.md.len() - t.len();
                    self.md.insert(n, '`');
                    self.md.push('`');
                }
            }
            "a" if self.is_permalink(&el) => {}
            "li" => {
                self.flush();
                self.lists += 1;
                self.bullet = true;
                self.children(*el, depth);
                self.flush();
                self.bullet = false;
                self.lists -= 1;
            }
            "tr" => self.row(el),
            "blockquote" => {
                self.flush();
                self.quotes += 1;
                self.children(*el, depth);
                self.flush();
                self.quotes -= 1;
            }
            _ if BLOCKS.contains(&name) => {
                self.flush();
                self.children(*el, depth);
                self.flush();
            }
            _ => self.children(*el, depth),
        }
    }

    /// `<a href="#id">` right after the heading with that id, before any text.
    fn is_permalink(&self, el: &ElementRef<'_>) -> bool {
        let href = el.value().attr("href").unwrap_or_default();
        matches!((&self.heading_id, href.strip_prefix('#')), (Some(id), Some(h)) if h == id)
    }

    fn heading(&mut self, el: ElementRef<'_>, level: u8) {
        self.flush();
        let id = el
            .value()
            .attr("id")
            .or_else(|| {
                // `<h2><a id="x">` or `<h2><a name="x">`: the id is the anchor inside.
                el.descendants().filter_map(element).find_map(|e| {
                    e.value()
                        .attr("id")
                        .or_else(|| (e.value().name() == "a").then(|| e.value().attr("name"))?)
                })
            })
            .map(str::to_string)
            .filter(|s| !s.is_empty());
        let text = heading_text(el, id.as_deref());
        if text.is_empty() {
            return;
        }
        self.blocks.push(Block {
            kind: Kind::Heading {
                level,
                id: id.clone(),
            },
            md: format!("{} {}", "#".repeat(usize::from(level)), text),
            text,
            tight: false,
        });
        self.heading_id = id;
    }

    fn code(&mut self, el: ElementRef<'_>) {
        let lang = code_language(&el);
        // A theme's language label just before the block (`<span class="lang">js</span>`).
        if lang
            .as_deref()
            .is_some_and(|l| self.text.trim().eq_ignore_ascii_case(l))
        {
            self.text.clear();
            self.md.clear();
        }
        self.flush();
        let mut code = String::new();
        code_text(*el, &mut code, 0);
        let code = code.trim_matches('\n').to_string();
        if code.trim().is_empty() {
            return;
        }
        let md = format!("```{}\n{}\n```", lang.unwrap_or_default(), code);
        self.blocks.push(Block {
            kind: Kind::Code,
            text: code,
            md,
            tight: false,
        });
        self.heading_id = None;
    }

    fn row(&mut self, el: ElementRef<'_>) {
        self.flush();
        let cells: Vec<String> = el
            .children()
            .filter_map(element)
            .filter(|c| matches!(c.value().name(), "td" | "th"))
            .map(|c| collapse(&visible(&c.text().collect::<String>())))
            .collect();
        if cells.iter().all(String::is_empty) {
            return;
        }
        let tight = matches!(self.blocks.last(), Some(b) if b.md.starts_with('|'));
        self.blocks.push(Block {
            kind: Kind::Prose,
            text: cells.join(" "),
            md: format!("| {} |", cells.join(" | ")),
            tight,
        });
    }
}

/// A heading's text, without the theme's permalink when the heading has other text (mdBook
/// wraps the whole heading in its permalink, so then it is kept).
fn heading_text(el: ElementRef<'_>, id: Option<&str>) -> String {
    let mut with = String::new();
    let mut without = String::new();
    for node in el.descendants() {
        let Node::Text(t) = node.value() else {
            continue;
        };
        let mut in_permalink = false;
        let mut hidden = false;
        for a in node.ancestors().filter_map(element) {
            if a.id() == el.id() {
                break;
            }
            let v = a.value();
            if SKIPPED.contains(&v.name()) || v.attr("aria-hidden") == Some("true") {
                hidden = true;
            }
            let href = v.attr("href").and_then(|h| h.strip_prefix('#'));
            if v.name() == "a" && href.is_some() && href == id {
                in_permalink = true;
            }
        }
        if hidden {
            continue;
        }
        with.push_str(t);
        if !in_permalink {
            without.push_str(t);
        }
    }
    let without = collapse(&visible(&without));
    let text = if without.is_empty() {
        collapse(&visible(&with))
    } else {
        without
    };
    // Permalink glyphs some themes leave as text.
    text.trim_end_matches(['¶', '#', '§', '🔗'])
        .trim()
        .to_string()
}

/// The language of a code block: `data-language`, or a `language-x`/`lang-x` class on the
/// `<pre>` or its `<code>`.
fn code_language(pre: &ElementRef<'_>) -> Option<String> {
    let from = |el: &ElementRef<'_>| {
        el.value()
            .attr("data-language")
            .or_else(|| {
                el.value().classes().find_map(|c| {
                    c.strip_prefix("language-")
                        .or_else(|| c.strip_prefix("lang-"))
                })
            })
            .filter(|l| !l.is_empty() && l.len() < 40 && !l.contains(char::is_whitespace))
            .map(str::to_string)
    };
    // Themes put it on the `<pre>`, its `<code>`, or a wrapper (`<div class="language-js">`).
    from(pre)
        .or_else(|| {
            pre.children()
                .filter_map(element)
                .find(|c| c.value().name() == "code")
                .and_then(|c| from(&c))
        })
        .or_else(|| {
            pre.ancestors()
                .filter_map(element)
                .take(2)
                .find_map(|a| from(&a))
        })
}

/// Code text verbatim; a highlighter's per-line `<div>`s and `<br>`s end lines.
fn code_text(node: NodeRef<'_, Node>, out: &mut String, depth: usize) {
    for child in node.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) => {
                let name = e.name();
                if matches!(name, "button" | "script" | "style" | "svg")
                    || e.attr("aria-hidden") == Some("true")
                {
                    continue;
                }
                if name == "br" {
                    out.push('\n');
                    continue;
                }
                if depth > MAX_DEPTH {
                    out.extend(ElementRef::wrap(child).into_iter().flat_map(|e| e.text()));
                    continue;
                }
                code_text(child, out, depth + 1);
                if matches!(name, "div" | "p" | "li" | "tr") && !out.ends_with('\n') {
                    out.push('\n');
                }
            }
            _ => {}
        }
    }
}
