//! The answers of the MCP tools on a small in-memory site: the quoted format, summaries, token
//! counts and the budget, sections by id and anchor, listings, and errors. (The protocol itself
//! is tested end to end by tests/node/mcp.test.mjs with the official TypeScript client.)

use super::library::{Library, ToolError};
use super::params::{GetDocumentParams, ListDocumentsParams, SearchParams};
use midashi_core::answer::quote::{quote_section, quote_with, Extras};
use midashi_core::build::{IndexBuilder, IndexSettings, Layout};
use midashi_core::format::FileKind;
use midashi_core::SearchIndex;
use midashi_markdown::{parse_document, token_estimate, Options};

const SITE: &[(&str, &str)] = &[
    (
        "guide/pagination.md",
        "---\ndescription: Split long result lists into pages.\n---\n\n# Pagination\n\nLong lists are split into pages.\n\n## Limit and offset\n\nUse limit and offset for paging.\nline two\nline three\nline four\nline five\nline six\nline seven\n\n### Cursor paging\n\nA cursor remembers where the last page ended, for paging through live data.\n",
    ),
    (
        "guide/forms.md",
        "# Forms\n\nA form collects input.\n\n## Validation\n\nValidate each field before paging on.\n",
    ),
    (
        "ja/paging.md",
        "# ページング\n\n長い検索結果はページに分割されます。\n\n## 件数とオフセット\n\n`limit` でページの大きさを決めます。\n",
    ),
];

/// An in-memory single-file index of `SITE` (the server reads a sharded folder from disk the
/// same way; tests/cli/commands.rs runs it on a default, sharded, build).
fn library() -> Library {
    let mut b = IndexBuilder::new(IndexSettings {
        layout: Layout::Single,
        ..IndexSettings::default()
    });
    for (path, src) in SITE {
        b.add(parse_document(path, src, &Options::default()).0);
    }
    let out = b.build().unwrap();
    let file = |k: FileKind| {
        let name = &out.manifest.file(k).unwrap().name;
        out.files.iter().find(|(n, _)| n == name).unwrap().1.clone()
    };
    let index = SearchIndex::from_manifest(
        out.manifest.clone(),
        &file(FileKind::Terms),
        &file(FileKind::Sections),
    )
    .unwrap();
    Library::from_index(index)
}

fn query(query: &str) -> SearchParams {
    SearchParams {
        query: query.into(),
        ..SearchParams::default()
    }
}

fn results(json: &serde_json::Value) -> &Vec<serde_json::Value> {
    json["results"].as_array().unwrap()
}

#[test]
fn results_are_quoted_as_the_cli_quotes_them_with_section_sizes() {
    let lib = library();
    let answer = lib.search(&query("paging")).unwrap();
    let hits = results(&answer.json);
    assert!(!hits.is_empty());
    // Each result's block is the shared quote with the section's size, in rank order.
    let mut at = 0;
    for (i, h) in hits.iter().enumerate() {
        let hit: midashi_core::SearchHit = serde_json::from_value(h.clone()).unwrap();
        let section_tokens = h["section_tokens"].as_u64().unwrap() as usize;
        let block = quote_with(
            i + 1,
            &hit,
            Extras {
                summary: None,
                section_tokens: Some(section_tokens),
                excerpt: true,
            },
        );
        // The summary line (if any) sits between the metadata line and the fence.
        let head = block.split_once("```").unwrap().0;
        let found = answer.text[at..]
            .find(head)
            .unwrap_or_else(|| panic!("result {} not quoted in order:\n{}", i + 1, answer.text));
        at += found + head.len();
        assert!(answer.text.contains(&format!("id: {}\n", hit.id)));
        // Without a model the size is the index's estimate of what get_document returns.
        let view = lib
            .get_document(&GetDocumentParams {
                path: hit.path.clone(),
                section_id: Some(hit.id.clone()),
            })
            .unwrap();
        assert_eq!(
            section_tokens,
            token_estimate(&[&view.text]) as usize,
            "{}",
            hit.id
        );
    }
    assert!(answer
        .text
        .contains("Each preview is only the first 5 lines of its section"));
    assert!(answer.text.contains("get_document"));
    assert_eq!(answer.json["token_counter"], "estimate");
}

#[test]
fn a_long_section_says_how_many_lines_are_left_and_preview_lines_is_honoured() {
    let lib = library();
    let mut p = query("limit offset");
    p.preview_lines = Some(3);
    let answer = lib.search(&p).unwrap();
    let first = &results(&answer.json)[0];
    assert_eq!(first["heading"], "Limit and offset");
    assert_eq!(
        first["preview"].as_str().unwrap(),
        "## Limit and offset\n\nUse limit and offset for paging."
    );
    let more = first["more_lines"].as_u64().unwrap();
    assert!(more > 0);
    assert!(answer.text.contains(&format!("… ({more} more lines)")));
    assert!(answer.text.contains("only the first 3 lines"));
}

#[test]
fn the_summary_comes_before_the_preview_once_per_document() {
    let lib = library();
    let answer = lib.search(&query("paging pages")).unwrap();
    let summary = "Summary: Split long result lists into pages.\n";
    assert_eq!(answer.text.matches(summary).count(), 1, "{}", answer.text);
    // Right after the first pagination result's metadata line, before its fence.
    let at = answer.text.find(summary).unwrap();
    let before = &answer.text[..at];
    let last_line = before.lines().last().unwrap();
    assert!(last_line.starts_with("Level: "), "{last_line}");
    assert!(answer.text[at + summary.len()..].starts_with("```markdown\n"));
    let first_pagination = before.rfind("guide/pagination.md >").unwrap();
    assert!(!answer.text[..first_pagination].contains("guide/pagination.md >"));
}

#[test]
fn results_stop_before_the_budget_would_be_exceeded() {
    let lib = library();
    let all = lib.search(&query("paging")).unwrap();
    let tokens: Vec<usize> = results(&all.json)
        .iter()
        .map(|h| h["tokens"].as_u64().unwrap() as usize)
        .collect();
    assert!(tokens.len() >= 2, "{tokens:?}");
    // Each result's count is of its block as returned.
    assert_eq!(
        tokens.iter().sum::<usize>(),
        all.json["tokens"].as_u64().unwrap() as usize
    );

    // A budget that fits exactly the first result, and one token short of the second.
    for budget in [tokens[0], tokens[0] + tokens[1] - 1] {
        let mut p = query("paging");
        p.token_budget = Some(budget);
        let capped = lib.search(&p).unwrap();
        assert_eq!(results(&capped.json).len(), 1, "budget {budget}");
        assert_eq!(capped.json["tokens"], tokens[0]);
        assert_eq!(capped.json["left_out"], tokens.len() - 1);
        assert!(capped.text.contains(&format!("{budget}-token budget")));
        assert!(capped
            .text
            .contains("more results did not fit in the token budget"));
        assert!(capped.text.contains("\n1. ") && !capped.text.contains("\n2. "));
    }
    // Both fit.
    let mut p = query("paging");
    p.token_budget = Some(tokens[0] + tokens[1]);
    assert_eq!(results(&lib.search(&p).unwrap().json).len(), 2);

    // Less than the first result: nothing, and the answer says why.
    p.token_budget = Some(tokens[0] - 1);
    let none = lib.search(&p).unwrap();
    assert!(results(&none.json).is_empty());
    assert!(none.text.contains(&format!(
        "The first result alone needs {} tokens",
        tokens[0]
    )));
}

#[test]
fn japanese_queries_find_japanese_sections() {
    let lib = library();
    let answer = lib.search(&query("ページ")).unwrap();
    let first = &results(&answer.json)[0];
    assert_eq!(first["path"], "ja/paging.md");
    assert!(answer.text.contains("ja/paging.md > ページング"));
    // CJK text is counted one token per character by the estimate.
    assert!(first["section_tokens"].as_u64().unwrap() >= 20);
}

#[test]
fn filters_by_path_and_depth() {
    let lib = library();
    let mut p = query("paging");
    p.path = Some("/guide/".into());
    p.depth = Some(vec![2, 3]);
    let answer = lib.search(&p).unwrap();
    let hits = results(&answer.json);
    assert!(!hits.is_empty());
    for h in hits {
        assert!(h["path"].as_str().unwrap().starts_with("guide/"));
        assert!([2, 3].contains(&h["depth"].as_u64().unwrap()));
    }
}

#[test]
fn a_section_by_id_or_anchor_is_the_whole_section() {
    let lib = library();
    let answer = lib.search(&query("limit offset")).unwrap();
    let first = &results(&answer.json)[0];
    let id = first["id"].as_str().unwrap().to_string();
    let by_id = lib
        .get_document(&GetDocumentParams {
            path: "guide/pagination.md".into(),
            section_id: Some(id.clone()),
        })
        .unwrap();
    assert!(by_id.text.contains("line seven"));
    assert!(
        by_id.text.contains("### Cursor paging"),
        "subsections are included"
    );
    assert!(by_id.text.ends_with(&format!("id: {id}\n")));
    assert_eq!(by_id.json["id"], id.as_str());
    assert_eq!(
        by_id.json["tokens"].as_u64().unwrap(),
        token_estimate(&[&by_id.text]) as u64
    );
    let by_anchor = lib
        .get_document(&GetDocumentParams {
            path: "guide/pagination.md".into(),
            section_id: Some("#limit-and-offset".into()),
        })
        .unwrap();
    assert_eq!(by_anchor.text, by_id.text);
    let view: midashi_core::answer::SectionView =
        serde_json::from_value(by_id.json.clone()).unwrap();
    assert_eq!(by_id.text, quote_section(&view));
}

#[test]
fn a_whole_document_is_its_source() {
    let lib = library();
    let doc = lib
        .get_document(&GetDocumentParams {
            path: "guide/forms.md".into(),
            section_id: None,
        })
        .unwrap();
    assert!(doc.text.starts_with("guide/forms.md — Forms\n"));
    assert!(doc.text.contains("Validate each field before paging on."));
    assert_eq!(doc.json["sections"].as_array().unwrap().len(), 3);
}

#[test]
fn unknown_paths_and_ids_are_errors_that_say_what_to_pass() {
    let lib = library();
    let err = |p: GetDocumentParams| lib.get_document(&p).unwrap_err();
    let e = err(GetDocumentParams {
        path: "guide/nope.md".into(),
        section_id: None,
    });
    assert!(matches!(e, ToolError::NoDocument(_)));
    assert!(e.to_string().contains("list_documents"));
    let e = err(GetDocumentParams {
        path: "guide/forms.md".into(),
        section_id: Some("0123456789abcdef".into()),
    });
    assert!(matches!(e, ToolError::NoSection { .. }), "{e}");
    assert!(e.to_string().contains("id:"));
    let e = err(GetDocumentParams {
        path: "guide/forms.md".into(),
        section_id: Some("no-such-anchor".into()),
    });
    assert!(matches!(e, ToolError::NoSection { .. }));
    // A real id of another document: the error names the right path.
    let other = lib.search(&query("cursor")).unwrap();
    let id = results(&other.json)[0]["id"].as_str().unwrap().to_string();
    let e = err(GetDocumentParams {
        path: "guide/forms.md".into(),
        section_id: Some(id),
    });
    assert!(e.to_string().contains("\"guide/pagination.md\""), "{e}");
    let e = err(GetDocumentParams {
        path: " ".into(),
        section_id: None,
    });
    assert!(e.to_string().contains("invalid argument path"));
}

#[test]
fn bad_search_arguments_are_errors_with_clear_messages() {
    let lib = library();
    let msg = |p: SearchParams| lib.search(&p).unwrap_err().to_string();
    // A blank query is no mistake: an empty answer.
    let blank = lib.search(&query("  ")).unwrap();
    assert!(blank.text.starts_with("0 results"), "{}", blank.text);
    let mut p = query("paging");
    p.limit = Some(0);
    assert!(msg(p.clone()).contains("limit"));
    p.limit = Some(5000);
    assert!(msg(p).contains("between 1 and 1000"));
    let mut p = query("paging");
    p.mode = Some("fuzzy".into());
    assert!(msg(p).contains("use keyword, semantic or hybrid"));
    let mut p = query("paging");
    p.depth = Some(vec![9]);
    assert!(msg(p).contains("0 (whole document) to 6"));
    let mut p = query("paging");
    p.token_budget = Some(0);
    assert!(msg(p).contains("tokenBudget"));
    // This index has no vectors: semantic search says so, keyword search still answers.
    let mut p = query("paging");
    p.mode = Some("semantic".into());
    assert!(msg(p).contains("no vectors"));
    let mut p = query("paging");
    p.mode = Some("keyword".into());
    assert_eq!(lib.search(&p).unwrap().json["mode"], "keyword");
}

#[test]
fn documents_are_listed_under_a_prefix_with_titles_and_section_counts() {
    let lib = library();
    let all = lib.list_documents(&ListDocumentsParams::default()).unwrap();
    assert_eq!(all.json["total"], 3);
    let guide = lib
        .list_documents(&ListDocumentsParams {
            path: Some("guide/".into()),
            limit: None,
        })
        .unwrap();
    assert_eq!(guide.json["total"], 2);
    assert!(guide
        .text
        .starts_with("2 documents under \"guide/\" (3 in the index)\n"));
    assert!(guide.text.contains(
        "- guide/pagination.md — Pagination (4 sections)\n  Split long result lists into pages.\n"
    ));
    assert!(guide
        .text
        .contains("- guide/forms.md — Forms (3 sections)\n"));
    let one = lib
        .list_documents(&ListDocumentsParams {
            path: None,
            limit: Some(1),
        })
        .unwrap();
    assert_eq!(one.json["documents"].as_array().unwrap().len(), 1);
    assert!(one.text.contains("… 2 more"));
    let none = lib
        .list_documents(&ListDocumentsParams {
            path: Some("api/".into()),
            limit: None,
        })
        .unwrap();
    assert_eq!(none.json["total"], 0);
    assert!(lib
        .list_documents(&ListDocumentsParams {
            path: None,
            limit: Some(0),
        })
        .is_err());
}
