//! Blocks in, the page's section tree and its Markdown-like text out.

use crate::blocks::{Block, Kind};
use crate::page::Page;
use crate::Options;
use midashi_core::section::{Document, IdPaths, Section, SectionId, Warning};
use midashi_markdown::token_estimate;
use std::collections::HashSet;

/// One section while the page is read.
struct Node {
    depth: u8,
    heading: String,
    anchor: Option<String>,
    parent: Option<usize>,
    start_line: u32,
    section_number: u32,
    child_counts: [u32; 7],
    first_child_line: Option<u32>,
    text: Vec<String>,
    code: Vec<String>,
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
            text: Vec::new(),
            code: Vec::new(),
        }
    }
}

/// A link to a heading that has no id: a text fragment, which browsers scroll to and mark
/// without any script (`-`, `&` and `,` are the directive's own syntax, so they are encoded).
fn text_fragment(heading: &str) -> String {
    let mut out = String::from(":~:text=");
    for c in heading.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '-' | '&' | ',' | '#' | '%' | '"' | '<' | '>' | '?' | '`' => {
                out.push_str(&format!("%{:02X}", c as u32));
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn short(s: &str) -> String {
    let mut t: String = s.chars().take(60).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

/// Lays the blocks out as text and sections.
pub(crate) fn assemble(
    path: &str,
    url: &str,
    page: &Page<'_>,
    blocks: Vec<Block>,
    opts: &Options,
) -> (Document, Vec<Warning>) {
    let mut warnings = Vec::new();
    let warn = |line: u32, message: String| Warning {
        path: path.to_string(),
        line: Some(line),
        message,
    };
    // The text, block by block, with the line each block starts on.
    let mut source = String::new();
    let mut line = 1u32;
    let mut nonblank = vec![false];
    let mut nodes = vec![Node::new(0, String::new(), None, 1)];
    let mut stack: Vec<usize> = vec![0];
    let mut ids = HashSet::new();
    for (i, block) in blocks.into_iter().enumerate() {
        if i > 0 {
            source.push('\n');
            line += 1;
            nonblank.push(false);
            if !block.tight {
                source.push('\n');
                line += 1;
                nonblank.push(false);
            }
        }
        let start = line;
        for (j, l) in block.md.split('\n').enumerate() {
            if j > 0 {
                source.push('\n');
                line += 1;
                nonblank.push(false);
            }
            source.push_str(l);
            *nonblank.last_mut().unwrap_or(&mut false) = !l.trim().is_empty();
        }
        match block.kind {
            Kind::Heading { level, id } => {
                while stack.len() > 1 && nodes[stack[stack.len() - 1]].depth >= level {
                    stack.pop();
                }
                let parent = stack[stack.len() - 1];
                let p = &mut nodes[parent];
                p.child_counts[usize::from(level)] += 1;
                let number = p.child_counts[usize::from(level)];
                p.first_child_line.get_or_insert(start);
                let mut node = Node::new(level, block.text.clone(), Some(parent), start);
                node.section_number = number;
                node.anchor = match id {
                    Some(id) => {
                        if !ids.insert(id.clone()) {
                            warnings.push(warn(
                                start,
                                format!("two headings have the id \"{id}\": links reach the first"),
                            ));
                        }
                        Some(id)
                    }
                    None => {
                        warnings.push(warn(
                            start,
                            format!(
                                "heading \"{}\" has no id: results link to it with a text \
                                 fragment (#:~:text=…); give it an id to link to it exactly",
                                short(&block.text)
                            ),
                        ));
                        Some(text_fragment(&block.text))
                    }
                };
                nodes.push(node);
                stack.push(nodes.len() - 1);
            }
            Kind::Prose => nodes[stack[stack.len() - 1]].text.push(block.text),
            Kind::Code => nodes[stack[stack.len() - 1]].code.push(block.text),
        }
    }
    source.push('\n');
    let last_line = line;
    // The last non-blank line at or before each line.
    let mut last_nonblank = vec![0u32; nonblank.len() + 1];
    for (i, nb) in nonblank.iter().enumerate() {
        let l = i + 1;
        last_nonblank[l] = if *nb { l as u32 } else { last_nonblank[l - 1] };
    }
    let lnb = |l: u32| last_nonblank[(l as usize).min(last_nonblank.len() - 1)];

    let first_h1 = nodes.iter().position(|n| n.depth == 1);
    let first_heading = first_h1.or_else(|| nodes.iter().position(|n| n.depth >= 1));
    // As for Markdown: the first H1, else the first heading; `<title>` (which themes suffix
    // with the site's name) only for a page without headings.
    let title = first_heading
        .map(|i| nodes[i].heading.clone())
        .or_else(|| page.html_title.clone())
        .unwrap_or_else(|| path.to_string());
    let merged = first_heading.filter(|&i| nodes[i].heading == title);

    let n = nodes.len();
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
    let mut hints = page.hints.clone();
    hints.title = Some(title.clone());
    let mut sids: Vec<SectionId> = Vec::with_capacity(n);
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
        let (id_path, occurrence) = id_paths
            .next(node.parent, &node.heading)
            .unwrap_or_default();
        let id = SectionId::new(path, &id_path, occurrence);
        let start = node.start_line;
        let end = start.max(lnb(boundary[i]));
        let own_end = match node.first_child_line {
            Some(l) => start.max(lnb(l.saturating_sub(1))),
            None => end,
        }
        .min(end);
        let heading = if node.depth == 0 {
            title.clone()
        } else {
            node.heading
        };
        let text = node.text.join("\n");
        let code = node.code.join("\n");
        let tokens = token_estimate(&[&heading, &text, &code]);
        if tokens > opts.max_section_tokens {
            warnings.push(warn(
                start,
                format!(
                    "section \"{}\" is about {tokens} tokens (over {}): it will be embedded in \
                     several windows",
                    short(&heading),
                    opts.max_section_tokens
                ),
            ));
        }
        sections.push(Section {
            id,
            doc_path: path.to_string(),
            url: url.to_string(),
            anchor: node.anchor,
            heading,
            depth: node.depth,
            heading_path: crumb.clone(),
            parent: node.parent.map(|p| sids[p]),
            order: i as u32,
            section_number: node.section_number,
            start_line: start,
            end_line: end,
            own_end_line: own_end,
            text,
            code,
            hints: hints.clone(),
            token_estimate: tokens,
        });
        sids.push(id);
        crumbs.push(crumb);
    }
    let doc = Document {
        path: path.to_string(),
        url: url.to_string(),
        title,
        source,
        sections,
        weight: page.weight,
    };
    (doc, warnings)
}
