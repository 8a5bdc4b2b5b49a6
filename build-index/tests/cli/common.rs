//! What the integration tests share: the binary under test and how to run it.

#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `build-index` binary cargo built for these tests.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_build-index"))
}

/// Runs `cmd`; whatever it exits with, it must not have panicked.
pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("build-index runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    out
}

/// Runs `cmd`, which must succeed.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = run(cmd);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The embedding model's folder, or `None` (skip) when it is absent and not required:
/// MIDASHI_REQUIRE_SEMANTIC=1 (scripts/test.sh sets it) makes a missing model a failure.
pub fn model() -> Option<PathBuf> {
    let dir = std::env::var_os("MIDASHI_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("models/all-MiniLM-L6-v2"));
    if dir.join("model.onnx").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var("MIDASHI_REQUIRE_SEMANTIC").as_deref() != Ok("1"),
        "{} has no model.onnx: run scripts/fetch-model.sh",
        dir.display()
    );
    eprintln!(
        "skipped: no model at {} (run scripts/fetch-model.sh)",
        dir.display()
    );
    None
}

/// `build-index <docs> --out <out> --model <model> --cache-dir <cache>`, to add to and run.
pub fn model_build(docs: &Path, out: &Path, model: &Path, cache: &Path) -> Command {
    let mut cmd = bin();
    cmd.arg(docs)
        .arg("--out")
        .arg(out)
        .arg("--model")
        .arg(model)
        .arg("--cache-dir")
        .arg(cache);
    cmd
}

/// The embedding cache of this repository's docs/ (kept with the target dir), filled once:
/// the tests that build docs/ with the model read its vectors and its prepared model instead
/// of each encoding and preparing them afresh (25 s a cold build). Builds after the first only
/// read it (a cache is written only when something was encoded), so they may run at once.
pub fn docs_cache(model: &Path) -> PathBuf {
    static WARM: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    WARM.get_or_init(|| {
        let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("embed-cache");
        let tmp = tempfile::tempdir().unwrap();
        run_ok(
            model_build(
                &root().join("docs"),
                &tmp.path().join("docs"),
                model,
                &cache,
            )
            .arg("--quiet"),
        );
        cache
    })
    .clone()
}

/// The ids of a `search --json` answer's results, in order.
pub fn result_ids(v: &serde_json::Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_string())
        .collect()
}
