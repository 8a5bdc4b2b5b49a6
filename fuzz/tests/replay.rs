//! Every committed input of the fuzz targets — the hand-made seeds, the regressions, and the
//! corpora long `scripts/fuzz.sh` runs grew — through the targets' bodies, in the normal test
//! run: what fuzzing found stays fixed, and CI needs no fuzzing toolchain. A panic fails.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// The files of `dir`, sorted (none if it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn replay(target: &str, run: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds = files(&root.join("seeds").join(target));
    assert!(!seeds.is_empty(), "fuzz/seeds/{target} has no inputs");
    let regressions = files(&root.join("regressions")).into_iter().filter(|p| {
        p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("{target}-"))
    });
    let corpus = files(&root.join("corpus").join(target));
    let mut failed = Vec::new();
    let inputs: Vec<PathBuf> = seeds.into_iter().chain(regressions).chain(corpus).collect();
    for path in &inputs {
        let bytes = fs::read(path).unwrap();
        if catch_unwind(AssertUnwindSafe(|| run(&bytes))).is_err() {
            failed.push(path.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{target}: {} of {} inputs panic (reproduce one with `RUSTC_BOOTSTRAP=1 cargo fuzz run {target} <file> --features libfuzzer` in fuzz/): {failed:?}",
        failed.len(),
        inputs.len()
    );
}

#[test]
fn load_index_inputs() {
    replay("load_index", midashi_fuzz::targets::load_index);
}

#[test]
fn load_sharded_inputs() {
    replay("load_sharded", midashi_fuzz::targets::load_sharded);
}

#[test]
fn query_inputs() {
    replay("query", midashi_fuzz::targets::query);
}

#[test]
fn markdown_inputs() {
    replay("markdown", midashi_fuzz::targets::markdown);
}
