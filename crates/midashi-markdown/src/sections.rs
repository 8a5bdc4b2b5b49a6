//! The sectioner: pulldown-cmark events with source offsets → the section tree of one
//! document (ids, anchors, breadcrumbs, line ranges, own text and code, hints, tokens).

use midashi_core::section::{Document, Hints, Warning};
use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use crate::frontmatter::{self, Meta};
use crate::html::HtmlStripper;
use crate::prepare::{self, markdown_options, Marker, Prepared};
use crate::slug::{slugify, Anchors};
use crate::text::{collapse_whitespace, truncate_bytes, CodeBuf, TextBuf};
use crate::tree::{Tree, TreeNode};
use crate::{page_url, Options, SlugStyle, MAX_HEADINGS, MAX_HEADING_BYTES};

/// Parses one Markdown file into its section tree.
///
/// `path` is the file's path relative to the docs root (`/` separators); it names the
/// document, makes its URL and feeds the section ids. Never panics and never fails: malformed
/// Markdown or frontmatter still gives sections, and what looks wrong is reported as
/// [`Warning`]s (invalid frontmatter, duplicate explicit anchors, over-long headings or
/// sections, too many headings).
pub fn parse_document(path: &str, source: &str, opts: &Options) -> (Document, Vec<Warning>) {
    let mut warnings = Vec::new();
    let prepared = prepare::prepare(source);
    let meta = match &prepared.frontmatter {
        None => Meta::default(),
        Some(fm) => match frontmatter::parse(fm.kind, &fm.body) {
            Ok(meta) => meta,
            Err((line, message)) => {
                let line = fm.body_line + line.unwrap_or(1).saturating_sub(1) as u32;
                warnings.push(Warning {
                    path: path.to_string(),
                    line: Some(line),
                    message: format!("{message}; the document is indexed without its frontmatter"),
                });
                Meta::default()
            }
        },
    };
    let excluded = meta.search == Some(false);
    let weight = meta.weight.unwrap_or(1.0);
    let fm_title = meta.title.clone();
    let hints = frontmatter::hints(path, meta);

    let lines = Lines::new(source);
    let mut b = Builder::new(path, opts, &lines, &prepared);
    for (event, range) in Parser::new_ext(&prepared.text, markdown_options()).into_offset_iter() {
        b.event(event, range.start);
    }
    b.flush_markers(usize::MAX);
    warnings.append(&mut b.warnings);
    if b.folded > 0 {
        warnings.push(Warning {
            path: path.to_string(),
            line: b.first_folded_line,
            message: format!(
                "{} headings past the first {MAX_HEADINGS} were folded into their parent sections",
                b.folded
            ),
        });
    }
    let nodes = b.nodes;
    let mut doc = assemble(
        path,
        source,
        opts,
        &lines,
        nodes,
        fm_title,
        hints,
        &mut warnings,
    );
    doc.weight = weight;
    if excluded {
        // Frontmatter `search: false`: the document is read (its warnings still count) but
        // has no sections to index; the CLI leaves such documents out and says how many.
        doc.sections.clear();
    }
    (doc, warnings)
}

/// One section while the document is being read.
struct Node {
    depth: u8,
    heading: String,
    anchor: Option<String>,
    parent: Option<usize>,
    start_line: u32,
    section_number: u32,
    /// Children seen so far at each depth, for their section numbers.
    child_counts: [u32; 7],
    first_child_line: Option<u32>,
    text: TextBuf,
    code: CodeBuf,
}

impl Node {
    fn new(depth: u8, heading: String, parent: Option<usize>, start_line: u32) -> Self {
        Node {
            depth,
            heading,
            anchor: None,
            parent,
            start_line,
            section_number: 1,
            child_counts: [0; 7],
            first_child_line: None,
            text: TextBuf::default(),
            code: CodeBuf::default(),
        }
    }
}

/// A heading being read.
struct HeadingCapture {
    level: u8,
    id: Option<String>,
    /// Offset in the parsed text.
    offset: usize,
    /// What readers see: all text, image alt text included.
    text: String,
    /// What the generators slug: text and code, not image alt text.
    slug: String,
    image_depth: u32,
    html: HtmlStripper,
    /// Past [`MAX_HEADINGS`]: becomes text of the current section.
    folded: bool,
}

struct Builder<'a> {
    path: &'a str,
    style: SlugStyle,
    lines: &'a Lines,
    base: usize,
    markers: &'a [Marker],
    next_marker: usize,
    nodes: Vec<Node>,
    /// Open sections, outermost first; `nodes[stack.last()]` receives text.
    stack: Vec<usize>,
    anchors: Anchors,
    heading: Option<HeadingCapture>,
    in_code: bool,
    in_html_block: bool,
    html: HtmlStripper,
    headings: usize,
    folded: usize,
    first_folded_line: Option<u32>,
    warnings: Vec<Warning>,
}

impl<'a> Builder<'a> {
    fn new(path: &'a str, opts: &Options, lines: &'a Lines, prepared: &'a Prepared<'_>) -> Self {
        Builder {
            path,
            style: opts.slug,
            lines,
            base: prepared.base,
            markers: &prepared.markers,
            next_marker: 0,
            nodes: vec![Node::new(0, String::new(), None, 1)],
            stack: vec![0],
            anchors: Anchors::new(opts.slug),
            heading: None,
            in_code: false,
            in_html_block: false,
            html: HtmlStripper::default(),
            headings: 0,
            folded: 0,
            first_folded_line: None,
            warnings: Vec::new(),
        }
    }

    fn current(&self) -> usize {
        self.stack.last().copied().unwrap_or(0)
    }

    fn warn(&mut self, line: u32, message: String) {
        self.warnings.push(Warning {
            path: self.path.to_string(),
            line: Some(line),
            message,
        });
    }

    /// Container titles whose lines come before `offset` become text of the current section.
    fn flush_markers(&mut self, offset: usize) {
        while let Some(m) = self.markers.get(self.next_marker) {
            if m.offset >= offset {
                break;
            }
            self.next_marker += 1;
            if let Some((_, title)) = &m.open {
                if !title.is_empty() {
                    let cur = self.current();
                    let text = &mut self.nodes[cur].text;
                    text.block_break();
                    text.push(title);
                    text.block_break();
                }
            }
        }
    }

    fn event(&mut self, event: Event<'_>, offset: usize) {
        if !matches!(event, Event::End(_)) {
            self.flush_markers(offset);
        }
        match event {
            Event::Start(Tag::Heading { level, id, .. }) => {
                self.heading = Some(HeadingCapture {
                    level: level as u8,
                    id: id.map(|s| s.to_string()),
                    offset,
                    text: String::new(),
                    slug: String::new(),
                    image_depth: 0,
                    html: HtmlStripper::default(),
                    folded: self.headings >= MAX_HEADINGS,
                });
            }
            Event::End(TagEnd::Heading(_)) => self.finish_heading(),
            event if self.heading.is_some() => self.heading_event(event),
            event => self.body_event(event),
        }
    }

    fn heading_event(&mut self, event: Event<'_>) {
        let style = self.style;
        let Some(h) = self.heading.as_mut() else {
            return;
        };
        let both = |h: &mut HeadingCapture, t: &str| {
            h.text.push_str(t);
            if h.image_depth == 0 {
                h.slug.push_str(t);
            }
        };
        match event {
            Event::Text(t) if !h.html.in_raw() => both(h, &t),
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => both(h, &t),
            Event::InlineHtml(t) | Event::Html(t) => {
                let mut out = TextBuf::default();
                h.html.feed(&t, &mut out);
                if !out.is_empty() {
                    both(h, &out.finish());
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                h.text.push(' ');
                // markdown-it leaves line breaks out of the slugged text; mdBook and GitHub
                // see a newline (mdBook turns it into '-', GitHub drops it).
                if style != SlugStyle::Vitepress && h.image_depth == 0 {
                    h.slug.push('\n');
                }
            }
            Event::Start(Tag::Image { .. }) => h.image_depth += 1,
            Event::End(TagEnd::Image) => h.image_depth = h.image_depth.saturating_sub(1),
            _ => {}
        }
    }

    fn finish_heading(&mut self) {
        let Some(h) = self.heading.take() else {
            return;
        };
        let line = self.lines.line_of(h.offset + self.base);
        let mut text = collapse_whitespace(&h.text);
        let mut slug_text = h.slug;
        if truncate_bytes(&mut text, MAX_HEADING_BYTES) {
            self.warn(
                line,
                format!("heading longer than {MAX_HEADING_BYTES} bytes: truncated"),
            );
        }
        truncate_bytes(&mut slug_text, MAX_HEADING_BYTES);
        if h.folded {
            self.folded += 1;
            self.first_folded_line.get_or_insert(line);
            let cur = self.current();
            let t = &mut self.nodes[cur].text;
            t.block_break();
            t.push(&text);
            t.block_break();
            return;
        }
        self.headings += 1;
        let anchor = match h.id.filter(|id| !id.is_empty()) {
            Some(id) => {
                if let Some(first) = self.anchors.explicit(&id, line) {
                    self.warn(
                        line,
                        format!(
                            "duplicate anchor #{id} (already used by the heading on line {first}): \
                             links to it go to the first one"
                        ),
                    );
                }
                id
            }
            None => self
                .anchors
                .generated(slugify(&slug_text, self.style), line),
        };
        let depth = h.level.clamp(1, 6);
        while let Some(&top) = self.stack.last() {
            if self.nodes[top].depth >= depth {
                self.stack.pop();
            } else {
                break;
            }
        }
        let parent = self.current();
        let p = &mut self.nodes[parent];
        p.child_counts[depth as usize] += 1;
        let number = p.child_counts[depth as usize];
        p.first_child_line.get_or_insert(line);
        let mut node = Node::new(depth, text, Some(parent), line);
        node.anchor = Some(anchor);
        node.section_number = number;
        self.nodes.push(node);
        self.stack.push(self.nodes.len() - 1);
    }

    fn body_event(&mut self, event: Event<'_>) {
        let cur = self.current();
        let node = &mut self.nodes[cur];
        match event {
            Event::Start(tag) => match tag {
                Tag::Paragraph
                | Tag::Item
                | Tag::BlockQuote(_)
                | Tag::FootnoteDefinition(_)
                | Tag::List(_)
                | Tag::Table(_)
                | Tag::TableHead
                | Tag::TableRow
                | Tag::DefinitionList
                | Tag::DefinitionListTitle
                | Tag::DefinitionListDefinition => node.text.block_break(),
                Tag::TableCell => node.text.space(),
                Tag::CodeBlock(_) => {
                    self.in_code = true;
                    node.code.start_block();
                }
                Tag::HtmlBlock => {
                    self.in_html_block = true;
                    node.text.block_break();
                }
                _ => {}
            },
            Event::End(tag) => match tag {
                TagEnd::CodeBlock => self.in_code = false,
                TagEnd::HtmlBlock => {
                    self.in_html_block = false;
                    // A malformed fragment must not swallow what follows.
                    self.html.reset();
                    node.text.block_break();
                }
                TagEnd::Paragraph
                | TagEnd::Item
                | TagEnd::BlockQuote(_)
                | TagEnd::FootnoteDefinition
                | TagEnd::TableHead
                | TagEnd::TableRow
                | TagEnd::DefinitionListTitle
                | TagEnd::DefinitionListDefinition => {
                    self.html.reset();
                    node.text.block_break();
                }
                _ => {}
            },
            Event::Text(t) => {
                if self.in_code {
                    node.code.push(&t);
                } else if self.in_html_block {
                    self.html.feed(&t, &mut node.text);
                } else if !self.html.in_raw() {
                    node.text.push(&t);
                }
            }
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                if !self.html.in_raw() {
                    node.text.push(&t);
                }
            }
            Event::Html(t) | Event::InlineHtml(t) => self.html.feed(&t, &mut node.text),
            Event::SoftBreak => node.text.soft_break(),
            Event::HardBreak | Event::Rule => node.text.hard_break(),
            Event::FootnoteReference(_) | Event::TaskListMarker(_) => {}
        }
    }
}

/// Line starts of the source, and for each line the last non-blank line at or before it.
pub(crate) struct Lines {
    starts: Vec<usize>,
    /// `last_nonblank[k]`: the last non-blank line ≤ k (0 if none); index 0 is line "0".
    last_nonblank: Vec<u32>,
}

impl Lines {
    pub(crate) fn new(source: &str) -> Self {
        let mut starts = Vec::new();
        let mut last_nonblank = vec![0u32];
        let mut offset = 0;
        for (i, line) in source.split_inclusive('\n').enumerate() {
            starts.push(offset);
            offset += line.len();
            let blank = line.trim_start_matches('\u{feff}').trim().is_empty();
            let prev = last_nonblank[i];
            last_nonblank.push(if blank { prev } else { to_u32(i + 1) });
        }
        Lines {
            starts,
            last_nonblank,
        }
    }

    /// Number of lines (0 for an empty file).
    pub(crate) fn count(&self) -> u32 {
        to_u32(self.starts.len())
    }

    /// 1-based line of a byte offset in the source.
    pub(crate) fn line_of(&self, offset: usize) -> u32 {
        to_u32(self.starts.partition_point(|&s| s <= offset).max(1))
    }

    /// The last non-blank line at or before `line` (0 if none).
    fn last_nonblank(&self, line: u32) -> u32 {
        let i = (line as usize).min(self.last_nonblank.len() - 1);
        self.last_nonblank[i]
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The file name without its extension.
fn file_stem(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    };
    if stem.is_empty() {
        path.to_string()
    } else {
        stem.to_string()
    }
}

/// Turns the collected nodes into the document (see [`crate::tree::assemble`]).
#[allow(clippy::too_many_arguments)]
fn assemble(
    path: &str,
    source: &str,
    opts: &Options,
    lines: &Lines,
    nodes: Vec<Node>,
    fm_title: Option<String>,
    hints: Hints,
    warnings: &mut Vec<Warning>,
) -> Document {
    let nodes = nodes
        .into_iter()
        .map(|n| TreeNode {
            depth: n.depth,
            heading: n.heading,
            anchor: n.anchor,
            parent: n.parent,
            start_line: n.start_line,
            section_number: n.section_number,
            first_child_line: n.first_child_line,
            text: n.text.finish(),
            code: n.code.finish(),
        })
        .collect();
    let tree = Tree {
        path,
        url: page_url(path, opts),
        source: source.to_string(),
        // Frontmatter title, else the first heading (see `tree::assemble`), else the stem.
        title: fm_title,
        fallback_title: file_stem(path),
        hints,
        last_line: lines.count(),
        max_section_tokens: opts.max_section_tokens,
    };
    crate::tree::assemble(tree, nodes, |l| lines.last_nonblank(l), warnings)
}
