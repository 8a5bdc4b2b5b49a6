//! Versioned docs (`5.1/…`, `7.4/…` side by side): the version filter, and one result per
//! section across versions instead of one per copy.

use crate::common;

use common::{bin, run_ok as run};
use std::fs;
use std::path::Path;

fn search(dir: &Path, q: &str, extra: &[&str]) -> serde_json::Value {
    let o = run(bin()
        .arg("search")
        .arg(dir)
        .arg(q)
        .args(["--json", "--mode", "keyword"])
        .args(extra));
    serde_json::from_slice(&o.stdout).expect("valid JSON")
}

/// The same page in three versions (with the small differences real versions have), and one
/// page that only 7.5 has.
fn versioned_site(root: &Path) {
    for (v, extra) in [
        ("5.1", "Windows PowerShell only."),
        ("7.4", ""),
        ("7.5", "New in this release: `-Depth`."),
    ] {
        let dir = root.join(v).join("Module");
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("Get-Widget.md"),
            format!(
                "# Get-Widget\n\nGets widgets from the store. {extra}\n\n## Parameters\n\n\
                 ### -Name\n\nThe widget name to look up.\n\n## Examples\n\nGet-Widget -Name blue\n"
            ),
        )
        .unwrap();
    }
    fs::write(
        root.join("7.5/Module/Set-Gadget.md"),
        "# Set-Gadget\n\nSets a gadget; widgets are left alone.\n",
    )
    .unwrap();
}

#[test]
fn a_section_in_several_versions_is_one_result_naming_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    versioned_site(&docs);
    let out = tmp.path().join("idx");
    run(bin()
        .arg(&docs)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--keyword-only"]));

    let r = search(&out, "widget name", &[]);
    let hits = r["results"].as_array().unwrap();
    let paths: Vec<&str> = hits.iter().map(|h| h["path"].as_str().unwrap()).collect();
    // Each family once: the page (or its best section) shows up a single time, in its newest
    // version, and names the others newest first.
    let get_widget: Vec<&serde_json::Value> = hits
        .iter()
        .filter(|h| h["path"].as_str().unwrap().ends_with("Get-Widget.md"))
        .collect();
    let mut families: Vec<String> = get_widget
        .iter()
        .map(|h| h["heading_path"].to_string())
        .collect();
    families.dedup();
    assert_eq!(
        families.len(),
        get_widget.len(),
        "a family shown twice: {paths:?}"
    );
    let top = &get_widget[0];
    assert_eq!(top["version"], "7.5", "{paths:?}");
    assert!(top["path"].as_str().unwrap().starts_with("7.5/"));
    let others: Vec<&str> = top["other_versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_str().unwrap())
        .collect();
    assert_eq!(others, ["7.4", "5.1"]);
    let link = &top["other_versions"][0];
    assert!(link["url"].as_str().unwrap().contains("/7.4/"), "{link}");
    assert_eq!(link["id"].as_str().unwrap().len(), 16);
    assert_eq!(r["total"].as_u64().unwrap() as usize, hits.len());

    // --all-versions: every copy again.
    let all = search(&out, "widget name", &["--all-versions"]);
    assert_eq!(
        all["total"].as_u64().unwrap(),
        r["total"].as_u64().unwrap() + 2 * get_widget.len() as u64,
        "{all}"
    );
    assert!(all["results"][0]["other_versions"]
        .as_array()
        .unwrap()
        .is_empty());

    // --version: one version only, nothing collapsed into it.
    let v = search(&out, "widget name", &["--version", "7.4"]);
    let hits = v["results"].as_array().unwrap();
    assert!(!hits.is_empty());
    for h in hits {
        assert_eq!(h["version"], "7.4", "{h}");
        assert!(h["other_versions"].as_array().unwrap().is_empty());
    }

    // A section that differs by version still finds its own version's text.
    let only = search(&out, "windows powershell only", &[]);
    assert_eq!(only["results"][0]["version"], "5.1", "{only}");

    // The quoted format names the versions.
    let o = run(bin()
        .arg("search")
        .arg(&out)
        .arg("widget name")
        .args(["--mode", "keyword"]));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("| Version: 7.5 (also in 7.4, 5.1)"), "{text}");
}
