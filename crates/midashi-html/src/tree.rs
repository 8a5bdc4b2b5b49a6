//! Blocks in, the page's section tree and its Markdown-like text out.

use crate::blocks::{Block, Kind};
use crate::page::Page;
use crate::Options;
use midashi_core::section::{Document, Warning};
use midashi_markdown::tree::{self, Tree, TreeNode};
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
    let page_tree = Tree {
        path,
        url: url.to_string(),
        source,
        // The first heading, as for Markdown; `<title>` (which themes suffix with the site's
        // name) only for a page without headings.
        title: None,
        fallback_title: page.html_title.clone().unwrap_or_else(|| path.to_string()),
        hints: page.hints.clone(),
        last_line,
        max_section_tokens: opts.max_section_tokens,
    };
    let nodes: Vec<TreeNode> = nodes
        .into_iter()
        .map(|n| TreeNode {
            depth: n.depth,
            heading: n.heading,
            anchor: n.anchor,
            parent: n.parent,
            start_line: n.start_line,
            section_number: n.section_number,
            first_child_line: n.first_child_line,
            text: n.text.join("\n"),
            code: n.code.join("\n"),
        })
        .collect();
    let lnb = |l: u32| last_nonblank[(l as usize).min(last_nonblank.len() - 1)];
    let mut doc = tree::assemble(page_tree, nodes, lnb, &mut warnings);
    doc.weight = page.weight;
    (doc, warnings)
}
