//! What the integration tests share: the binary under test and how to run it.

#![allow(dead_code)] // each test file uses a part

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
