//! The wasm-bindgen face of midashi-core: what the `midashi` npm package calls.
//!
//! Deliberately thin. Every decision about bytes, terms, scores, grouping and previews is
//! made by midashi-core, so the browser returns exactly what `build-index search --json`
//! prints for the same index and query. This crate only converts:
//! - bytes in (`&[u8]` from `Uint8Array`), plain JS objects out, the CLI's JSON as objects
//!   (`None` is `null`, field names are snake_case), written field by field ([`values`]);
//! - search options in, from a camelCase JS object into the core's `SearchOptions`, read
//!   field by field ([`options`]; an unknown option is refused as the core refuses it);
//! - core errors out, as JS `Error` objects with a `code` property ([`Error::code`]).
//!
//! The modules built from this crate are web/wasm-modules.json's: the *keyword module*
//! (features `bounded`, `memo`, `semantic`, `typos`), which opens only sharded indexes, reads
//! no bundles or HNSW graphs and has no lookups, and whose semantic leg
//! serves an index with a static table — what every page's first query loads; the same with
//! `languages` and without `semantic`; and the *full engine* (the default features). A request
//! the keyword module cannot answer says `needs.full_engine`. `version()` says which engine
//! is loaded (`engine`).
//!
//! Requests that read files (`search`, `suggest`, `getSection`, `getDocument`) answer
//! `{ answer, needs }` (midashi-core's `search::needs::Step`): what they still need is a
//! value, never an error.
//!
//! A Rust panic traps, and the JS side turns the trap into an `INTERNAL` error and
//! re-instantiates the module (the instance is not safe to reuse after a trap). The panic hook
//! logs the message first in dev builds and the full engine; a release of the size-built
//! keyword modules traps at once, without the message, since formatting it costs every
//! visitor's first query ~5 KB gzip (scripts/build-wasm.sh).

use midashi_core::format::{Manifest, FORMAT_MAJOR, FORMAT_MINOR};
use midashi_core::{Error, SearchIndex};
use wasm_bindgen::prelude::*;

pub mod options;
#[cfg(feature = "full")]
mod quoting;
pub mod read;
pub mod values;
#[cfg(feature = "full")]
pub use quoting::{quote_search, quote_section, section_markdown};

use values::{Out, ToOut};

/// Talc instead of the default dlmalloc: less code in the module every first query
/// downloads, and faster.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Installs the panic hook once, when the module is instantiated, so even a panic during the
/// first `open` is logged with its message.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The JS error for a core error: `message` says what to do, `code` is stable for programs.
fn js_error(code: &str, message: &str) -> JsValue {
    let err = js_sys::Error::new(message);
    err.set_name("MidashiError");
    // Setting a property on a fresh Error object cannot fail; if it somehow did, the error
    // still carries its message, and the JS side maps a missing code to INTERNAL.
    let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(code));
    err.into()
}

fn core_error(e: Error) -> JsValue {
    js_error(e.code(), &e.to_string())
}

/// A core value as the JS object the CLI's `--json` prints.
fn to_js<T: ToOut + ?Sized>(value: &T) -> JsValue {
    value.to_out()
}

/// Versions of this module, for the JS side's check that the `.wasm` it loaded is the one
/// its glue and code were built with (a stale cached `.wasm` is a classic deployment bug).
struct VersionInfo {
    /// The crate version (the workspace version, equal to the npm package's).
    version: &'static str,
    /// The index format major this engine reads.
    format_major: u16,
    /// The index format minor this engine writes.
    format_minor: u16,
    /// `"full"`, or `"keyword"` for the module built without feature `full`.
    engine: &'static str,
}

/// Which module this is (see the crate docs).
const ENGINE: &str = if cfg!(feature = "full") {
    "full"
} else {
    "keyword"
};

impl ToOut for VersionInfo {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            ("version", self.version.to_out()),
            ("formatMajor", self.format_major.to_out()),
            ("formatMinor", self.format_minor.to_out()),
            ("engine", self.engine.to_out()),
        ])
    }
}

/// `{ version, formatMajor, formatMinor, engine }` of this module.
#[wasm_bindgen]
pub fn version() -> JsValue {
    to_js(&VersionInfo {
        version: env!("CARGO_PKG_VERSION"),
        format_major: FORMAT_MAJOR,
        format_minor: FORMAT_MINOR,
        engine: ENGINE,
    })
}

/// Decodes an entry file (`midashi-entry.bin`) into its manifest: which files the index has
/// and which of them keyword search needs (`needed_for_keyword`). Called before anything
/// else is fetched, so a wrong URL or an index of another format fails after one request.
#[wasm_bindgen(js_name = readManifest)]
pub fn read_manifest(entry: &[u8]) -> Result<JsValue, JsValue> {
    let manifest = Manifest::decode(entry).map_err(core_error)?;
    Ok(to_js(&manifest))
}

/// Panics on purpose. Exists only so the JS tests can prove that a trap inside the module
/// becomes an `INTERNAL` error and a fresh instance, not a dead search box.
#[wasm_bindgen(js_name = __panicForTests)]
pub fn panic_for_tests() {
    panic!("midashi-wasm: panic requested by a test");
}

/// A loaded index.
#[wasm_bindgen]
pub struct WasmIndex {
    inner: SearchIndex,
}

#[wasm_bindgen]
impl WasmIndex {
    /// Opens an index from its entry file and the two files keyword search needs (the
    /// manifest's `needed_for_keyword` files: terms and sections). Every file's header and
    /// checksum are verified here. (Not in the keyword modules: feature `whole`.)
    #[cfg(feature = "whole")]
    pub fn open(entry: &[u8], terms: &[u8], sections: &[u8]) -> Result<WasmIndex, JsValue> {
        let inner = SearchIndex::open(entry, terms, sections).map_err(core_error)?;
        Ok(WasmIndex { inner })
    }

    /// Opens a sharded index from its entry file and its directory file (the manifest's
    /// `needed_for_keyword` file of kind `Directory`). Requests then answer the files they
    /// need (`needs.files`) until those are attached ([`Self::attach_file`]); the JS host
    /// fetches and attaches them and asks again.
    #[wasm_bindgen(js_name = openSharded)]
    pub fn open_sharded(entry: &[u8], directory: &[u8]) -> Result<WasmIndex, JsValue> {
        let inner = SearchIndex::open_sharded(entry, directory, None).map_err(core_error)?;
        Ok(WasmIndex { inner })
    }

    /// Adds a file a request asked for (`needs.files`): a file of a sharded index, or the
    /// vectors and their graph of either layout.
    #[wasm_bindgen(js_name = attachFile)]
    pub fn attach_file(&mut self, name: &str, bytes: &[u8]) -> Result<(), JsValue> {
        self.inner.attach_file(name, bytes).map_err(core_error)
    }

    /// The files a sharded index has loaded (empty for a single file), in an order
    /// `attachFile` takes them in: the JS host attaches them to the same index in the full
    /// engine when it moves there, so the results shown stay known (lookups by id).
    #[wasm_bindgen(js_name = loadedFiles)]
    pub fn loaded_files(&self) -> JsValue {
        to_js(&self.inner.loaded_files())
    }

    /// Whether the index is sharded (loads files per query).
    #[wasm_bindgen(js_name = isSharded)]
    pub fn is_sharded(&self) -> bool {
        self.inner.is_sharded()
    }

    /// The manifest (as [`read_manifest`] returns it).
    pub fn manifest(&self) -> JsValue {
        to_js(self.inner.manifest())
    }

    /// Runs a query. `options` is a camelCase object of `SearchOptions` fields (missing
    /// fields take their defaults; `undefined`/`null` means all defaults). `query_vector` is
    /// the query's embedding for the semantic leg, from the semantic module; without it only
    /// keyword search runs. Returns `{ answer, needs }`: the answer `{ total, results,
    /// suggestions, mode }` with results as the core's `SearchHit`s, or `needs: { files,
    /// full_engine }` — the files to fetch and attach ([`Self::attach_file`]: shards, cards,
    /// bundles, the tree, vectors), or the full engine to move to — and then ask again.
    pub fn search(
        &self,
        query: &str,
        options: JsValue,
        query_vector: Option<Box<[f32]>>,
    ) -> Result<JsValue, JsValue> {
        let opts = options::search_options(&options)
            .map_err(|e| js_error("INVALID_OPTION", &format!("invalid search options: {e}")))?;
        let step = self
            .inner
            .search_step(query, &opts, query_vector.as_deref())
            .map_err(core_error)?;
        Ok(to_js(&step))
    }

    #[cfg(feature = "full")]
    /// Adds the vectors file (fetched lazily, when semantic search is first wanted).
    #[wasm_bindgen(js_name = attachVectors)]
    pub fn attach_vectors(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.inner.attach_vectors(bytes).map_err(core_error)
    }

    #[cfg(feature = "full")]
    /// Adds the HNSW graph file of a large index (after the vectors).
    #[wasm_bindgen(js_name = attachAnn)]
    pub fn attach_ann(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.inner.attach_ann(bytes).map_err(core_error)
    }

    /// Whether the index's model covers the query's language (midashi-core's
    /// `SearchIndex::semantic_covers`): an `auto` query it does not cover runs keyword-only,
    /// so the host neither loads the semantic module nor embeds the query for it.
    #[wasm_bindgen(js_name = semanticCovers)]
    pub fn semantic_covers(&self, query: &str) -> bool {
        self.inner.semantic_covers(query)
    }

    /// Why an `auto` query whose keyword answer holds `keyword_total` sections would gain
    /// from the semantic leg (`"question"`, `"weak"`), or `undefined`: midashi-core's
    /// `search::policy`, the one definition a browser host decides to fetch the leg by.
    #[wasm_bindgen(js_name = semanticReason)]
    pub fn semantic_reason(&self, query: &str, keyword_total: usize) -> Option<String> {
        midashi_core::search::policy::semantic_reason(query, keyword_total)
            .map(|r| r.as_str().to_string())
    }

    #[cfg(feature = "full")]
    /// Whether vectors are attached.
    #[wasm_bindgen(js_name = hasVectors)]
    pub fn has_vectors(&self) -> bool {
        self.inner.has_vectors()
    }

    #[cfg(feature = "full")]
    /// A section with its whole text, by id (16 hex digits) or by `path#anchor` (as
    /// `build-index get` accepts), as `{ answer, needs }`: `answer: null` and `needs: null`
    /// when there is no such section.
    #[wasm_bindgen(js_name = getSection)]
    pub fn get_section(&self, target: &str) -> Result<JsValue, JsValue> {
        let step = self.inner.section_step(target).map_err(core_error)?;
        Ok(to_js(&step))
    }

    #[cfg(feature = "full")]
    /// A document with its source and outline, by path, as `{ answer, needs }`.
    #[wasm_bindgen(js_name = getDocument)]
    pub fn get_document(&self, path: &str) -> Result<JsValue, JsValue> {
        let step = self.inner.document_step(path).map_err(core_error)?;
        Ok(to_js(&step))
    }

    /// Completions for the word being typed, most frequent first, as `{ answer, needs }`.
    pub fn suggest(&self, prefix: &str, limit: usize) -> Result<JsValue, JsValue> {
        let step = self.inner.suggest_step(prefix, limit).map_err(core_error)?;
        Ok(to_js(&step))
    }

    /// The versions of a versioned docs site, newest first (empty when it has fewer than
    /// two): what a version picker offers.
    pub fn versions(&self) -> JsValue {
        to_js(self.inner.versions())
    }

    /// Number of sections (for status lines and tests).
    #[wasm_bindgen(js_name = sectionCount)]
    pub fn section_count(&self) -> usize {
        self.inner.section_count()
    }
}
