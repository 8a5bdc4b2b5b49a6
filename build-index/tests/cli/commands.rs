//! The CLI end to end: build a fixture site, search it, fetch sections, and refuse damaged
//! indexes with a clear error and a non-zero exit (never a panic).

use crate::common;

use common::{bin, run};
use std::fs;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/docs")
}

fn build(out: &Path) {
    let o = run(bin()
        .arg(fixture())
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(["--slug", "vitepress"]));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn search_json(dir: &Path, q: &str, extra: &[&str]) -> serde_json::Value {
    let o = run(bin()
        .arg("search")
        .arg(dir)
        .arg(q)
        .arg("--json")
        .args(extra));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("valid JSON")
}

#[test]
fn build_reports_and_search_quotes_sections() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    let o = run(bin().arg(fixture()).arg("--out").arg(&out).arg("--quiet"));
    assert!(o.status.success());
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("Indexed 4 documents"), "{report}");
    assert!(report.contains("terms"), "{report}");
    // An index of Markdown gets no widget beside it: the report says how to get one.
    assert!(
        report.contains("not written beside an index of Markdown") && report.contains("--site"),
        "{report}"
    );
    assert!(!out.join("midashi.js").exists());

    let o = run(bin()
        .arg("search")
        .arg(&out)
        .arg("cursor paging")
        .args(["--preview-lines", "2"]));
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.lines().next().unwrap().ends_with(" ms)"), "{text}");
    assert!(
        text.contains(
            "1. guide/pagination.md > Pagination > Limit and offset > Cursor-based paging"
        ),
        "{text}"
    );
    assert!(
        text.contains("Level: H3 | Section: 1 | Line: 15-17 | Score: "),
        "{text}"
    );
    assert!(
        text.contains("```markdown\n### Cursor-based paging\n… (1 more lines)\n```"),
        "{text}"
    );
    assert!(text.contains("\nid: "), "{text}");
}

#[test]
fn json_results_carry_the_section_model() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    build(&out);
    let v = search_json(&out, "基本的な例", &[]);
    let r = &v["results"][0];
    assert_eq!(r["path"], "ja/computed.md");
    assert_eq!(r["anchor"], "basic-example");
    assert_eq!(r["url"], "/ja/computed.html#basic-example");
    assert_eq!(r["depth"], 2);
    assert_eq!(
        r["heading_path"],
        serde_json::json!(["算出プロパティ", "基本的な例"])
    );
    assert_eq!(r["start_line"], 9);
    for key in [
        "id",
        "heading",
        "section_number",
        "end_line",
        "score",
        "preview",
        "total",
    ] {
        assert!(
            r.get(key).is_some() || v.get(key).is_some(),
            "missing {key}"
        );
    }
    assert!(v["took_ms"].as_f64().is_some());

    // Filters: depth and path prefix.
    let v = search_json(&out, "configuration", &["--path", "guide/"]);
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["path"].as_str().unwrap().starts_with("guide/")));
    let v = search_json(&out, "configuration", &["--depth", "2"]);
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["depth"] == 2));
    assert!(v["total"].as_u64().unwrap() >= 2);
}

#[test]
fn get_prints_whole_sections_and_documents() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    build(&out);
    let v = search_json(&out, "limit offset", &[]);
    let id = v["results"][0]["id"].as_str().unwrap().to_string();
    let o = run(bin().arg("get").arg(&out).arg(&id));
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("## Limit and offset"), "{text}");
    assert!(
        text.contains("Cursors survive inserts"),
        "subsections included: {text}"
    );

    let o = run(bin()
        .arg("get")
        .arg(&out)
        .arg("guide/pagination.md#cursor-based-paging"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(bin().arg("get").arg(&out).arg("guide/computed.md"));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Computed properties cache"));
    let o = run(bin().arg("get").arg(&out).arg("0000000000000000"));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no such section"));
}

#[test]
fn two_builds_are_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    build(&a);
    build(&b);
    let list = |d: &Path| {
        let mut v: Vec<(String, Vec<u8>)> = fs::read_dir(d)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(list(&a), list(&b));
}

/// The keyword file every query of the index in `dir` reads: the directory of a sharded
/// index (the default layout), the terms file of a single-file one.
fn terms_file(dir: &Path) -> PathBuf {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with("terms.") || n.starts_with("directory.")
            })
        })
        .expect("a terms or directory file")
}

#[test]
fn damaged_indexes_fail_clearly() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    build(&out);
    let terms = terms_file(&out);
    let good = fs::read(&terms).unwrap();

    fs::write(&terms, &good[..good.len() / 2]).unwrap();
    let o = run(bin().arg("search").arg(&out).arg("pagination"));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("truncated"));

    let mut flipped = good.clone();
    flipped[good.len() - 10] ^= 0x04;
    fs::write(&terms, &flipped).unwrap();
    let o = run(bin().arg("search").arg(&out).arg("pagination"));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("corrupted"));

    let o = run(bin().arg("search").arg(tmp.path()).arg("x"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no Midashi index here"));

    fs::write(&terms, &good).unwrap();
    // A blank query is no mistake: no results.
    let o = run(bin().arg("search").arg(&out).arg("   "));
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("0 results"));
    // The OS caps one argument at 128 KiB; the engine caps queries far below that.
    let huge = "a ".repeat(50_000);
    let o = run(bin().arg("search").arg(&out).arg(&huge));
    assert!(String::from_utf8_lossy(&o.stderr).contains("query too long"));
}

#[test]
fn jsonl_records_are_indexed() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("records.jsonl");
    fs::write(
        &input,
        "{\"_id\": \"a\", \"title\": \"Tides\", \"text\": \"The moon pulls the oceans.\"}\n{\"_id\": 7, \"title\": \"Rust\", \"text\": \"Ownership and borrowing.\", \"url\": \"https://example.org/rust\"}\n",
    )
    .unwrap();
    let out = tmp.path().join("idx");
    let o = run(bin().arg(&input).arg("--out").arg(&out).arg("--quiet"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = search_json(&out, "borrowing", &[]);
    assert_eq!(v["results"][0]["path"], "7");
    assert_eq!(v["results"][0]["url"], "https://example.org/rust");

    fs::write(&input, "{\"_id\": \"a\"}\nnot json\n").unwrap();
    let o = run(bin().arg(&input).arg("--out").arg(&out));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("records.jsonl:2"));
}

/// `--layout sharded` writes the sharded files, and `search`, `get` and the report read them
/// with the same answers as the single layout.
#[test]
fn a_sharded_index_answers_like_a_single_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, many) = (tmp.path().join("one"), tmp.path().join("many"));
    for (out, layout) in [(&one, "single"), (&many, "sharded")] {
        let o = run(bin().arg(fixture()).arg("--out").arg(out).args([
            "--quiet",
            "--keyword-only",
            "--slug",
            "vitepress",
            "--layout",
            layout,
        ]));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let names: Vec<String> = fs::read_dir(&many)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for stem in [
        "directory.",
        "shard.",
        "bundle.",
        "lexicon.",
        "tree.",
        "paths.",
    ] {
        assert!(
            names.iter().any(|n| n.starts_with(stem)),
            "no {stem} file: {names:?}"
        );
    }
    assert!(!names
        .iter()
        .any(|n| n.starts_with("terms.") || n.starts_with("sections.")));
    for q in ["computed", "pagination", "computd", "算出プロパティ"] {
        let mut a = search_json(&one, q, &[]);
        let mut b = search_json(&many, q, &[]);
        for v in [&mut a, &mut b] {
            v.as_object_mut().unwrap().remove("took_ms");
            // A sharded result's excerpt comes from the lines its card holds (the section's
            // first five): everything else is the same answer.
            for h in v["results"].as_array_mut().unwrap() {
                let h = h.as_object_mut().unwrap();
                for k in ["excerpt", "excerpt_highlights", "excerpt_line"] {
                    assert!(h.remove(k).is_some(), "{k}");
                }
            }
        }
        assert_eq!(a, b, "{q}");
    }
    let hit = &search_json(&many, "computed", &[])["results"][0];
    let target = format!(
        "{}#{}",
        hit["path"].as_str().unwrap(),
        hit["anchor"].as_str().unwrap()
    );
    let get = |dir: &Path| run(bin().arg("get").arg(dir).arg(&target)).stdout;
    assert_eq!(get(&one), get(&many));
}

/// A reader that stops early (`build-index search … --json | head -c 100`) ends the program
/// quietly: no panic, no backtrace, no exit 101.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    build(&out);
    for args in [
        vec!["search", "--json", "--limit", "1000"],
        vec!["search", "--preview-lines", "50"],
    ] {
        let mut child = bin()
            .arg(args[0])
            .arg(&out)
            .arg("page")
            .args(&args[1..])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Closed before the program writes its first byte: every write meets a closed pipe.
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_ne!(o.status.code(), Some(101), "{args:?}: {stderr}");
        assert!(
            o.status.success() || o.status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {:?} {stderr}",
            o.status
        );
    }
}

/// A rebuild repairs a damaged file (#27 item 9): the error for a flipped byte says "rebuild
/// the index", so rebuilding must rewrite the file even though its name and length match.
#[test]
fn a_rebuild_rewrites_a_damaged_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    build(&out);
    let terms = terms_file(&out);
    let mut bytes = fs::read(&terms).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    fs::write(&terms, &bytes).unwrap();
    let o = run(bin().arg("search").arg(&out).arg("pagination"));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("rebuild"));
    build(&out);
    assert!(finds_pagination(&out));
}

/// Whether the index in `dir` answers a query that the fixture matches.
fn finds_pagination(dir: &Path) -> bool {
    search_json(dir, "pagination", &[])["total"]
        .as_u64()
        .is_some_and(|n| n > 0)
}

/// The names in a folder.
fn names_in(dir: &Path) -> Vec<std::ffi::OsString> {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect()
}

/// One writer per output folder (#27 item 5): while another process holds the folder's
/// lock, a build is refused at once with a clear message and writes nothing; once released,
/// the same build runs.
#[test]
fn a_second_build_into_a_busy_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    build(&out);
    let before = names_in(&out);
    // The lock lives outside the folder (the folder holds only what is served): in the
    // temporary folder, named by a hash of the folder's canonical path.
    assert!(!out.join(".midashi-build.lock").exists());
    let canonical = fs::canonicalize(&out).unwrap();
    let hash = xxhash_rust::xxh3::xxh3_64(canonical.as_os_str().as_encoded_bytes());
    let lock = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(std::env::temp_dir().join(format!("midashi-build-{hash:016x}.lock")))
        .unwrap();
    lock.try_lock().unwrap();
    let o = run(bin()
        .arg(fixture())
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--slug", "github"]));
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("another build-index is writing into this folder"),
        "{stderr}"
    );
    let after = names_in(&out);
    assert_eq!(before, after, "the refused build wrote nothing");
    drop(lock);
    build(&out);
    assert!(finds_pagination(&out));
}

/// An index folder is data from elsewhere: an entry file naming a file outside the folder is
/// refused before anything is opened (#27 item 10).
#[test]
fn an_entry_naming_a_file_outside_the_folder_is_refused() {
    use midashi_core::format::{FileKind, Manifest};
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    build(&out);
    let entry = out.join("midashi-entry.bin");
    let mut manifest = Manifest::decode(&fs::read(&entry).unwrap()).unwrap();
    for f in &mut manifest.files {
        if matches!(f.kind, FileKind::Terms | FileKind::Directory) {
            f.name = "../../../../../../etc/passwd".into();
        }
    }
    fs::write(&entry, manifest.encode().unwrap()).unwrap();
    let o = run(bin().arg("search").arg(&out).arg("pagination"));
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("not a file name build-index writes"),
        "{stderr}"
    );
    assert!(!stderr.contains("root:"), "{stderr}");
}
