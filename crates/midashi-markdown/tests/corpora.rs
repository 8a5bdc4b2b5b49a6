//! The sectioner against real documentation: every heading of every Markdown file in the
//! shared corpora (rust-book, vue-docs-en, vue-docs-ja, powershell-docs) must be found on the
//! line its section says it starts on, and real anchors must come out as the site has them.
//!
//! The corpora live beside the repository (`../shared/corpora`); when they are absent the
//! tests print a notice and pass.

use std::path::{Path, PathBuf};
use std::time::Instant;

use midashi_markdown::{parse_document, slugify, Options, SlugStyle};

fn corpora() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora");
    // A corpus test that passes by skipping checks nothing: fail instead.
    assert!(
        dir.is_dir(),
        "{} is missing: the corpus tests need ../shared beside the repository, as CI has it",
        dir.display()
    );
    Some(dir)
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "md") {
            out.push(p);
        }
    }
}

fn opts(style: SlugStyle) -> Options {
    Options {
        slug: style,
        ..Options::default()
    }
}

/// A source line with its inline markup taken off, the way a reader sees it: HTML tags,
/// link destinations, heading attributes, footnote references, escapes and entities.
fn visible(line: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let rest: String = chars[i..].iter().take(2).collect();
        if c == '\\' && chars.get(i + 1).is_some_and(|n| n.is_ascii_punctuation()) {
            out.push(chars[i + 1]);
            i += 1;
        } else if c == '`' {
            // A code span: its content is literal.
            let run = chars[i..].iter().take_while(|&&c| c == '`').count();
            let fence: String = "`".repeat(run);
            let after: String = chars[i + run..].iter().collect();
            match after.find(&fence) {
                Some(end) => {
                    out.push_str(&after[..end]);
                    i += run + after[..end].chars().count() + run - 1;
                }
                None => i += run - 1,
            }
        } else if c == '<'
            && chars
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '/')
        {
            // An HTML tag: skip to its end, quoted values included.
            let mut quote = None;
            while i < chars.len() {
                match (quote, chars[i]) {
                    (None, '"' | '\'') => quote = Some(chars[i]),
                    (Some(q), ch) if ch == q => quote = None,
                    (None, '>') => break,
                    _ => {}
                }
                i += 1;
            }
        } else if rest == "](" || rest == "[^" {
            // A link destination or a footnote reference: skip to the closing bracket.
            let close = if rest == "](" { ')' } else { ']' };
            while i < chars.len() && chars[i] != close {
                i += 1;
            }
        } else if c == '{' && chars[i..].contains(&'}') && chars.get(i + 1) == Some(&'#') {
            while i < chars.len() && chars[i] != '}' {
                i += 1;
            }
        } else if c == '&' {
            let word: String = chars[i + 1..]
                .iter()
                .take_while(|c| c.is_alphanumeric() || **c == '#')
                .collect();
            if chars.get(i + 1 + word.chars().count()) == Some(&';') {
                out.push(match word.as_str() {
                    "amp" => '&',
                    "lt" => '<',
                    "gt" => '>',
                    _ => ' ',
                });
                i += word.chars().count() + 1;
            } else {
                out.push(c);
            }
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// Letters and digits only, lowercased: what must match between heading and line.
fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

#[test]
fn every_heading_is_on_its_start_line() {
    let Some(root) = corpora() else {
        return;
    };
    let sets = [
        ("rust-book", SlugStyle::Mdbook),
        ("vue-docs-en", SlugStyle::Vitepress),
        ("vue-docs-ja", SlugStyle::Vitepress),
        ("powershell-docs", SlugStyle::Github),
    ];
    let mut failures = Vec::new();
    for (name, style) in sets {
        let dir = root.join(name);
        let mut files = Vec::new();
        markdown_files(&dir, &mut files);
        assert!(!files.is_empty(), "no Markdown under {}", dir.display());
        let (mut headings, mut parse_time) = (0usize, 0f64);
        for file in &files {
            let Ok(source) = std::fs::read_to_string(file) else {
                println!("NOTICE: {} is not UTF-8: skipped", file.display());
                continue;
            };
            let rel = file
                .strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let t = Instant::now();
            let (doc, _warnings) = parse_document(&rel, &source, &opts(style));
            parse_time += t.elapsed().as_secs_f64();
            let lines: Vec<&str> = source.lines().collect();
            assert_eq!(doc.sections[0].depth, 0);
            for s in doc.sections.iter().filter(|s| s.depth >= 1) {
                headings += 1;
                let line = lines.get(s.start_line as usize - 1).copied().unwrap_or("");
                let (h, l) = (norm(&s.heading), norm(&visible(line)));
                // A setext heading may wrap: its first line then starts the heading text.
                let ok = l.contains(&h) || (!l.is_empty() && h.starts_with(&l));
                if !ok {
                    failures.push(format!(
                        "{name}/{rel}:{}: heading {:?} not on line {:?}",
                        s.start_line, s.heading, line
                    ));
                }
                assert!(s.start_line <= s.own_end_line && s.own_end_line <= s.end_line);
                assert!(s.end_line as usize <= lines.len().max(1));
                assert!(s.anchor.is_some());
            }
        }
        println!(
            "{name}: {} files, {headings} headings, parsed in {:.2} s",
            files.len(),
            parse_time
        );
    }
    assert!(
        failures.is_empty(),
        "{} headings not found on their start line:\n{}",
        failures.len(),
        failures
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn read(root: &Path, rel: &str) -> Option<String> {
    let text = std::fs::read_to_string(root.join(rel)).ok();
    if text.is_none() {
        println!("NOTICE: {rel} missing: skipped");
    }
    text
}

#[test]
fn vue_ja_explicit_anchors_are_kept() {
    let Some(root) = corpora() else {
        return;
    };
    let rel = "guide/essentials/computed.md";
    let Some(source) = read(&root, &format!("vue-docs-ja/{rel}")) else {
        return;
    };
    let (doc, _) = parse_document(rel, &source, &opts(SlugStyle::Vitepress));
    let find = |anchor: &str| {
        doc.sections
            .iter()
            .find(|s| s.anchor.as_deref() == Some(anchor))
            .unwrap_or_else(|| panic!("no section with anchor #{anchor}"))
    };
    assert_eq!(doc.title, "算出プロパティ");
    assert_eq!(doc.url, "/guide/essentials/computed.html");
    let top = find("computed-properties");
    assert_eq!((top.depth, top.start_line), (1, 1));
    assert_eq!(top.heading_path, ["算出プロパティ"]);
    let basic = find("basic-example");
    assert_eq!(
        (basic.heading.as_str(), basic.start_line),
        ("基本的な例", 11)
    );
    assert_eq!(basic.heading_path, ["算出プロパティ", "基本的な例"]);
    assert_eq!(basic.parent, Some(top.id));
    assert!(basic
        .text
        .contains("テンプレート内に式を書けるのはとても便利ですが"));
    assert!(basic.code.contains("'Vue 3 - Basic Guide'"));
    assert_eq!(
        find("computed-caching-vs-methods").heading,
        "算出プロパティ vs. メソッド"
    );
    assert_eq!(find("writable-computed").heading, "書き込み可能な 算出関数");
    let getters = find("getters-should-be-side-effect-free");
    assert_eq!(getters.depth, 3);
    assert_eq!(getters.parent, Some(find("best-practices").id));

    // The same page in English has the same anchors: the translation keeps the ids.
    if let Some(en) = read(&root, &format!("vue-docs-en/{rel}")) {
        let (en_doc, _) = parse_document(rel, &en, &opts(SlugStyle::Vitepress));
        let ja: Vec<_> = doc
            .sections
            .iter()
            .filter_map(|s| s.anchor.clone())
            .collect();
        let en: Vec<_> = en_doc
            .sections
            .iter()
            .filter_map(|s| s.anchor.clone())
            .collect();
        assert_eq!(ja, en);
    }
}

#[test]
fn vue_ja_headings_without_ids_get_valid_slugs() {
    let Some(root) = corpora() else {
        return;
    };
    let rel = "guide/essentials/computed.md";
    let Some(source) = read(&root, &format!("vue-docs-ja/{rel}")) else {
        return;
    };
    // Take the explicit ids off the real headings.
    let stripped: String = source
        .lines()
        .map(|l| match (l.starts_with('#'), l.rfind(" {#")) {
            (true, Some(i)) => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    for style in [SlugStyle::Github, SlugStyle::Vitepress, SlugStyle::Mdbook] {
        let (doc, _) = parse_document(rel, &stripped, &opts(style));
        let anchors: Vec<String> = doc
            .sections
            .iter()
            .filter_map(|s| s.anchor.clone())
            .collect();
        assert!(anchors.len() >= 8, "{style}: {anchors:?}");
        let unique: std::collections::HashSet<_> = anchors.iter().collect();
        assert_eq!(unique.len(), anchors.len(), "{style}: {anchors:?}");
        for (s, a) in doc.sections.iter().skip(1).zip(&anchors) {
            assert!(!a.is_empty(), "{style}: empty anchor for {:?}", s.heading);
            assert!(!a.contains(char::is_whitespace), "{style}: {a:?}");
            assert_eq!(a, &slugify(&s.heading, style), "{style}: first occurrences");
        }
    }
    let (doc, _) = parse_document(rel, &stripped, &opts(SlugStyle::Github));
    let a: Vec<_> = doc
        .sections
        .iter()
        .filter_map(|s| s.anchor.as_deref())
        .collect();
    assert!(a.contains(&"基本的な例"), "{a:?}");
    assert!(a.contains(&"算出プロパティ-vs-メソッド"), "{a:?}");
    let (doc, _) = parse_document(rel, &stripped, &opts(SlugStyle::Vitepress));
    let a: Vec<_> = doc
        .sections
        .iter()
        .filter_map(|s| s.anchor.as_deref())
        .collect();
    assert!(a.contains(&"基本的な例"), "{a:?}");
    assert!(
        a.contains(&"算出フ\u{309a}ロハ\u{309a}ティ-vs-メソット\u{3099}"),
        "{a:?}"
    );
}

#[test]
fn rust_book_and_powershell_pages() {
    let Some(root) = corpora() else {
        return;
    };
    if let Some(src) = read(&root, "rust-book/ch06-00-enums.md") {
        let (doc, _) = parse_document("ch06-00-enums.md", &src, &opts(SlugStyle::Mdbook));
        assert_eq!(doc.title, "Enums and Pattern Matching");
        let h1 = &doc.sections[1];
        assert_eq!((h1.depth, h1.start_line), (1, 1));
        assert_eq!(h1.heading_path, std::slice::from_ref(&doc.title));
        assert_eq!(h1.anchor.as_deref(), Some("enums-and-pattern-matching"));
        assert!(
            h1.text.contains("enumerations, also referred to as enums"),
            "{}",
            h1.text
        );
    }
    if let Some(src) = read(&root, "rust-book/ch06-02-match.md") {
        // No H1: the first heading titles the page and is not repeated in breadcrumbs.
        let (doc, _) = parse_document("ch06-02-match.md", &src, &opts(SlugStyle::Mdbook));
        assert_eq!(doc.url, "/ch06-02-match.html");
        assert_eq!(doc.title, "The match Control Flow Construct");
        let h2 = &doc.sections[1];
        assert_eq!((h2.depth, h2.start_line), (2, 5));
        assert_eq!(h2.heading, "The match Control Flow Construct");
        assert_eq!(h2.heading_path, ["The match Control Flow Construct"]);
        assert_eq!(
            h2.anchor.as_deref(),
            Some("the-match-control-flow-construct")
        );
        // The old-anchor HTML before it is markup only: no text.
        assert_eq!(doc.sections[0].text, "");
    }
    let rel = "7.4/Microsoft.PowerShell.Core/About/about_If.md";
    if let Some(src) = read(&root, &format!("powershell-docs/{rel}")) {
        let (doc, warnings) = parse_document(rel, &src, &opts(SlugStyle::Github));
        assert!(
            warnings.iter().all(|w| !w.message.contains("frontmatter")),
            "{warnings:?}"
        );
        let hints = &doc.sections[0].hints;
        assert_eq!(hints.version.as_deref(), Some("7.4"));
        assert_eq!(hints.lang.as_deref(), Some("en-US"));
        assert!(hints.description.is_some());
        assert_eq!(doc.title, "about_If");
        let short = doc
            .sections
            .iter()
            .find(|s| s.heading == "Short description")
            .unwrap();
        assert_eq!(short.anchor.as_deref(), Some("short-description"));
        assert_eq!(short.heading_path, ["about_If", "Short description"]);
        assert!(doc.sections.iter().all(|s| s.hints == *hints));
    }
}
