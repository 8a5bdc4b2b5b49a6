//! What travels with the tool, and where it is found: the widget's built files (for
//! `--site`) and the default embedding model. Both are looked for beside the executable
//! (a checkout's `target/<profile>/`, the npm package's `native/<platform>/`) and in the
//! user's cache, never in the working directory: a build started from another folder must
//! find the same things, and a stray `models/` folder where it happens to run must not
//! change what it builds.

use std::path::{Path, PathBuf};

/// The default model's folder name (written by scripts/fetch-model.sh).
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";

/// The default model for docs in a language [`MODEL_NAME`] does not cover (written by
/// scripts/fetch-e5.sh): multilingual-e5-small. Not the default for everything: it is five
/// times the bytes and three times the encode time of MiniLM, and on English docs no better
/// (see docs/models.md).
pub const MULTILINGUAL_MODEL_NAME: &str = "multilingual-e5-small";

/// The folder of the running executable.
fn exe_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    // npm's bin links and cargo's symlinks point at the real file: its folder is what counts.
    let exe = exe.canonicalize().unwrap_or(exe);
    exe.parent().map(Path::to_path_buf)
}

/// The user's cache folder for Midashi: `$MIDASHI_CACHE_DIR`, else `~/.cache/midashi`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("MIDASHI_CACHE_DIR") {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".cache").join("midashi")
}

/// Where the default model may be, in order: `$MIDASHI_MODEL`, `models/<name>` beside the
/// executable or up to two folders above it (a checkout's `target/release/`), `<dir>/<name>`
/// for each folder of `$MIDASHI_MODEL_PATH` (the npm wrapper lists the installed model
/// packages there), then `<cache>/models/<name>`.
pub fn model_candidates() -> Vec<PathBuf> {
    named_model_candidates(MODEL_NAME)
}

fn named_model_candidates(name: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(d) = std::env::var_os("MIDASHI_MODEL") {
        out.push(PathBuf::from(d));
    }
    if let Some(exe) = exe_dir() {
        for up in exe.ancestors().take(3) {
            out.push(up.join("models").join(name));
        }
    }
    if let Some(list) = std::env::var_os("MIDASHI_MODEL_PATH") {
        // Absolute folders only: an empty or relative entry would look in the working directory.
        out.extend(
            std::env::split_paths(&list)
                .filter(|dir| dir.is_absolute())
                .map(|dir| dir.join(name)),
        );
    }
    out.push(cache_dir().join("models").join(name));
    out
}

/// The multilingual default model's folder, found as [`default_model`] finds MiniLM's; none
/// when `$MIDASHI_MODEL` is set (then that folder is the only model).
pub fn multilingual_model() -> Option<PathBuf> {
    if std::env::var_os("MIDASHI_MODEL").is_some() {
        return None;
    }
    named_model_candidates(MULTILINGUAL_MODEL_NAME)
        .into_iter()
        .find(|d| d.join("midashi-model.json").is_file())
}

/// The default model folder, if one of [`model_candidates`] holds one. `$MIDASHI_MODEL`, when
/// set, is the only place looked in (set it to a missing folder for no default model).
pub fn default_model() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("MIDASHI_MODEL") {
        let d = PathBuf::from(d);
        return d.join("midashi-model.json").is_file().then_some(d);
    }
    model_candidates()
        .into_iter()
        .find(|d| d.join("midashi-model.json").is_file())
}

/// Where the widget's built files may be, in order: `$MIDASHI_ASSETS`, the npm package's
/// `dist/` (the executable is in `<package>/native/<platform>/`), a checkout's `web/dist`
/// (the executable is in `target/<profile>/`).
pub fn assets_candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(d) = std::env::var_os("MIDASHI_ASSETS") {
        out.push(PathBuf::from(d));
    }
    if let Some(exe) = exe_dir() {
        for up in exe.ancestors().take(4) {
            out.push(up.join("dist"));
            out.push(up.join("web").join("dist"));
        }
    }
    out
}

/// The widget's files, if one of [`assets_candidates`] holds them.
pub fn default_assets() -> Option<PathBuf> {
    assets_candidates()
        .into_iter()
        .find(|d| d.join("bundle").join("midashi.js").is_file())
}

/// The places looked in, for a message.
pub fn listed(places: &[PathBuf]) -> String {
    places
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
