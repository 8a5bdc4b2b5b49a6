use super::*;
use midashi_markdown::{parse_document, Options};

fn doc(path: &str, source: &str) -> Document {
    parse_document(path, source, &Options::default()).0
}

fn site(limit: u64) -> SiteInfo {
    SiteInfo {
        title: "Widgets".into(),
        description: Some("How to  use widgets.".into()),
        base_url: "/docs/".into(),
        full_limit: limit,
    }
}

fn docs() -> Vec<Document> {
    vec![
        doc("guide/setup.md", "# Setup\n\nInstall it. Then run it.\n"),
        doc(
            "index.md",
            "---\ntitle: Widgets\ndescription: The home page.\n---\n\n# Widgets\n\nWelcome.\n",
        ),
        doc("guide/index.md", "# The guide\n\nRead this first.\n"),
        doc("api/[x].md", "Calls are made with `call()`. More text.\n"),
    ]
}

fn pages(docs: &[Document]) -> Vec<Page<'_>> {
    docs.iter()
        .map(|d| Page {
            doc: d,
            file: format!("{}.html", d.path.trim_end_matches(".md")),
        })
        .collect()
}

#[test]
fn llms_txt_follows_the_proposal_in_reading_order() {
    let docs = docs();
    let files = render(&pages(&docs), &site(1_000_000));
    assert_eq!(
        files.llms,
        "# Widgets\n\n> How to use widgets.\n\n\
         Made by Midashi from the site's pages: each link is a page's Markdown (the page's URL with `.md` appended); llms-full.txt has them all in this order.\n\n\
         ## Docs\n\n\
         - [Widgets](/docs/index.html.md): The home page.\n\
         \n## api\n\n\
         - [\\[x\\]](/docs/api/[x].html.md): Calls are made with call().\n\
         \n## The guide\n\n\
         - [The guide](/docs/guide/index.html.md): Read this first.\n\
         - [Setup](/docs/guide/setup.html.md): Install it.\n"
    );
    // Any input order gives the same bytes.
    let mut reversed = docs.clone();
    reversed.reverse();
    assert_eq!(render(&pages(&reversed), &site(1_000_000)), files);
}

#[test]
fn copies_are_the_markdown_without_frontmatter_with_a_title() {
    let docs = docs();
    let files = render(&pages(&docs), &site(1_000_000));
    let copy = |f: &str| {
        files
            .copies
            .iter()
            .find(|c| c.0 == f)
            .map(|c| c.1.as_str())
            .unwrap()
    };
    assert_eq!(copy("index.html.md"), "# Widgets\n\nWelcome.\n");
    // No H1 in the source: the title is added.
    assert_eq!(
        copy("api/[x].html.md"),
        "# [x]\n\nCalls are made with `call()`. More text.\n"
    );
    assert_eq!(files.copies.len(), 4);
}

#[test]
fn llms_full_holds_whole_pages_up_to_its_limit() {
    let docs = docs();
    let all = render(&pages(&docs), &site(1_000_000));
    assert_eq!(all.full_pages, 4);
    assert!(all.full.starts_with(
        "<!-- /docs/index.html -->\n\n# Widgets\n\nWelcome.\n\n---\n\n<!-- /docs/api/[x].html -->"
    ));
    assert!(!all.full.contains("did not fit"));
    let some = render(&pages(&docs), &site(120));
    assert!(some.full.len() < 120 + 120, "{}", some.full.len());
    assert!(some.full_pages < 4 && some.full_pages > 0);
    assert!(some.full.ends_with(&format!(
        "{} more pages did not fit in this file's size limit; llms.txt links each page's Markdown.\n",
        4 - some.full_pages
    )));
    // Pages are never cut: every page in the file is one of the copies, whole.
    let parts: Vec<&str> = some
        .full
        .split("\n---\n\n")
        .filter(|p| p.starts_with("<!-- "))
        .collect();
    assert_eq!(parts.len(), some.full_pages);
    for part in parts {
        let body = &part[part.find(" -->\n\n").unwrap() + 6..];
        assert!(all.copies.iter().any(|(_, md)| md == body), "{body:?}");
    }
}

#[test]
fn descriptions_are_one_short_line() {
    let long = format!("# T\n\n{}\n", "word ".repeat(100));
    let d = doc("t.md", &long);
    let line = describe(&d).unwrap();
    assert!(
        line.chars().count() <= DESCRIPTION_CHARS && line.ends_with('…'),
        "{line}"
    );
    assert_eq!(
        describe(&doc("j.md", "# 始め\n\n日本語の文です。次の文。\n")).as_deref(),
        Some("日本語の文です。")
    );
    assert_eq!(first_sentence("Use v1.2 now. Later"), "Use v1.2 now.");
}

#[test]
fn sizes_parse_with_units() {
    assert_eq!(parse_size("500KB"), Ok(500_000));
    assert_eq!(parse_size("10mb"), Ok(10_000_000));
    assert_eq!(parse_size("1234"), Ok(1234));
    assert!(parse_size("big").is_err());
}

#[test]
fn a_foreign_llms_txt_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("llms.txt"), "# Mine\n").unwrap();
    let docs = docs();
    let report = write(dir.path(), &pages(&docs), &site(1_000_000)).unwrap();
    assert!(report.kept.is_some());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("llms.txt")).unwrap(),
        "# Mine\n"
    );
    assert!(dir.path().join("guide/setup.html.md").is_file());
    // Ours is rewritten.
    std::fs::remove_file(dir.path().join("llms.txt")).unwrap();
    write(dir.path(), &pages(&docs), &site(1_000_000)).unwrap();
    let report = write(dir.path(), &pages(&docs), &site(1_000_000)).unwrap();
    assert!(report.kept.is_none());
    assert_eq!(report.full_pages, 4);
}
