//! A built site as input: pages detected and read, their controls honoured, the index written
//! into the site with the widget beside it; and a build that does not depend on the folder
//! it is started from.

use crate::common;

use common::{bin, run, run_ok};
use std::fs;
use std::path::Path;

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// A generator's output: chrome around a main, a Japanese page, an excluded page, a redirect.
fn site(dir: &Path) {
    write(
        dir,
        "index.html",
        r#"<html lang="en"><head><title>Home</title></head><body><header><nav>Navchromeword</nav></header>
<main><h1 id="welcome">Welcome</h1><p>Start with the scheduler.</p><h2 id="retry-policy">Retry Policy</h2>
<p>Failed jobs are retried with exponential backoff.</p></main><footer>Footerchromeword</footer></body></html>"#,
    );
    write(
        dir,
        "ja/guide/index.html",
        r#"<html lang="ja"><body><main><h1 id="guide">ガイド</h1><h2 id="設定ファイル">設定ファイル</h2><p>設定を読み込みます。</p></main></body></html>"#,
    );
    write(
        dir,
        "secret.html",
        r#"<html><head><meta name="robots" content="noindex"></head><body><main><h1>Runbook</h1><p>zanzibarfrobnicate</p></main></body></html>"#,
    );
    write(
        dir,
        "old.html",
        r#"<html><head><meta http-equiv="refresh" content="0; url=/"></head><body>Moved</body></html>"#,
    );
    write(dir, "assets/app.css", "body{}");
}

fn search(dir: &Path, q: &str) -> serde_json::Value {
    let out = run_ok(
        bin()
            .args(["search"])
            .arg(dir)
            .args([q, "--json", "--mode", "keyword"]),
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_built_site_is_indexed_into_its_search_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dist = tmp.path().join("dist");
    site(&dist);
    // No option at all is a build with the defaults.
    run_ok(
        bin()
            .arg(&dist)
            .env("MIDASHI_MODEL", tmp.path().join("none")),
    );
    assert!(dist.join("search").join("midashi-entry.bin").is_file());
    // No --out: a built site's index goes to its search/ folder.
    let out = run_ok(
        bin()
            .arg(&dist)
            .args(["--keyword-only", "--quiet", "--base-url", "/docs/"]),
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("Indexed 2 documents"), "{report}");
    assert!(
        report.contains("secret.html: <meta name=\"robots\" content=\"noindex\">"),
        "{report}"
    );
    assert!(report.contains("old.html: a redirect"), "{report}");
    let index = dist.join("search");
    // The widget travels with the tool: copied beside the index, from any working directory.
    assert!(index.join("midashi.js").is_file() || report.contains("widget not copied"));

    let hit = &search(&index, "retry policy")["results"][0];
    assert_eq!(hit["url"], "/docs/#retry-policy");
    assert_eq!(hit["anchor"], "retry-policy");
    assert_eq!(hit["path"], "index.html");
    let hit = &search(&index, "設定ファイル")["results"][0];
    assert_eq!(hit["url"], "/docs/ja/guide/#設定ファイル");
    for chrome in [
        "Navchromeword",
        "Footerchromeword",
        "zanzibarfrobnicate",
        "Moved",
    ] {
        assert_eq!(
            search(&index, chrome)["results"],
            serde_json::json!([]),
            "{chrome}"
        );
    }
    // get quotes the page's Markdown-like text, with the lines the section names.
    let out = run_ok(bin().arg("get").arg(&index).arg("index.html#retry-policy"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("## Retry Policy\n\nFailed jobs are retried"),
        "{text}"
    );
}

#[test]
fn input_kind_can_be_forced_and_markdown_pages_can_opt_out() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    write(&docs, "a.md", "# Alpha\n\nvisible words\n");
    write(
        &docs,
        "b.md",
        "---\nsearch: false\n---\n# Beta\n\nhiddenword\n",
    );
    write(
        &docs,
        "page.html",
        "<html><body><main><h1 id=\"p\">Page</h1><p>htmlonlyword</p></main></body></html>",
    );
    let out = tmp.path().join("idx");
    let report = run_ok(
        bin()
            .arg(&docs)
            .arg("--out")
            .arg(&out)
            .args(["--keyword-only", "--quiet"]),
    );
    let report = String::from_utf8_lossy(&report.stdout);
    assert!(report.contains("b.md: `search: false`"), "{report}");
    assert_eq!(search(&out, "hiddenword")["results"], serde_json::json!([]));
    assert_eq!(
        search(&out, "htmlonlyword")["results"],
        serde_json::json!([])
    );
    assert_eq!(search(&out, "visible")["total"], 1);

    let out2 = tmp.path().join("idx2");
    run_ok(bin().arg(&docs).arg("--out").arg(&out2).args([
        "--input",
        "html",
        "--keyword-only",
        "--quiet",
    ]));
    assert_eq!(search(&out2, "htmlonlyword")["total"], 1);
    // A Markdown folder has no default output folder.
    let r = run(bin().arg(&docs).args(["--keyword-only", "--quiet"]));
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("--out"));
}

#[test]
fn a_models_folder_in_the_working_directory_is_not_used() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    write(&docs, "a.md", "# Alpha\n\nwords\n");
    // A folder that looks like the default model where the build runs: not a model to use.
    write(
        tmp.path(),
        "models/all-MiniLM-L6-v2/midashi-model.json",
        "{ not a model",
    );
    let out = tmp.path().join("idx");
    let r = run_ok(
        bin()
            .current_dir(tmp.path())
            .env("MIDASHI_CACHE_DIR", tmp.path().join("cache"))
            .env("MIDASHI_MODEL", tmp.path().join("nowhere"))
            .arg("docs")
            .args(["--out", "idx", "--quiet"]),
    );
    // Had it been read, its broken midashi-model.json would have failed the build.
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(!stderr.contains("midashi-model.json"), "{stderr}");
    assert!(out.join("midashi-entry.bin").is_file());
}

#[test]
fn a_site_interrupted_between_its_two_moves_is_put_back() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    write(&docs, "a.md", "# Alpha\n\nwords\n");
    let out = tmp.path().join("site");
    // What a build killed after moving the live site aside leaves: the old site, no new one.
    write(tmp.path(), ".site.midashi-old/index.html", "previous site");
    write(tmp.path(), ".site.midashi-new/half.html", "half-written");
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    let r = run(bin()
        .arg(&docs)
        .arg("--out")
        .arg(&out)
        .arg("--assets")
        .arg(&assets)
        .args(["--site", "--keyword-only", "--quiet"]));
    if r.status.success() {
        assert!(out.join("a.html").is_file());
        assert!(!out.join("half.html").exists());
    } else {
        // Without the widget's files the build stops before the swap: the old site is back.
        assert_eq!(
            fs::read_to_string(out.join("index.html")).unwrap(),
            "previous site"
        );
    }
    assert!(!tmp
        .path()
        .join(".site.midashi-new")
        .join("half.html")
        .exists());
    assert!(!tmp.path().join(".site.midashi-old").exists());
}

#[test]
fn weighted_pages_rank_higher_in_both_layouts() {
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = tmp.path().join("site");
    let page = |title: &str, attr: &str| {
        format!(
            "<html><body {attr}><main><h1 id=\"t\">{title}</h1><p>The scheduler retries failed jobs.</p></main></body></html>"
        )
    };
    write(&site_dir, "a.html", &page("Alpha", ""));
    write(
        &site_dir,
        "b.html",
        &page("Beta", "data-midashi-weight=\"3\""),
    );
    write(
        &site_dir,
        "c.html",
        &page("Gamma", "data-midashi-weight=\"0.5\""),
    );
    let docs = tmp.path().join("docs");
    write(
        &docs,
        "a.md",
        "# Alpha\n\nThe scheduler retries failed jobs.\n",
    );
    write(
        &docs,
        "b.md",
        "---\nsearch_weight: 3\n---\n# Beta\n\nThe scheduler retries failed jobs.\n",
    );
    write(
        &docs,
        "c.md",
        "---\nsearch_weight: 0.5\n---\n# Gamma\n\nThe scheduler retries failed jobs.\n",
    );
    for input in [&site_dir, &docs] {
        let mut orders = Vec::new();
        for layout in ["single", "sharded"] {
            let out = tmp.path().join(format!("idx-{layout}"));
            run_ok(bin().arg(input).arg("--out").arg(&out).args([
                "--keyword-only",
                "--quiet",
                "--layout",
                layout,
            ]));
            let r = search(&out, "scheduler retries");
            let pages: Vec<String> = r["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["path"].as_str().unwrap().to_string())
                .collect();
            let scores: Vec<f64> = r["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["score"].as_f64().unwrap())
                .collect();
            orders.push((pages, scores));
        }
        let (pages, _) = &orders[0];
        let stems: Vec<&str> = pages.iter().map(|p| &p[..1]).collect();
        assert_eq!(stems, ["b", "a", "c"], "{input:?}: {orders:?}");
        // The sharded layout stores the weighted scores: both rank alike.
        assert_eq!(orders[0], orders[1], "{input:?}");
    }
}
