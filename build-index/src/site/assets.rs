//! The files a site needs besides its pages: the widget (built by `npm run build:widget`
//! into `web/dist/`), the file:// bundle of index + wasm, and the site's stylesheet.

use super::escape::base64;
use crate::error::{CliError, Result};
use crate::output::write_atomic;
use midashi_core::format::entry::ENTRY_FILE_NAME;
use midashi_core::format::Manifest;
use std::fs;
use std::path::{Path, PathBuf};

/// The wasm modules (web/wasm-modules.json, the package's one list of them).
const MODULES_JSON: &str = include_str!("../../../web/wasm-modules.json");

/// The path under the assets folder, without `_bg.wasm` / `.js`, of the module named `name`
/// in [`MODULES_JSON`].
fn module_out(name: &str) -> String {
    let modules: serde_json::Value =
        serde_json::from_str(MODULES_JSON).expect("web/wasm-modules.json is JSON");
    modules["modules"]
        .as_array()
        .and_then(|all| all.iter().find(|m| m["name"] == name))
        .and_then(|m| m["out"].as_str())
        .unwrap_or_else(|| panic!("web/wasm-modules.json names no module {name}"))
        .to_string()
}

/// A module's glue and wasm file, from the assets folder to `search/` under `as_name`'s
/// names (the keyword-languages module is served as the keyword module).
fn module_files(name: &str, as_name: &str) -> Vec<(String, String)> {
    let (from, to) = (module_out(name), module_out(as_name));
    vec![
        (format!("{from}.js"), format!("{to}.js")),
        (format!("{from}_bg.wasm"), format!("{to}_bg.wasm")),
    ]
}

/// Widget files, from the assets folder (web/dist) to `search/` of the site.
const WIDGET_FILES: &[(&str, &str)] = &[
    ("bundle/midashi.js", "midashi.js"),
    ("bundle/worker.js", "worker.js"),
    // The WebMCP tools, which midashi.js imports from beside itself in a browser that has WebMCP.
    ("bundle/webmcp.js", "webmcp.js"),
    ("bundle/midashi-file.js", "midashi-file.js"),
];

/// The modules every site gets: the keyword module, what the widget loads first; the full
/// engine, fetched when a query needs more (see web/wasm-modules.json).
const SITE_MODULES: &[&str] = &["keyword", "full"];

/// The semantic module and its worker (built by `scripts/build-wasm-embed.sh` and
/// `npm run build:widget`): copied when the index has vectors, so that the site's widget
/// answers hybrid queries once they have loaded.
fn semantic_files() -> Vec<(String, String)> {
    let mut files = vec![("bundle/embed-worker.js".into(), "embed-worker.js".into())];
    files.extend(module_files("semantic", "semantic"));
    files
}

/// Whether an index's queries need a stemmer besides English's (see
/// `midashi_core::analyzer::Language`).
pub fn needs_languages(manifest: &Manifest) -> bool {
    !manifest.languages.is_empty()
}

/// Whether the assets folder has every one of these files (optional modules are used only
/// when they have been built).
fn built(assets_dir: &Path, files: &[(String, String)]) -> bool {
    files
        .iter()
        .all(|(from, _)| assets_dir.join(from).is_file())
}

/// Every file a site gets whatever its index: the widget's and its modules'.
fn site_files() -> Vec<(String, String)> {
    let widget = WIDGET_FILES
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()));
    let modules = SITE_MODULES.iter().flat_map(|m| module_files(m, m));
    widget.chain(modules).collect()
}

/// Where the widget's files are when `--assets` is not given: beside the tool (the npm
/// package's `dist/`, a checkout's `web/dist`), found by `crate::locate`; an error lists
/// the places looked in.
pub fn default_assets_dir() -> Result<PathBuf> {
    crate::locate::default_assets().ok_or_else(|| {
        CliError::Usage(format!(
            "the widget's built files (bundle/midashi.js and wasm/) were not found beside \
             build-index (looked in {}). In a checkout, build them with \
             `scripts/build-wasm.sh release && npm run build:widget`; or pass --assets <folder>",
            crate::locate::listed(&crate::locate::assets_candidates())
        ))
    })
}

/// Checks that every widget file is there; the error lists what is missing and how to build it.
pub fn check(assets_dir: &Path) -> Result<()> {
    let missing: Vec<String> = site_files()
        .iter()
        .map(|(from, _)| assets_dir.join(from))
        .filter(|p| !p.is_file())
        .map(|p| p.display().to_string())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(CliError::Usage(format!(
        "--site needs the widget's built files, and these are missing: {}. Build them with \
         `scripts/build-wasm.sh release && npm run build:widget` in the repository (or pass \
         --assets <folder with bundle/ and wasm/>)",
        missing.join(", ")
    )))
}

/// Copies the widget into `search_dir`, its keyword module the languages one when the
/// index's pages need a stemmer besides English's (`languages`) and the assets have it
/// (else the English one, which hands such pages' queries to the full engine).
pub fn copy_widget(assets_dir: &Path, search_dir: &Path, languages: bool) -> Result<u64> {
    let mut files = site_files();
    let languages_module = module_files("keyword-languages", "keyword");
    if languages && built(assets_dir, &languages_module) {
        files.retain(|(_, to)| languages_module.iter().all(|(_, t)| t != to));
        files.extend(languages_module);
    }
    Ok(copy_files(assets_dir, search_dir, &files)? + copy_translations(assets_dir, search_dir)?)
}

/// The widget's words in languages other than English and Japanese (`bundle/strings/<tag>.js`,
/// which midashi.js imports from beside itself when the page is in that language): every
/// one there is, so that adding a translation needs no change here. Assets without the
/// folder (built before the split) copy none; their midashi.js carries every language.
fn copy_translations(assets_dir: &Path, search_dir: &Path) -> Result<u64> {
    let dir = assets_dir.join(TRANSLATIONS);
    let Ok(entries) = fs::read_dir(&dir) else {
        return Ok(0);
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".js"))
        .collect();
    names.sort();
    let files: Vec<(String, String)> = names
        .iter()
        .map(|n| (format!("{TRANSLATIONS}/{n}"), format!("strings/{n}")))
        .collect();
    copy_files(assets_dir, search_dir, &files)
}

/// Where [`copy_translations`] finds the translations, in the assets folder.
const TRANSLATIONS: &str = "bundle/strings";

/// Copies the semantic module into `search_dir`; `Ok(None)` (and nothing copied) when it has
/// not been built, so the site stays keyword-only.
pub fn copy_semantic(assets_dir: &Path, search_dir: &Path) -> Result<Option<u64>> {
    let files = semantic_files();
    if !built(assets_dir, &files) {
        return Ok(None);
    }
    copy_files(assets_dir, search_dir, &files).map(Some)
}

fn copy_files(assets_dir: &Path, search_dir: &Path, files: &[(String, String)]) -> Result<u64> {
    let mut bytes = 0;
    for (from, to) in files {
        let src = assets_dir.join(from);
        let dst = search_dir.join(to);
        if let Some(parent) = dst.parent() {
            fs::create_dir_all(parent).map_err(CliError::io(parent))?;
        }
        let data = fs::read(&src).map_err(CliError::io(&src))?;
        bytes += data.len() as u64;
        write_atomic(&dst, &data)?;
    }
    Ok(bytes)
}

/// The classic script that carries the index and the wasm module into a page opened from
/// file:// (where fetch is refused): `globalThis.MIDASHI_INLINE = { files, wasm }`, base64.
/// Only what keyword search needs is inlined; the vectors stay out.
pub fn inline_script(index_files: &[(String, Vec<u8>)], assets_dir: &Path) -> Result<String> {
    let entry = index_files
        .iter()
        .find(|(n, _)| n == ENTRY_FILE_NAME)
        .map(|(_, b)| b)
        .ok_or_else(|| CliError::Usage(format!("the index has no {ENTRY_FILE_NAME}")))?;
    let manifest = Manifest::decode(entry)?;
    let needed: Vec<&str> = manifest
        .files
        .iter()
        .filter(|f| f.needed_for_keyword)
        .map(|f| f.name.as_str())
        .collect();
    // The full engine: it opens the single-file copy a page from file:// is given, in any
    // language (the keyword module opens sharded indexes only).
    let wasm_path = assets_dir.join(format!("{}_bg.wasm", module_out("full")));
    let wasm = fs::read(&wasm_path).map_err(CliError::io(&wasm_path))?;
    let mut files = serde_json::Map::new();
    for (name, bytes) in index_files {
        if name == ENTRY_FILE_NAME || needed.contains(&name.as_str()) {
            files.insert(name.clone(), serde_json::Value::String(base64(bytes)));
        }
    }
    let data = serde_json::json!({ "files": files, "wasm": base64(&wasm) });
    Ok(format!(
        "// Generated by build-index --site: the search index and engine for pages opened from file://.\n\
         globalThis.MIDASHI_INLINE = {data};\n"
    ))
}

/// The site's stylesheet: light and dark (`prefers-color-scheme`, or `data-theme` on
/// `<html>` set by the theme button).
pub const SITE_CSS: &str = r#":root {
  --bg: #ffffff; --fg: #1f2328; --muted: #57606a; --border: #d0d7de; --accent: #0550ae;
  --code-bg: #f6f8fa; --side-bg: #f6f8fa; --current-bg: #ddf4ff;
  color-scheme: light;
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9ea7b3; --border: #30363d; --accent: #79c0ff;
    --code-bg: #161b22; --side-bg: #010409; --current-bg: #1f3a5f; color-scheme: dark;
  }
}
:root[data-theme="dark"] {
  --bg: #0d1117; --fg: #e6edf3; --muted: #9ea7b3; --border: #30363d; --accent: #79c0ff;
  --code-bg: #161b22; --side-bg: #010409; --current-bg: #1f3a5f; color-scheme: dark;
}
* { box-sizing: border-box; }
html { scroll-padding-top: 4.5rem; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.65 system-ui, -apple-system, "Segoe UI", "Hiragino Sans", "Noto Sans JP", sans-serif;
}
a { color: var(--accent); }
.skip { position: absolute; left: -9999px; top: 0; }
.skip:focus { left: 1rem; top: 1rem; z-index: 2000; background: var(--bg); padding: 0.5rem; }
.top {
  position: sticky; top: 0; z-index: 10; display: flex; align-items: center; gap: 1rem;
  padding: 0.6rem 1.25rem; background: var(--bg); border-bottom: 1px solid var(--border);
}
.brand { font-weight: 700; font-size: 1.1rem; color: var(--fg); text-decoration: none; }
.top .spacer { flex: 1; }
.theme-toggle {
  font: inherit; font-size: 0.85rem; color: var(--fg); background: var(--side-bg);
  border: 1px solid var(--border); border-radius: 6px; padding: 0.3rem 0.6rem; cursor: pointer;
}
.layout { display: grid; grid-template-columns: 17rem minmax(0, 1fr); min-height: calc(100vh - 3.5rem); }
.sidebar {
  background: var(--side-bg); border-right: 1px solid var(--border);
  padding: 1rem 0.75rem; font-size: 0.92rem; position: sticky; top: 3.5rem;
  height: calc(100vh - 3.5rem); overflow-y: auto;
}
.sidebar ul { list-style: none; margin: 0; padding-left: 0.75rem; }
.sidebar ul.nav { padding-left: 0; }
.sidebar li { margin: 0.1rem 0; }
.sidebar a { display: block; padding: 0.15rem 0.5rem; border-radius: 5px; color: var(--fg); text-decoration: none; }
.sidebar a:hover { text-decoration: underline; }
.sidebar a[aria-current="page"] { background: var(--current-bg); font-weight: 600; }
.sidebar summary { cursor: pointer; padding: 0.25rem 0.25rem; font-weight: 600; color: var(--fg); }
.content { padding: 1.5rem 2.5rem 4rem; max-width: 52rem; }
.crumbs { font-size: 0.85rem; color: var(--muted); margin: 0 0 0.5rem; }
.crumbs ol { list-style: none; display: flex; flex-wrap: wrap; gap: 0.35rem; margin: 0; padding: 0; }
.crumbs li + li::before { content: "›"; margin-right: 0.35rem; }
h1, h2, h3, h4, h5, h6 { line-height: 1.3; margin: 1.8em 0 0.6em; }
h1 { margin-top: 0.3em; font-size: 2rem; }
h2 { border-bottom: 1px solid var(--border); padding-bottom: 0.2em; }
:target { scroll-margin-top: 4.5rem; }
h1:target, h2:target, h3:target, h4:target, h5:target, h6:target { background: var(--current-bg); }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9em; }
:not(pre) > code { background: var(--code-bg); padding: 0.1em 0.35em; border-radius: 4px; }
pre { background: var(--code-bg); border: 1px solid var(--border); border-radius: 6px; padding: 0.8rem 1rem; line-height: 1.45; white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--border); padding: 0.35rem 0.7rem; text-align: left; }
blockquote { margin: 1em 0; padding: 0 1em; color: var(--muted); border-left: 0.25em solid var(--border); }
img { max-width: 100%; height: auto; }
.page-list { columns: 2 16rem; }
footer.site { color: var(--muted); font-size: 0.8rem; margin-top: 3rem; border-top: 1px solid var(--border); padding-top: 0.8rem; }
@media (max-width: 48rem) {
  .layout { grid-template-columns: 1fr; }
  /* Above the content, but never a screenful of links before it (it was ~1,450 px on a
     phone): it scrolls within a third of the screen. */
  .sidebar { position: static; height: auto; max-height: 33vh; border-right: 0; border-bottom: 1px solid var(--border); }
  .content { padding: 1rem; }
}
"#;

#[cfg(test)]
mod tests {
    use super::{module_files, module_out, semantic_files, site_files};

    #[test]
    fn the_site_writer_finds_its_modules_in_the_manifest() {
        assert_eq!(module_out("keyword"), "wasm/midashi_keyword");
        assert_eq!(module_out("full"), "wasm/midashi_wasm");
        // The languages module is served under the keyword module's names.
        let served = module_files("keyword-languages", "keyword");
        assert_eq!(served[1].0, "wasm/languages/midashi_keyword_bg.wasm");
        assert_eq!(served[1].1, "wasm/midashi_keyword_bg.wasm");
        assert!(site_files()
            .iter()
            .any(|(from, _)| from == "wasm/midashi_wasm_bg.wasm"));
        assert!(semantic_files()
            .iter()
            .any(|(from, _)| from == "embed/midashi_wasm_embed_bg.wasm"));
    }
}
