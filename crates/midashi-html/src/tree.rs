//! Blocks in, the page's section tree and its Markdown-like text out.

use crate::blocks::{Block, Kind};
use crate::page::Page;
use crate::Options;
use midashi_core::section::{Document, Warning};
use midashi_markdown::tree::{self, Tree, TreeNode};
use std::collections::HashSet;

/// A node as the shared tree takes it, before its text and children are read.
fn node(depth: u8, heading: String, parent: Option<usize>, start_line: u32) -> TreeNode {
    TreeNode {
        depth,
        heading,
        anchor: None,
        parent,
        start_line,
        section_number: 1,
        first_child_line: None,
        text: String::new(),
        code: String::new(),
    }
}

/// Appends a block's text on a line of its own.
fn append(to: &mut String, text: String) {
    if !to.is_empty() {
        to.push('\n');
    }
    to.push_str(&text);
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
    let mut nodes = vec![node(0, String::new(), None, 1)];
    // Children seen so far at each depth, per node: their section numbers.
    let mut child_counts = vec![[0u32; 7]];
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
                child_counts[parent][usize::from(level)] += 1;
                let number = child_counts[parent][usize::from(level)];
                let p = &mut nodes[parent];
                p.first_child_line.get_or_insert(start);
                let mut heading = node(level, block.text.clone(), Some(parent), start);
                heading.section_number = number;
                heading.anchor = match id {
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
                nodes.push(heading);
                child_counts.push([0; 7]);
                stack.push(nodes.len() - 1);
            }
            Kind::Prose => append(&mut nodes[stack[stack.len() - 1]].text, block.text),
            Kind::Code => append(&mut nodes[stack[stack.len() - 1]].code, block.text),
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
    let lnb = |l: u32| last_nonblank[(l as usize).min(last_nonblank.len() - 1)];
    let mut doc = tree::assemble(page_tree, nodes, lnb, &mut warnings);
    doc.weight = page.weight;
    (doc, warnings)
}
