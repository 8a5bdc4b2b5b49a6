//! Retrieval quality on real data: the BEIR sets with human judgments, and real questions
//! over the shared documentation corpora (English and Japanese, with typos, prefixes and
//! full-width input). They need ../shared beside the repository and fail without it: a
//! quality test that passes by skipping measures nothing.

use crate::common;

use common::bin;
use std::path::{Path, PathBuf};

fn shared() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    assert!(
        p.join("eval").is_dir(),
        "{} is missing: the quality tests need the shared corpora and judged sets beside the repository (../shared, as CI has it)",
        p.display()
    );
    Some(p)
}

fn eval(set: &Path) -> serde_json::Value {
    let o = bin().arg("eval").arg(set).arg("--json").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn scifact_keyword_ndcg_matches_bm25() {
    let Some(shared) = shared() else { return };
    let v = eval(&shared.join("eval/scifact"));
    let ndcg = v["ndcg@10"].as_f64().unwrap();
    eprintln!("scifact keyword: {v}");
    assert!(ndcg >= 0.68, "nDCG@10 {ndcg} < 0.68 (reference BM25 0.686)");
}

#[test]
fn jsquad_keyword_recall_is_near_the_ceiling() {
    let Some(shared) = shared() else { return };
    let v = eval(&shared.join("eval/jsquad-valid"));
    let recall = v["recall@10"].as_f64().unwrap();
    eprintln!("jsquad keyword: {v}");
    assert!(recall >= 0.97, "Recall@10 {recall} < 0.97");
}

fn build(corpus: &Path, out: &Path, slug: &str) {
    let o = bin()
        .arg(corpus)
        .arg("--out")
        .arg(out)
        .args(["--slug", slug, "--quiet", "--keyword-only"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn top_paths(dir: &Path, q: &str, n: usize) -> Vec<String> {
    let o = bin()
        .arg("search")
        .arg(dir)
        .arg(q)
        .args(["--json", "--limit", &n.to_string()])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{q}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect()
}

fn assert_found(dir: &Path, cases: &[(&str, &str)]) {
    let mut misses = Vec::new();
    for (q, want) in cases {
        let got = top_paths(dir, q, 3);
        if !got.iter().any(|p| p.contains(want)) {
            misses.push(format!("{q:?}: wanted {want}, got {got:?}"));
        }
    }
    assert!(
        misses.is_empty(),
        "not in the top 3:\n{}",
        misses.join("\n")
    );
}

#[test]
fn japanese_docs_questions_find_their_page() {
    let Some(shared) = shared() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ja");
    build(&shared.join("corpora/vue-docs-ja"), &out, "vitepress");
    assert_found(
        &out,
        &[
            ("算出プロパティ", "guide/essentials/computed.md"),
            ("ｖ－ｍｏｄｅｌ", "v-model.md"),
            ("ぷろぱてぃ 算出", "computed.md"),
            ("ウォッチャー", "guide/essentials/watchers.md"),
            ("イベントハンドリング", "guide/essentials/event-handling.md"),
            ("テンプレート構文", "guide/essentials/template-syntax.md"),
            (
                "リアクティビティーの基礎",
                "guide/essentials/reactivity-fundamentals.md",
            ),
            ("コンポーネントの登録", "guide/components/registration.md"),
            ("provide inject", "guide/components/provide-inject.md"),
            ("サーバーサイドレンダリング", "guide/scaling-up/ssr.md"),
        ],
    );
}

#[test]
fn english_docs_questions_find_their_page_despite_typos() {
    let Some(shared) = shared() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("rust");
    build(&shared.join("corpora/rust-book"), &out, "mdbook");
    assert_found(
        &out,
        &[
            ("ownership", "ch04-01-what-is-ownership.md"),
            (
                "borrowing references",
                "ch04-02-references-and-borrowing.md",
            ),
            ("lifetimes", "ch10-03-lifetime-syntax.md"),
            ("ownershp rules", "ch04-01-what-is-ownership.md"),
            (
                "refrences and borowing",
                "ch04-02-references-and-borrowing.md",
            ),
            ("Ｈａｓｈ Ｍａｐ", "ch08-03-hash-maps.md"),
            ("smart pointers Box", "ch15-01-box.md"),
            ("fearless concurrency threads", "ch16"),
            (
                "unrecoverable errors panic",
                "ch09-01-unrecoverable-errors-with-panic.md",
            ),
            ("trait objects", "ch18-02-trait-objects.md"),
        ],
    );
}

/// The Rust-book question set (bench/questions/rust-book: natural questions and
/// navigational queries, judged by reading the sections) through `eval --docs`: sections
/// judged by `path#anchor`, grouped as users see them, reported per kind of query.
#[test]
fn the_rust_book_question_set_measures_sections_per_kind() {
    let Some(shared) = shared() else { return };
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/questions/rust-book");
    let o = bin()
        .arg("eval")
        .arg(&set)
        .arg("--docs")
        .arg(shared.join("corpora/rust-book"))
        .args(["--mode", "keyword", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    eprintln!("rust-book questions, keyword: {v}");
    let kinds = &v["ndcg@10_by_kind"];
    let n = |k: &str| kinds[k]["queries"].as_u64().unwrap();
    assert_eq!(
        v["queries"].as_u64().unwrap(),
        n("question") + n("navigational")
    );
    assert!(n("question") >= 50 && n("navigational") >= 35, "{kinds}");
    // Measured 0.792 (navigational 0.930, questions 0.695); 0.752 before bare sections
    // gave their place to their relatives with text (format 1.12).
    assert!(v["ndcg@10"].as_f64().unwrap() >= 0.77, "{v}");
    assert!(
        kinds["navigational"]["ndcg@10"].as_f64().unwrap() >= 0.90,
        "{kinds}"
    );
    // A TREC run file of each query's first results, scored, best first; asking for it
    // deepens the search but must not change the first ten.
    let tmp = tempfile::tempdir().unwrap();
    let run_file = tmp.path().join("keyword.run");
    let o = bin()
        .arg("eval")
        .arg(&set)
        .arg("--docs")
        .arg(shared.join("corpora/rust-book"))
        .args(["--mode", "keyword", "--json", "--run"])
        .arg(&run_file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let with_run: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(with_run["ndcg@10"], v["ndcg@10"]);
    let text = std::fs::read_to_string(&run_file).unwrap();
    let mut per_query: std::collections::BTreeMap<&str, Vec<(usize, f32)>> = Default::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 6, "{line}");
        assert_eq!((f[1], f[5]), ("Q0", "Keyword"), "{line}");
        assert!(f[2].ends_with(".md") || f[2].contains(".md#"), "{line}");
        per_query
            .entry(f[0])
            .or_default()
            .push((f[3].parse().unwrap(), f[4].parse().unwrap()));
    }
    assert_eq!(per_query.len() as u64, v["queries"].as_u64().unwrap());
    assert!(
        per_query.values().any(|rows| rows.len() > 10),
        "no deeper than ten"
    );
    for (q, rows) in &per_query {
        assert!(rows.len() <= 100, "{q}: {}", rows.len());
        assert!(rows.iter().enumerate().all(|(i, r)| r.0 == i + 1), "{q}");
        assert!(rows.windows(2).all(|w| w[0].1 >= w[1].1), "{q}: {rows:?}");
    }
    // A judged section the corpus does not have is an error, not a silent miss.
    let bad = tmp.path().join("bad.tsv");
    std::fs::write(
        &bad,
        "query-id\tcorpus-id\tscore\nn01\tch04-01-what-is-ownership.md#no-such-anchor\t2\n",
    )
    .unwrap();
    let o = bin()
        .arg("eval")
        .arg(&set)
        .arg("--docs")
        .arg(shared.join("corpora/rust-book"))
        .arg("--qrels")
        .arg(&bad)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("#no-such-anchor") && err.contains("not in"),
        "{err}"
    );
}

/// Vue's docs in French with the vue-docs-ja set's queries written in French
/// (bench/questions/vue-docs-fr; corpus in bench/multilingual/data): the build tells the
/// pages are French (no flag) and reads them by French rules; `--lang en` reads them by the
/// English rules instead, `--ungrouped` ranks the sections one by one (as bm25s does in
/// bench/multilingual/run.py).
#[test]
fn french_docs_are_read_by_french_rules_and_measured_grouped_and_not() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = tempfile::tempdir().unwrap();
    let untar = std::process::Command::new("tar")
        .arg("-xzf")
        .arg(root.join("bench/multilingual/data/vue-docs-fr.tar.gz"))
        .arg("-C")
        .arg(tmp.path())
        .status()
        .expect("tar is needed to unpack the French docs");
    assert!(untar.success());
    let run = |extra: &[&str]| -> serde_json::Value {
        let o = bin()
            .arg("eval")
            .arg(root.join("bench/questions/vue-docs-fr"))
            .arg("--docs")
            .arg(tmp.path().join("vue-docs-fr"))
            .args(["--slug", "vitepress", "--mode", "keyword", "--json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let french = run(&[]);
    let english = run(&["--lang", "en"]);
    let ungrouped = run(&["--ungrouped"]);
    eprintln!("vue-docs-fr: french {french}\nenglish {english}\nungrouped {ungrouped}");
    let ndcg = |v: &serde_json::Value| v["ndcg@10"].as_f64().unwrap();
    assert_eq!(french["queries"].as_u64(), Some(70));
    // Measured 0.540 (French rules), 0.528 (English rules), 0.553 (ungrouped). bm25s ranks
    // the same sections by the same rules at 0.519 (npm run bench:languages): grouped as
    // visitors see them, Midashi must stay at or above it (#25).
    assert!(ndcg(&french) >= 0.519, "{french}");
    assert_ne!(
        ndcg(&french),
        ndcg(&english),
        "--lang en read the pages by the same rules"
    );
    assert!(ndcg(&ungrouped) >= 0.52, "{ungrouped}");
}
