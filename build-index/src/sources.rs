//! Where documents come from: a folder of Markdown or a built site's HTML pages (walked,
//! filtered, parsed in parallel), or a JSONL file of records. File-system work lives here;
//! Markdown is parsed by `midashi-markdown`, HTML by `midashi-html`.

use crate::error::{CliError, Result};
use globset::{Glob, GlobSet, GlobSetBuilder};
use midashi_core::section::{Document, Hints, Section, SectionId, Warning};
use midashi_markdown::{parse_document, Options};
use rayon::prelude::*;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// Files larger than this are skipped with a warning: no documentation page is this big,
/// and one pathological file must not exhaust memory.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Documents and the warnings collected while reading them.
#[derive(Debug, Default)]
pub struct Loaded {
    /// Parsed documents, in path order.
    pub docs: Vec<Document>,
    /// Problems worth telling, with file:line.
    pub warnings: Vec<Warning>,
    /// Files not indexed, and why (a page control, a redirect, a symbolic link).
    pub skipped: Vec<(String, String)>,
}

/// What kind of documents a folder holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputKind {
    /// Decide from the files: a built site's `*.html`, else Markdown.
    Auto,
    /// Markdown source (`*.md`, `*.markdown`).
    Markdown,
    /// A built site's pages (`*.html`): what the generator rendered.
    Html,
    /// A `.jsonl` file of records.
    Jsonl,
}

impl InputKind {
    /// The file names this kind reads by default.
    fn matches(self, rel: &str) -> bool {
        let lower = rel.to_ascii_lowercase();
        match self {
            InputKind::Html => lower.ends_with(".html") || lower.ends_with(".htm"),
            // `page.html.md` is a built page's Markdown copy (crate::llms), not a source.
            _ => {
                (lower.ends_with(".md")
                    && !lower.ends_with(".html.md")
                    && !lower.ends_with(".htm.md"))
                    || lower.ends_with(".markdown")
            }
        }
    }

    /// `Auto` made definite for the folder at `root`: HTML when it has more HTML pages than
    /// Markdown files (a generator's output folder), else Markdown.
    pub fn detect(self, root: &Path) -> InputKind {
        if self != InputKind::Auto {
            return self;
        }
        let (mut html, mut md) = (0usize, 0usize);
        for e in walker(root).filter_map(|e| e.ok()) {
            let name = e.file_name().to_string_lossy();
            if InputKind::Html.matches(&name) {
                html += 1;
            } else if InputKind::Markdown.matches(&name) {
                md += 1;
            }
        }
        if html > md {
            InputKind::Html
        } else {
            InputKind::Markdown
        }
    }
}

fn walker(root: &Path) -> impl Iterator<Item = walkdir::Result<walkdir::DirEntry>> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0 || !(name.starts_with('.') || name == "node_modules")
        })
}

fn glob_set(patterns: &[String]) -> Result<Option<GlobSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(Glob::new(p).map_err(|e| CliError::Usage(format!("bad glob {p:?}: {e}")))?);
    }
    b.build()
        .map(Some)
        .map_err(|e| CliError::Usage(e.to_string()))
}

/// The files of `kind` under `root` (relative paths with `/`), sorted, and the symbolic
/// links that were not followed (a link may point outside the folder).
pub fn input_files(
    root: &Path,
    kind: InputKind,
    include: &[String],
    exclude: &[String],
) -> Result<(Vec<String>, Vec<String>)> {
    let include = glob_set(include)?;
    let exclude = glob_set(exclude)?;
    let mut out = Vec::new();
    let mut links = Vec::new();
    for entry in walker(root) {
        let entry = entry.map_err(|e| CliError::Io {
            path: e
                .path()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| root.to_path_buf()),
            source: e
                .into_io_error()
                .unwrap_or_else(|| std::io::Error::other("walk failed")),
        })?;
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap_or(entry.path())
            .to_string_lossy()
            .replace('\\', "/");
        if entry.path_is_symlink() {
            if kind.matches(&rel) {
                links.push(rel);
            }
            continue;
        }
        if !entry.file_type().is_file() {
            continue;
        }
        let included = match &include {
            Some(set) => set.is_match(&rel),
            None => kind.matches(&rel),
        };
        let excluded = exclude.as_ref().is_some_and(|set| set.is_match(&rel));
        if included && !excluded {
            out.push(rel);
        }
    }
    out.sort();
    Ok((out, links))
}

/// Reads one file as text: invalid UTF-8 is replaced (with a warning); binary, oversized and
/// unreadable files are skipped (with a warning): one bad file must not stop a whole site's
/// build.
fn read_text(root: &Path, rel: &str) -> Result<(String, Option<Warning>), Warning> {
    let path = root.join(rel);
    let warn = |message: String| Warning {
        path: rel.to_string(),
        line: None,
        message,
    };
    let unreadable = |e: std::io::Error| warn(format!("skipped: cannot read it ({e})"));
    let meta = fs::metadata(&path).map_err(unreadable)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(warn(format!(
            "skipped: {} MB is over the {} MB limit for one file",
            meta.len() / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        )));
    }
    let bytes = fs::read(&path).map_err(unreadable)?;
    // The size may have changed since the check (a file being written): check again.
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(warn(format!(
            "skipped: over the {} MB limit for one file",
            MAX_FILE_BYTES / (1024 * 1024)
        )));
    }
    if bytes.contains(&0) {
        return Err(warn("skipped: binary file (contains NUL bytes)".into()));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => (s, None),
        Err(e) => (
            String::from_utf8_lossy(e.as_bytes()).into_owned(),
            Some(warn("invalid UTF-8 replaced with U+FFFD".into())),
        ),
    })
}

/// One file, parsed: a document and its warnings, or why it is left out.
pub enum Parsed {
    /// A document to index.
    Doc(Document, Vec<Warning>),
    /// Not indexed, and why.
    Skipped(String),
}

/// Reads and parses every Markdown file under `root`, in parallel, with a progress bar.
pub fn load_markdown(root: &Path, files: &[String], opts: &Options, progress: bool) -> Loaded {
    load_with(root, files, progress, |rel, text| {
        let (doc, warnings) = parse_document(rel, text, opts);
        if doc.sections.is_empty() {
            Parsed::Skipped("`search: false` in its frontmatter".into())
        } else {
            Parsed::Doc(doc, warnings)
        }
    })
}

/// Reads and parses every HTML page under `root` (a built site), in parallel.
pub fn load_html(
    root: &Path,
    files: &[String],
    opts: &midashi_html::Options,
    progress: bool,
) -> Loaded {
    load_with(
        root,
        files,
        progress,
        |rel, text| match midashi_html::parse_page(rel, text, opts) {
            midashi_html::Outcome::Page(doc, warnings) => Parsed::Doc(doc, warnings),
            midashi_html::Outcome::Skipped(why) => Parsed::Skipped(why),
        },
    )
}

fn load_with(
    root: &Path,
    files: &[String],
    progress: bool,
    parse: impl Fn(&str, &str) -> Parsed + Sync,
) -> Loaded {
    let template = "{spinner} parsing {bar:30} {pos}/{len} files {msg}";
    let bar = crate::progress::bar(progress, files.len(), template);
    let parsed: Vec<(&String, Result<Document, String>, Vec<Warning>)> = files
        .par_iter()
        .map(|rel| {
            let out = match read_text(root, rel) {
                Err(w) => (rel, Err(String::new()), vec![w]),
                Ok((text, w)) => match parse(rel, &text) {
                    Parsed::Doc(doc, mut warnings) => {
                        warnings.extend(w);
                        (rel, Ok(doc), warnings)
                    }
                    Parsed::Skipped(why) => (rel, Err(why), Vec::new()),
                },
            };
            bar.inc(1);
            out
        })
        .collect();
    bar.finish_and_clear();
    let mut loaded = Loaded::default();
    for (rel, doc, warnings) in parsed {
        match doc {
            Ok(doc) => loaded.docs.push(doc),
            // An unreadable file is already a warning.
            Err(why) if why.is_empty() => {}
            Err(why) => loaded.skipped.push((rel.clone(), why)),
        }
        loaded.warnings.extend(warnings);
    }
    loaded
}

#[derive(serde::Deserialize)]
struct Record {
    #[serde(rename = "_id")]
    id: serde_json::Value,
    #[serde(default)]
    title: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    url: Option<String>,
}

/// One record as a one-section document. Its source is the title line, a blank line and the
/// text, so previews and line numbers work as for Markdown.
pub fn record_document(id: &str, title: &str, text: &str, url: Option<&str>) -> Document {
    let source = if title.is_empty() {
        text.to_string()
    } else {
        format!("{title}\n\n{text}")
    };
    let lines = source.lines().count().max(1) as u32;
    let heading = if title.is_empty() {
        id.to_string()
    } else {
        title.to_string()
    };
    let section = Section {
        id: SectionId::new(id, &[], 0),
        doc_path: id.to_string(),
        url: url.unwrap_or_default().to_string(),
        anchor: None,
        heading: heading.clone(),
        depth: 0,
        heading_path: vec![heading.clone()],
        parent: None,
        order: 0,
        section_number: 1,
        start_line: 1,
        end_line: lines,
        own_end_line: lines,
        text: text.to_string(),
        code: String::new(),
        hints: Hints::default(),
        token_estimate: (source.chars().count() / 4) as u32,
    };
    Document {
        path: id.to_string(),
        url: url.unwrap_or_default().to_string(),
        title: heading,
        source,
        sections: vec![section],
        weight: 1.0,
    }
}

/// Reads a JSONL file of records (`_id`, `title`, `text`, optional `url`).
pub fn load_records(path: &Path) -> Result<Loaded> {
    let file = fs::File::open(path).map_err(CliError::io(path))?;
    let mut loaded = Loaded::default();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(CliError::io(path))?;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |detail: String| CliError::BadRecord {
            path: PathBuf::from(path),
            line: i + 1,
            detail,
        };
        let r: Record = serde_json::from_str(&line).map_err(|e| bad(e.to_string()))?;
        let id = match r.id {
            serde_json::Value::String(s) => s,
            serde_json::Value::Number(n) => n.to_string(),
            other => return Err(bad(format!("_id must be a string or number, not {other}"))),
        };
        loaded
            .docs
            .push(record_document(&id, &r.title, &r.text, r.url.as_deref()));
    }
    Ok(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_binary_and_oversized_files_are_skipped_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("good.md"), "# Good\n\ntext\n").unwrap();
        fs::write(dir.path().join("nul.md"), b"# A\0B\n").unwrap();
        fs::File::create(dir.path().join("big.md"))
            .unwrap()
            .set_len(MAX_FILE_BYTES + 1)
            .unwrap();
        // Listed, then gone before it is read (or unreadable): a warning, not a failed build.
        let files: Vec<String> = ["big.md", "gone.md", "good.md", "nul.md"]
            .map(String::from)
            .to_vec();
        let loaded = load_markdown(dir.path(), &files, &Options::default(), false);
        assert_eq!(loaded.docs.len(), 1);
        assert_eq!(loaded.docs[0].path, "good.md");
        let said = |path: &str, what: &str| {
            loaded
                .warnings
                .iter()
                .any(|w| w.path == path && w.message.contains(what))
        };
        assert!(said("gone.md", "cannot read"), "{:?}", loaded.warnings);
        assert!(said("nul.md", "binary"), "{:?}", loaded.warnings);
        assert!(
            said("big.md", "over the 16 MB limit"),
            "{:?}",
            loaded.warnings
        );
    }
}
