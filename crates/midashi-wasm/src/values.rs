//! The engine's answers as plain JS values, written field by field.
//!
//! They are the objects `build-index … --json` prints (snake_case fields, `null` for a missing
//! value, enums as their serde names), so JS gets exactly what the CLI gives. Written by hand
//! rather than through serde-wasm-bindgen because serde's `Serialize` impls, instantiated for
//! that serializer, were ~6 KB gzip of the module every first query downloads; this is about a
//! third of that. The writer is generic ([`Out`]): the module writes JS values, and the tests
//! write `serde_json::Value`s and check them against serde's own output for real answers, so
//! the two cannot drift apart.

use midashi_core::answer::{FacetCount, Facets, VersionLink};
use midashi_core::format::entry::{ModelInfo, Stats};
use midashi_core::format::{FileRef, Manifest};
use midashi_core::search::needs::{Needs, Step};
use midashi_core::{Mode, SearchHit, SearchResponse};

/// Where values are written: JS values in the module, JSON values in the tests.
pub trait Out: Sized {
    /// `null`.
    fn null() -> Self;
    /// A boolean.
    fn bool(v: bool) -> Self;
    /// A number.
    fn num(v: f64) -> Self;
    /// A string.
    fn str(v: &str) -> Self;
    /// An array.
    fn array(items: Vec<Self>) -> Self;
    /// An object, its fields in order.
    fn object(fields: Vec<(&'static str, Self)>) -> Self;
}

/// A value that can be written as an [`Out`].
pub trait ToOut {
    /// The value, written.
    fn to_out<O: Out>(&self) -> O;
}

impl ToOut for str {
    fn to_out<O: Out>(&self) -> O {
        O::str(self)
    }
}

impl ToOut for String {
    fn to_out<O: Out>(&self) -> O {
        O::str(self)
    }
}

impl ToOut for bool {
    fn to_out<O: Out>(&self) -> O {
        O::bool(*self)
    }
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl ToOut for $t {
            fn to_out<O: Out>(&self) -> O {
                // As JSON.parse gives them: an f64 (every u32 and f32, and every count an index
                // can hold, is exact).
                O::num(*self as f64)
            }
        }
    )*};
}
numbers!(u8, u16, u32, u64, usize, f32);

impl<T: ToOut> ToOut for Option<T> {
    fn to_out<O: Out>(&self) -> O {
        match self {
            Some(v) => v.to_out(),
            None => O::null(),
        }
    }
}

impl<T: ToOut> ToOut for [T] {
    fn to_out<O: Out>(&self) -> O {
        O::array(self.iter().map(ToOut::to_out).collect())
    }
}

impl<T: ToOut> ToOut for Vec<T> {
    fn to_out<O: Out>(&self) -> O {
        self.as_slice().to_out()
    }
}

impl<T: ToOut, const N: usize> ToOut for [T; N] {
    fn to_out<O: Out>(&self) -> O {
        self.as_slice().to_out()
    }
}

impl ToOut for Mode {
    fn to_out<O: Out>(&self) -> O {
        O::str(match self {
            Mode::Auto => "auto",
            Mode::Keyword => "keyword",
            Mode::Semantic => "semantic",
            Mode::Hybrid => "hybrid",
        })
    }
}

impl ToOut for VersionLink {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            ("version", self.version.to_out()),
            ("id", self.id.to_out()),
            ("url", self.url.to_out()),
        ])
    }
}

/// A hit's fields, in declaration order (a section view adds its text after them).
fn hit_fields<O: Out>(h: &SearchHit) -> Vec<(&'static str, O)> {
    vec![
        ("id", h.id.to_out()),
        ("path", h.path.to_out()),
        ("url", h.url.to_out()),
        ("anchor", h.anchor.to_out()),
        ("heading", h.heading.to_out()),
        ("heading_path", h.heading_path.to_out()),
        ("depth", h.depth.to_out()),
        ("section_number", h.section_number.to_out()),
        ("start_line", h.start_line.to_out()),
        ("end_line", h.end_line.to_out()),
        ("score", h.score.to_out()),
        ("preview", h.preview.to_out()),
        ("more_lines", h.more_lines.to_out()),
        ("highlights", h.highlights.to_out()),
        ("excerpt", h.excerpt.to_out()),
        ("excerpt_highlights", h.excerpt_highlights.to_out()),
        ("excerpt_line", h.excerpt_line.to_out()),
        ("title", h.title.to_out()),
        ("description", h.description.to_out()),
        ("token_estimate", h.token_estimate.to_out()),
        ("version", h.version.to_out()),
        ("other_versions", h.other_versions.to_out()),
    ]
}

impl ToOut for SearchHit {
    fn to_out<O: Out>(&self) -> O {
        O::object(hit_fields(self))
    }
}

impl ToOut for SearchResponse {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            ("total", self.total.to_out()),
            ("total_exact", self.total_exact.to_out()),
            ("results", self.results.to_out()),
            ("suggestions", self.suggestions.to_out()),
            ("mode", self.mode.to_out()),
            ("facets", self.facets.to_out()),
        ])
    }
}

impl ToOut for Facets {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            ("category", self.category.to_out()),
            ("tags", self.tags.to_out()),
            ("version", self.version.to_out()),
            ("lang", self.lang.to_out()),
        ])
    }
}

impl ToOut for FacetCount {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            ("value", self.value.to_out()),
            ("count", self.count.to_out()),
        ])
    }
}

/// `{ files, full_engine }`.
impl ToOut for Needs {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            ("files", self.files.to_out()),
            ("full_engine", self.full_engine.to_out()),
        ])
    }
}

/// `{ answer, needs }`: the answer and `needs: null`, or `answer: null` and what the request
/// still needs (the JS host fetches it and asks again).
impl<T: ToOut> ToOut for Step<T> {
    fn to_out<O: Out>(&self) -> O {
        match self {
            Step::Ready(v) => step_out(v.to_out(), None),
            Step::Needs(n) => step_out(O::null(), Some(n)),
        }
    }
}

/// A [`Step`]'s object, whatever its answer's type (one copy in the module).
#[inline(never)]
fn step_out<O: Out>(answer: O, needs: Option<&Needs>) -> O {
    let needs = needs.map_or_else(O::null, ToOut::to_out);
    O::object(vec![("answer", answer), ("needs", needs)])
}

impl ToOut for FileRef {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            // The variant's name, as serde writes a unit variant.
            ("kind", O::str(&format!("{:?}", self.kind))),
            ("name", self.name.to_out()),
            ("bytes", self.bytes.to_out()),
            ("needed_for_keyword", self.needed_for_keyword.to_out()),
        ])
    }
}

impl ToOut for Stats {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            ("documents", self.documents.to_out()),
            ("sections", self.sections.to_out()),
            ("terms", self.terms.to_out()),
            ("vectors", self.vectors.to_out()),
        ])
    }
}

impl ToOut for ModelInfo {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            ("name", self.name.to_out()),
            ("dims", self.dims.to_out()),
            ("sha256", self.sha256.to_out()),
            ("languages", self.languages.to_out()),
        ])
    }
}

impl ToOut for Manifest {
    fn to_out<O: Out>(&self) -> O {
        O::object(vec![
            ("generator", self.generator.to_out()),
            ("files", self.files.to_out()),
            ("stats", self.stats.to_out()),
            ("slug", self.slug.to_out()),
            ("base_url", self.base_url.to_out()),
            ("model", self.model.to_out()),
            ("languages", self.languages.to_out()),
        ])
    }
}

#[cfg(feature = "full")]
mod lookups {
    use super::{hit_fields, Out, ToOut};
    use midashi_core::answer::{DocumentView, SectionView};

    impl ToOut for SectionView {
        fn to_out<O: Out>(&self) -> O {
            // serde flattens the hit into the view: its fields, then the text.
            let mut fields = hit_fields(&self.hit);
            fields.push(("text", self.text.to_out()));
            O::object(fields)
        }
    }

    impl ToOut for DocumentView {
        fn to_out<O: Out>(&self) -> O {
            O::object(vec![
                ("path", self.path.to_out()),
                ("url", self.url.to_out()),
                ("title", self.title.to_out()),
                ("source", self.source.to_out()),
                ("sections", self.sections.to_out()),
            ])
        }
    }
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// A plain object being filled.
    type Fields;
    /// `target[key] = value`: a plain store, not js-sys's `Reflect.set` with an exception
    /// trap — setting a field of a fresh plain object cannot throw, and the trap's wrapper (a
    /// `try` and an `arguments` object per call) and `Reflect.set` itself were most of the
    /// cost of writing an answer (a JSQuAD query's ten hits set ~250 fields).
    #[wasm_bindgen(method, structural, indexing_setter)]
    fn set(this: &Fields, key: &wasm_bindgen::JsValue, value: &wasm_bindgen::JsValue);
}

thread_local! {
    /// Field names as JS strings, made once: each was decoded from UTF-8 again for every
    /// field of every hit. Keyed by the name's address and length (names are `&'static
    /// str`s; a few dozen, so a list).
    static KEYS: std::cell::RefCell<Vec<((usize, usize), wasm_bindgen::JsValue)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The JS string of a field name.
fn key(name: &'static str) -> wasm_bindgen::JsValue {
    let at = (name.as_ptr() as usize, name.len());
    KEYS.with(|keys| {
        let mut keys = keys.borrow_mut();
        if let Some((_, k)) = keys.iter().find(|(a, _)| *a == at) {
            return k.clone();
        }
        let k = wasm_bindgen::JsValue::from_str(name);
        keys.push((at, k.clone()));
        k
    })
}

/// JS values: what the module returns.
impl Out for wasm_bindgen::JsValue {
    fn null() -> Self {
        wasm_bindgen::JsValue::NULL
    }
    fn bool(v: bool) -> Self {
        wasm_bindgen::JsValue::from_bool(v)
    }
    fn num(v: f64) -> Self {
        wasm_bindgen::JsValue::from_f64(v)
    }
    fn str(v: &str) -> Self {
        wasm_bindgen::JsValue::from_str(v)
    }
    fn array(items: Vec<Self>) -> Self {
        items.into_iter().collect::<js_sys::Array>().into()
    }
    fn object(fields: Vec<(&'static str, Self)>) -> Self {
        use wasm_bindgen::JsCast;
        let obj = js_sys::Object::new();
        let target: &Fields = obj.unchecked_ref();
        for (k, v) in fields {
            target.set(&key(k), &v);
        }
        obj.into()
    }
}
