//! The section tree both sectioners end with (Markdown source and built HTML pages): from
//! the headings they read, with their lines, text and code, to the document's sections —
//! title, ids, breadcrumbs, extents, token estimates. One definition, so that a page gives
//! the same kind of tree whichever form it was read in.

use crate::text::token_estimate;
use midashi_core::section::{Document, Hints, IdPaths, Section, SectionId, Warning};

/// One heading (or the document's depth-0 node) as a sectioner read it.
#[derive(Debug, Clone)]
pub struct TreeNode {
    /// 0 for the document, 1–6 for headings.
    pub depth: u8,
    /// Heading text (empty for depth 0).
    pub heading: String,
    /// Where a link lands.
    pub anchor: Option<String>,
    /// Index of its parent node.
    pub parent: Option<usize>,
    /// First line (1-based) of the text the sections quote.
    pub start_line: u32,
    /// 1-based ordinal among its parent's children of the same depth.
    pub section_number: u32,
    /// First line of its first child, if any.
    pub first_child_line: Option<u32>,
    /// Own prose.
    pub text: String,
    /// Own code.
    pub code: String,
}

/// What the document is besides its nodes.
#[derive(Debug, Clone)]
pub struct Tree<'a> {
    /// Path under the docs root.
    pub path: &'a str,
    /// Page URL (no anchor).
    pub url: String,
    /// The text the sections' lines refer to.
    pub source: String,
    /// A title that wins over the headings (Markdown frontmatter).
    pub title: Option<String>,
    /// The title when there is no heading (a file stem, an HTML `<title>`).
    pub fallback_title: String,
    /// Hints copied to every section.
    pub hints: Hints,
    /// Lines of `source`.
    pub last_line: u32,
    /// Sections estimated above this many tokens get a warning.
    pub max_section_tokens: u32,
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A heading cut for a one-line message.
pub(crate) fn short(s: &str) -> String {
    let mut t: String = s.chars().take(60).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

/// Turns the nodes into the document: title, ids, breadcrumbs, lines, text.
/// `last_nonblank(l)` is the last non-blank line at or before line `l` (0 if none).
pub fn assemble(
    tree: Tree<'_>,
    nodes: Vec<TreeNode>,
    last_nonblank: impl Fn(u32) -> u32,
    warnings: &mut Vec<Warning>,
) -> Document {
    let path = tree.path;
    let first_h1 = nodes.iter().position(|n| n.depth == 1);
    // Frontmatter title, else the first H1, else the first heading of any level (mdBook
    // chapters that start at `##` read better titled by it than by their file stem).
    let first_heading = first_h1.or_else(|| nodes.iter().position(|n| n.depth >= 1));
    let title = tree
        .title
        .or_else(|| {
            first_heading
                .map(|i| nodes[i].heading.clone())
                .filter(|h| !h.is_empty())
        })
        .unwrap_or(tree.fallback_title);
    // The first H1 repeating the title is not repeated in breadcrumbs.
    let merged = first_heading.filter(|&i| nodes[i].heading == title);
    let url = tree.url;
    let hints = tree.hints;

    let n = nodes.len();
    // Section extents: a section runs until the next heading that is not its descendant.
    let last_line = tree.last_line;
    let mut boundary = vec![last_line; n];
    let mut open: Vec<usize> = Vec::new();
    for i in 0..n {
        let d = nodes[i].depth;
        while let Some(&j) = open.last() {
            if i > 0 && nodes[j].depth >= d {
                boundary[j] = nodes[i].start_line.saturating_sub(1);
                open.pop();
            } else {
                break;
            }
        }
        open.push(i);
    }

    let parents: Vec<Option<usize>> = nodes.iter().map(|n| n.parent).collect();
    let mut ids: Vec<SectionId> = Vec::with_capacity(n);
    let mut id_paths = IdPaths::new();
    let mut crumbs: Vec<Vec<String>> = Vec::with_capacity(n);
    let mut sections = Vec::with_capacity(n);
    for (i, node) in nodes.into_iter().enumerate() {
        let crumb = match node.parent {
            None => vec![title.clone()],
            Some(_) if Some(i) == merged => vec![title.clone()],
            Some(p) => {
                let mut c = crumbs[p].clone();
                c.push(node.heading.clone());
                c
            }
        };
        // Parents come before their children, so the walk always has the parent's path.
        let (id_path, occurrence) = id_paths
            .next(node.parent, &node.heading)
            .unwrap_or_default();
        let id = SectionId::new(path, &id_path, occurrence);

        let start = node.start_line;
        let end = start.max(last_nonblank(boundary[i]));
        let own_end = match node.first_child_line {
            Some(l) => start.max(last_nonblank(l.saturating_sub(1))),
            None => end,
        }
        .min(end);
        let heading = if node.depth == 0 {
            title.clone()
        } else {
            node.heading
        };
        let text = node.text;
        let code = node.code;
        let tokens = token_estimate(&[&heading, &text, &code]);
        if tokens > tree.max_section_tokens {
            warnings.push(Warning {
                path: path.to_string(),
                line: Some(start),
                message: format!(
                    "section \"{}\" is about {tokens} tokens (over {}): it will be embedded in \
                     several windows",
                    short(&heading),
                    tree.max_section_tokens
                ),
            });
        }
        sections.push(Section {
            id,
            doc_path: path.to_string(),
            url: url.clone(),
            anchor: node.anchor,
            heading,
            depth: node.depth,
            heading_path: crumb.clone(),
            parent: node.parent.map(|p| ids[p]),
            order: to_u32(i),
            section_number: node.section_number,
            start_line: start,
            end_line: end,
            own_end_line: own_end,
            text,
            code,
            hints: hints.clone(),
            token_estimate: tokens,
        });
        ids.push(id);
        crumbs.push(crumb);
    }
    // Two headings on one line (a lone CR ends a line for CommonMark but not for the LF line
    // numbers we quote) can leave a child ending after its parent closed: widen the parent,
    // so that ranges always nest.
    for i in (1..sections.len()).rev() {
        if let Some(p) = parents[i] {
            if sections[i].end_line > sections[p].end_line {
                sections[p].end_line = sections[i].end_line;
            }
        }
    }
    Document {
        path: path.to_string(),
        url,
        title,
        source: tree.source,
        sections,
        weight: 1.0,
    }
}
