//! A valid file of the right kind put in another's place (a shard, the lexicon, the model)
//! is a clear error, never a different answer (#27 items 2 and 3).

use crate::common;

use common::{bin, run, run_ok};
use std::fs;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/docs")
}

fn names(dir: &Path, stem: &str) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(stem))
        .collect();
    v.sort();
    v
}

/// Every query of `queries` either answers as before or fails with a clear message.
fn searches(dir: &Path, q: &str) -> Result<String, String> {
    let out = run(bin()
        .arg("search")
        .arg(dir)
        .args([q, "--json", "--mode", "keyword"]));
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn build(docs: &Path, out: &Path) {
    run_ok(bin().arg(docs).arg("--out").arg(out).args([
        "--keyword-only",
        "--quiet",
        "--layout",
        "sharded",
    ]));
}

#[test]
fn a_shard_in_another_shards_place_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    // Midashi's own docs: a dozen shards.
    build(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs"), &out);
    let all = names(&out, "shard.");
    assert!(all.len() >= 4, "{all:?}");
    // The first, a middle and the last shard, each over the others of these.
    let shards = [
        all[0].clone(),
        all[all.len() / 2].clone(),
        all[all.len() - 1].clone(),
    ];
    // Words from a to z (and Japanese), so that every shard is read by some query.
    let words = [
        "anchor",
        "browser",
        "cache",
        "deploy",
        "embedding",
        "folder",
        "gzip",
        "heading",
        "index",
        "japanese",
        "keyword",
        "layout",
        "model",
        "node",
        "offline",
        "preview",
        "query",
        "ranking",
        "shard",
        "theme",
        "unicode",
        "version",
        "widget",
        "yaml",
        "zero",
        "算出",
        "検索",
    ];
    let before: Vec<_> = words.iter().map(|w| searches(&out, w)).collect();
    assert!(before.iter().all(Result::is_ok), "{before:?}");
    let mut refused = 0;
    // Each shard copied over each other one: every query answers as before or fails clearly.
    for a in &shards {
        for b in &shards {
            if a == b {
                continue;
            }
            let copy = tmp.path().join(format!("swap-{a}-{b}"));
            fs::create_dir_all(&copy).unwrap();
            for e in fs::read_dir(&out).unwrap() {
                let e = e.unwrap();
                fs::copy(e.path(), copy.join(e.file_name())).unwrap();
            }
            fs::copy(out.join(a), copy.join(b)).unwrap();
            for (w, was) in words.iter().zip(&before) {
                match searches(&copy, w) {
                    Ok(now) => assert_eq!(
                        &now_without_time(&now),
                        &now_without_time(was.as_ref().unwrap()),
                        "{a} over {b}: {w}"
                    ),
                    Err(e) => {
                        assert!(e.contains("another shard"), "{e}");
                        refused += 1;
                    }
                }
            }
            fs::remove_dir_all(&copy).unwrap();
        }
    }
    assert!(
        refused > 0,
        "no query read a swapped shard: the test proves nothing"
    );
}

fn now_without_time(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["took_ms"] = serde_json::Value::Null;
    v
}

#[test]
fn a_lexicon_from_another_build_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let one = tmp.path().join("one");
    build(&fixture(), &one);
    let docs = tmp.path().join("docs");
    fs::create_dir_all(&docs).unwrap();
    fs::write(
        docs.join("a.md"),
        "# Other\n\nentirely different words here\n",
    )
    .unwrap();
    let two = tmp.path().join("two");
    build(&docs, &two);
    let (l1, l2) = (
        names(&one, "lexicon.")[0].clone(),
        names(&two, "lexicon.")[0].clone(),
    );
    fs::copy(two.join(&l2), one.join(&l1)).unwrap();
    // A misspelling needs the lexicon.
    let err = searches(&one, "paginaton").unwrap_err();
    assert!(err.contains("does not match the hash in its name"), "{err}");
}

#[test]
fn a_damaged_model_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    fs::create_dir_all(&docs).unwrap();
    fs::write(docs.join("a.md"), "# Alpha\n\nwords\n").unwrap();
    // A stand-in model folder is not needed: the hash check comes before the model is read.
    let out = tmp.path().join("idx");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/all-MiniLM-L6-v2");
    if !model.join("model.onnx").is_file() {
        assert!(
            std::env::var("MIDASHI_REQUIRE_SEMANTIC").is_err(),
            "no model at {} (scripts/fetch-model.sh)",
            model.display()
        );
        return;
    }
    run_ok(
        bin()
            .arg(&docs)
            .arg("--out")
            .arg(&out)
            .arg("--model")
            .arg(&model)
            .arg("--cache-dir")
            .arg(tmp.path().join("cache"))
            .args(["--quiet", "--semantic", "deep"]),
    );
    let onnx = names(&out, "model.")[0].clone();
    let mut bytes = fs::read(out.join(&onnx)).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x10;
    fs::write(out.join(&onnx), bytes).unwrap();
    let o = run(bin()
        .arg("search")
        .arg(&out)
        .args(["words", "--mode", "hybrid"])
        .env("MIDASHI_MODEL", tmp.path().join("none")));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("does not match the hash in its name"), "{err}");
}

/// Copies folder `from` into `to`, subfolders too.
fn copy_flat(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_flat(&e.path(), &to.join(e.file_name()));
        } else {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_shard_or_card_of_an_earlier_build_under_a_current_name_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    copy_flat(&fixture(), &docs);
    let older = tmp.path().join("older");
    build(&docs, &older);
    // The next build: one sentence more on one page.
    let page = docs.join("guide/pagination.md");
    let text = fs::read_to_string(&page).unwrap();
    fs::write(
        &page,
        format!("{text}\nPagination also splits installation notes.\n"),
    )
    .unwrap();
    let current = tmp.path().join("current");
    build(&docs, &current);
    for stem in ["shard.", "card."] {
        let (ours, theirs) = (names(&current, stem), names(&older, stem));
        let mixed = tmp.path().join(format!("mixed-{stem}"));
        copy_flat(&current, &mixed);
        // Shards keep their names across builds unless their group changed; cards are all
        // renamed, so they are matched by position.
        let mut swapped = 0;
        for (i, name) in ours.iter().enumerate() {
            let from = if stem == "shard." {
                theirs.iter().find(|t| *t == name)
            } else {
                theirs.get(i)
            };
            let Some(from) = from else { continue };
            let old = fs::read(older.join(from)).unwrap();
            if old != fs::read(current.join(name)).unwrap() {
                fs::write(mixed.join(name), old).unwrap();
                swapped += 1;
            }
        }
        // Shards whose group changed have new names: the older build's ones under them.
        if stem == "shard." && swapped == 0 {
            for (name, from) in ours.iter().filter(|n| !theirs.contains(n)).zip(&theirs) {
                fs::copy(older.join(from), mixed.join(name)).unwrap();
                swapped += 1;
            }
        }
        assert!(swapped > 0, "{stem}: nothing differs");
        let errors: Vec<String> = ["pagination", "installation", "computed", "算出"]
            .iter()
            .filter_map(|q| searches(&mixed, q).err())
            .collect();
        assert!(
            !errors.is_empty(),
            "{stem}: an earlier build's file was served"
        );
        for e in &errors {
            assert!(
                e.contains("another build") || e.contains("not the ones the directory places"),
                "{stem}: {e}"
            );
        }
    }
}
