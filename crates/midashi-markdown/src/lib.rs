//! Markdown in, Midashi sections out.
//!
//! [`parse_document`] turns one Markdown file (CommonMark + GFM tables, footnotes, task lists,
//! strikethrough, alerts; `{#id}` heading attributes; YAML or TOML frontmatter; VitePress
//! `::: tip` containers; inline HTML and Vue components) into a
//! [`midashi_core::section::Document`]: a tree of sections with stable ids, anchors that match
//! the site generator ([`SlugStyle`]), exact 1-based line ranges, own text and code, author
//! hints and token estimates. [`render_html`] renders the same file as a page body whose
//! heading ids are the anchors of the index, safe for hostile input.
//!
//! The crate does no I/O (the CLI walks folders and reads files) and builds for wasm32.

mod frontmatter;
mod html;
mod prepare;
mod render;
mod sections;
mod slug;
mod text;
pub mod tree;
mod url;

pub use prepare::body_of;
pub use render::render_html;
pub use sections::parse_document;
pub use slug::{slugify, ParseSlugStyleError, SlugStyle};
pub use text::token_estimate;
pub use url::{page_url, push_encoded};

/// Headings past this many in one file are folded into their parent's text (with a warning),
/// so that a pathological file cannot flood the index with sections.
pub const MAX_HEADINGS: usize = 10_000;

/// Heading text longer than this many bytes is truncated (with a warning).
pub const MAX_HEADING_BYTES: usize = 1024;

/// How a file is parsed: anchor style, URL prefix and the warning threshold for long sections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// How heading anchors are made, to match the site generator that serves the pages.
    pub slug: SlugStyle,
    /// URL prefix of the pages, e.g. `"/"` or `"/docs/"` (a missing trailing `/` is added).
    pub base_url: String,
    /// Sections estimated above this many tokens get a warning: the embedder will have to
    /// split them into windows.
    pub max_section_tokens: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            slug: SlugStyle::Github,
            base_url: "/".to_string(),
            max_section_tokens: 256,
        }
    }
}

/// The hints a document's path gives, for documents that are not Markdown (a built site's
/// HTML pages): its category (the first folder that is not a version) and its version (a
/// version-like first folder, `v2/…`).
pub fn path_hints(path: &str) -> midashi_core::section::Hints {
    frontmatter::hints(path, frontmatter::Meta::default())
}
