//! The wasm-bindgen face of midashi-core: what the `midashi` npm package calls.
//!
//! Deliberately thin. Every decision about bytes, terms, scores, grouping and previews is
//! made by midashi-core, so the browser returns exactly what `build-index search --json`
//! prints for the same index and query. This crate only converts:
//! - bytes in (`&[u8]` from `Uint8Array`), plain JS objects out (serde-wasm-bindgen in its
//!   JSON-compatible mode, so `None` is `null` and field names are the CLI's snake_case);
//! - search options in, from a camelCase JS object into [`SearchOptions`] (the core type, so
//!   an unknown option is refused here exactly as the core would refuse it);
//! - core errors out, as JS `Error` objects with a `code` property ([`Error::code`]).
//!
//! A Rust panic must never reach JS as an opaque `unreachable`: the panic hook logs the
//! message first, and the JS side turns the resulting trap into an `INTERNAL` error and
//! re-instantiates the module (the instance is not safe to reuse after a trap).

use midashi_core::format::{Manifest, FORMAT_MAJOR, FORMAT_MINOR};
use midashi_core::section::SectionId;
use midashi_core::{Error, SearchIndex, SearchOptions};
use serde::de::{self, Deserialize, Visitor};
use serde::Serialize;
use wasm_bindgen::prelude::*;

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
    let err = js_error(e.code(), &e.to_string());
    // A sharded index's "fetch these first": the loader reads the names from `files`.
    if let Error::NeedsFiles(files) = &e {
        let list: js_sys::Array = files.iter().map(|f| JsValue::from_str(f)).collect();
        let _ = js_sys::Reflect::set(&err, &JsValue::from_str("files"), &list);
    }
    err
}

/// Serialises a core value the way the CLI's `--json` prints it: objects, not `Map`s, and
/// `null` for a missing value.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| js_error("INTERNAL", &format!("cannot convert a result to JS: {e}")))
}

/// Versions of this module, for the JS side's check that the `.wasm` it loaded is the one
/// its glue and code were built with (a stale cached `.wasm` is a classic deployment bug).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VersionInfo {
    /// The crate version (the workspace version, equal to the npm package's).
    version: &'static str,
    /// The index format major this engine reads.
    format_major: u16,
    /// The index format minor this engine writes.
    format_minor: u16,
}

/// `{ version, formatMajor, formatMinor }` of this module.
#[wasm_bindgen]
pub fn version() -> Result<JsValue, JsValue> {
    to_js(&VersionInfo {
        version: env!("CARGO_PKG_VERSION"),
        format_major: FORMAT_MAJOR,
        format_minor: FORMAT_MINOR,
    })
}

/// Decodes an entry file (`midashi-entry.bin`) into its manifest: which files the index has
/// and which of them keyword search needs (`needed_for_keyword`). Called before anything
/// else is fetched, so a wrong URL or an index of another format fails after one request.
#[wasm_bindgen(js_name = readManifest)]
pub fn read_manifest(entry: &[u8]) -> Result<JsValue, JsValue> {
    let manifest = Manifest::decode(entry).map_err(core_error)?;
    to_js(&manifest)
}

/// Panics on purpose. Exists only so the JS tests can prove that a trap inside the module
/// becomes an `INTERNAL` error and a fresh instance, not a dead search box.
#[wasm_bindgen(js_name = __panicForTests)]
pub fn panic_for_tests() {
    panic!("midashi-wasm: panic requested by a test");
}

/// The serialised field names of a struct, as its `Deserialize` impl announces them to
/// `deserialize_struct` (camelCase for [`SearchOptions`]): a deserializer that only records
/// them. Keeps the list in one place, the core's type.
fn struct_fields<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    struct Fields<'a>(&'a mut &'static [&'static str]);
    impl<'de> de::Deserializer<'de> for Fields<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("fields recorded"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Fields(&mut fields));
    fields
}

/// serde-wasm-bindgen reads a struct by looking up its known fields, so it would silently
/// ignore a misspelt option that the core's `deny_unknown_fields` refuses (and the CLI never
/// sends). Refusing it here keeps `{ limt: 5 }` from quietly meaning "limit 10".
fn refuse_unknown_options(options: &JsValue) -> Result<(), JsValue> {
    if !options.is_object() || js_sys::Array::is_array(options) {
        return Err(js_error(
            "INVALID_OPTION",
            "invalid search options: expected an object such as { limit: 10 }",
        ));
    }
    let known = struct_fields::<SearchOptions>();
    for key in js_sys::Object::keys(options.unchecked_ref::<js_sys::Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        if !known.contains(&key.as_str()) {
            return Err(js_error(
                "INVALID_OPTION",
                &format!(
                    "invalid search options: unknown option `{key}`; the options are {}",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(())
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
    /// checksum are verified here.
    pub fn open(entry: &[u8], terms: &[u8], sections: &[u8]) -> Result<WasmIndex, JsValue> {
        let inner = SearchIndex::open(entry, terms, sections).map_err(core_error)?;
        Ok(WasmIndex { inner })
    }

    /// Opens a sharded index from its entry file and its directory file (the manifest's
    /// `needed_for_keyword` file of kind `Directory`). Queries then fail with code
    /// `NEEDS_FILES` and a `files` list until those files are attached ([`Self::attach_file`]);
    /// the JS loader fetches and attaches them and asks again.
    #[wasm_bindgen(js_name = openSharded)]
    pub fn open_sharded(entry: &[u8], directory: &[u8]) -> Result<WasmIndex, JsValue> {
        let inner = SearchIndex::open_sharded(entry, directory, None).map_err(core_error)?;
        Ok(WasmIndex { inner })
    }

    /// Adds a file of a sharded index that a query asked for.
    #[wasm_bindgen(js_name = attachFile)]
    pub fn attach_file(&mut self, name: &str, bytes: &[u8]) -> Result<(), JsValue> {
        self.inner.attach_file(name, bytes).map_err(core_error)
    }

    /// Whether the index is sharded (loads files per query).
    #[wasm_bindgen(js_name = isSharded)]
    pub fn is_sharded(&self) -> bool {
        self.inner.is_sharded()
    }

    /// The manifest (as [`read_manifest`] returns it).
    pub fn manifest(&self) -> Result<JsValue, JsValue> {
        to_js(self.inner.manifest())
    }

    /// Runs a query. `options` is a camelCase object of [`SearchOptions`] fields (missing
    /// fields take their defaults; `undefined`/`null` means all defaults). `query_vector` is
    /// the query's embedding for the semantic leg, from the semantic module; without it only
    /// keyword search runs. Returns `{ total, results, suggestions, mode }` with results as
    /// the core's `SearchHit`s.
    pub fn search(
        &self,
        query: &str,
        options: JsValue,
        query_vector: Option<Box<[f32]>>,
    ) -> Result<JsValue, JsValue> {
        let opts: SearchOptions = if options.is_undefined() || options.is_null() {
            SearchOptions::default()
        } else {
            refuse_unknown_options(&options)?;
            serde_wasm_bindgen::from_value(options)
                .map_err(|e| js_error("INVALID_OPTION", &format!("invalid search options: {e}")))?
        };
        let response = self
            .inner
            .search(query, &opts, query_vector.as_deref())
            .map_err(core_error)?;
        to_js(&response)
    }

    /// Adds the vectors file (fetched lazily, when semantic search is first wanted).
    #[wasm_bindgen(js_name = attachVectors)]
    pub fn attach_vectors(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.inner.attach_vectors(bytes).map_err(core_error)
    }

    /// Adds the HNSW graph file of a large index (after the vectors).
    #[wasm_bindgen(js_name = attachAnn)]
    pub fn attach_ann(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.inner.attach_ann(bytes).map_err(core_error)
    }

    /// Whether vectors are attached.
    #[wasm_bindgen(js_name = hasVectors)]
    pub fn has_vectors(&self) -> bool {
        self.inner.has_vectors()
    }

    /// A section with its whole text, by id (16 hex digits) or by `path#anchor` (as
    /// `build-index get` accepts); `null` when there is no such section.
    #[wasm_bindgen(js_name = getSection)]
    pub fn get_section(&self, target: &str) -> Result<JsValue, JsValue> {
        let id = SectionId::parse(target).or_else(|| {
            let (path, anchor) = target.split_once('#')?;
            self.inner.find_anchor(path, anchor)
        });
        match id.and_then(|id| self.inner.get_section(id)) {
            Some(view) => to_js(&view),
            None => {
                // A sharded index may need the document's paths or bundle first.
                self.inner.pending().map_err(core_error)?;
                Ok(JsValue::NULL)
            }
        }
    }

    /// A document with its source and outline, by path; `null` when there is none.
    #[wasm_bindgen(js_name = getDocument)]
    pub fn get_document(&self, path: &str) -> Result<JsValue, JsValue> {
        match self.inner.get_document(path) {
            Some(view) => to_js(&view),
            None => {
                self.inner.pending().map_err(core_error)?;
                Ok(JsValue::NULL)
            }
        }
    }

    /// Completions for the word being typed, most frequent first.
    pub fn suggest(&self, prefix: &str, limit: usize) -> Result<JsValue, JsValue> {
        to_js(&self.inner.suggest(prefix, limit).map_err(core_error)?)
    }

    /// The versions of a versioned docs site, newest first (empty when it has fewer than
    /// two): what a version picker offers.
    pub fn versions(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.versions())
    }

    /// Number of sections (for status lines and tests).
    #[wasm_bindgen(js_name = sectionCount)]
    pub fn section_count(&self) -> usize {
        self.inner.section_count()
    }
}
