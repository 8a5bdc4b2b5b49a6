//! The engine's answers read back from the JS objects it wrote ([`crate::values`]): what the
//! in-page tools for browser agents (WebMCP) quote. The JS host merges the answers of several
//! indexes and may add fields (`index`); quoting happens here, through midashi-core's one
//! definition of the quoted format, instead of a copy of it in JS.
//!
//! Read field by field for the reason [`crate::options`] is: serde's deserializer would cost
//! the module more than these few readers. The reader is generic ([`In`]) so the tests read
//! real answers written as JSON and check that nothing is lost on the way.

use midashi_core::answer::{SectionView, VersionLink};
use midashi_core::{Mode, SearchHit, SearchResponse};

/// Where values are read from: JS values in the module, JSON values in the tests.
pub trait In: Sized {
    /// The field `key` of an object (`None` when missing, `undefined` or not an object).
    fn field(&self, key: &str) -> Option<Self>;
    /// A number.
    fn num(&self) -> Option<f64>;
    /// A string.
    fn text(&self) -> Option<String>;
    /// The items of an array.
    fn items(&self) -> Option<Vec<Self>>;
    /// Whether it is `null`.
    fn is_null(&self) -> bool;
    /// A boolean.
    fn flag(&self) -> Option<bool>;
}

/// Why a value is not an engine answer: which field, and what it should be.
fn bad(what: &str, should: &str) -> String {
    format!("`{what}` must be {should}: pass an answer of this engine's search or getSection, unchanged")
}

fn text<I: In>(v: &I, key: &str) -> Result<String, String> {
    v.field(key)
        .and_then(|x| x.text())
        .ok_or_else(|| bad(key, "a string"))
}

fn text_or_null<I: In>(v: &I, key: &str) -> Result<Option<String>, String> {
    match v.field(key) {
        None => Ok(None),
        Some(x) if x.is_null() => Ok(None),
        Some(x) => x
            .text()
            .map(Some)
            .ok_or_else(|| bad(key, "a string or null")),
    }
}

fn num<I: In>(v: &I, key: &str) -> Result<f64, String> {
    v.field(key)
        .and_then(|x| x.num())
        .filter(|n| n.is_finite())
        .ok_or_else(|| bad(key, "a number"))
}

/// A whole number that fits `T` (a count, a line, a depth).
fn whole<I: In, T: TryFrom<u64>>(v: &I, key: &str) -> Result<T, String> {
    let n = num(v, key)?;
    if n < 0.0 || n.fract() != 0.0 || n > 9_007_199_254_740_991.0 {
        return Err(bad(key, "a whole number"));
    }
    T::try_from(n as u64).map_err(|_| bad(key, "a smaller whole number"))
}

fn list<I: In, T>(
    v: &I,
    key: &str,
    item: impl Fn(&I) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    match v.field(key) {
        // A field the caller dropped reads as empty: lists are never needed to quote.
        None => Ok(Vec::new()),
        Some(x) => x
            .items()
            .ok_or_else(|| bad(key, "a list"))?
            .iter()
            .map(item)
            .collect(),
    }
}

/// A list of `[start, end]` UTF-16 ranges.
fn ranges<I: In>(v: &I, key: &str) -> Result<Vec<[u32; 2]>, String> {
    list(v, key, |x| {
        let pair = x.items().unwrap_or_default();
        match pair.as_slice() {
            [a, b] => {
                let at = |n: &I| {
                    n.num()
                        .filter(|n| n.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(n))
                        .map(|n| n as u32)
                };
                at(a)
                    .zip(at(b))
                    .map(|(a, b)| [a, b])
                    .ok_or_else(|| bad(key, "a list of [start, end] pairs"))
            }
            _ => Err(bad(key, "a list of [start, end] pairs")),
        }
    })
}

/// A `SearchHit` (also the fields of a `SectionView`, which flattens one).
pub fn hit<I: In>(v: &I) -> Result<SearchHit, String> {
    Ok(SearchHit {
        id: text(v, "id")?,
        path: text(v, "path")?,
        url: text(v, "url")?,
        anchor: text_or_null(v, "anchor")?,
        heading: text(v, "heading")?,
        heading_path: list(v, "heading_path", |x| {
            x.text()
                .ok_or_else(|| bad("heading_path", "a list of strings"))
        })?,
        depth: whole(v, "depth")?,
        section_number: whole(v, "section_number")?,
        start_line: whole(v, "start_line")?,
        end_line: whole(v, "end_line")?,
        score: num(v, "score")? as f32,
        preview: text(v, "preview")?,
        more_lines: whole(v, "more_lines")?,
        highlights: ranges(v, "highlights")?,
        // Quoting never reads the excerpt: an answer from an older module may lack it.
        excerpt: match v.field("excerpt") {
            None => String::new(),
            Some(_) => text(v, "excerpt")?,
        },
        excerpt_highlights: ranges(v, "excerpt_highlights")?,
        excerpt_line: match v.field("excerpt_line") {
            None => 0,
            Some(_) => whole(v, "excerpt_line")?,
        },
        title: text(v, "title")?,
        description: text_or_null(v, "description")?,
        token_estimate: whole(v, "token_estimate")?,
        version: text_or_null(v, "version")?,
        other_versions: list(v, "other_versions", |x| {
            Ok(VersionLink {
                version: text(x, "version")?,
                id: text(x, "id")?,
                url: text(x, "url")?,
            })
        })?,
    })
}

/// A `SearchResponse`.
pub fn response<I: In>(v: &I) -> Result<SearchResponse, String> {
    let mode = match text(v, "mode")?.as_str() {
        "auto" => Mode::Auto,
        "keyword" => Mode::Keyword,
        "semantic" => Mode::Semantic,
        "hybrid" => Mode::Hybrid,
        _ => return Err(bad("mode", "\"keyword\", \"semantic\" or \"hybrid\"")),
    };
    Ok(SearchResponse {
        total: whole(v, "total")?,
        // Absent from answers of builds before it: those counted every result.
        total_exact: match v.field("total_exact") {
            None => true,
            Some(x) => x
                .flag()
                .ok_or_else(|| bad("total_exact", "true or false"))?,
        },
        results: list(v, "results", hit)?,
        suggestions: list(v, "suggestions", |x| {
            x.text()
                .ok_or_else(|| bad("suggestions", "a list of strings"))
        })?,
        mode,
        // Quoting never reads them.
        facets: None,
    })
}

/// A `SectionView` (a hit's fields and `text`).
pub fn section<I: In>(v: &I) -> Result<SectionView, String> {
    Ok(SectionView {
        hit: hit(v)?,
        text: text(v, "text")?,
    })
}

impl In for wasm_bindgen::JsValue {
    fn field(&self, key: &str) -> Option<Self> {
        if !self.is_object() {
            return None;
        }
        js_sys::Reflect::get(self, &wasm_bindgen::JsValue::from_str(key))
            .ok()
            .filter(|x| !x.is_undefined())
    }
    fn num(&self) -> Option<f64> {
        self.as_f64()
    }
    fn text(&self) -> Option<String> {
        self.as_string()
    }
    fn items(&self) -> Option<Vec<Self>> {
        js_sys::Array::is_array(self).then(|| {
            use wasm_bindgen::JsCast;
            self.unchecked_ref::<js_sys::Array>().iter().collect()
        })
    }
    fn is_null(&self) -> bool {
        wasm_bindgen::JsValue::is_null(self)
    }
    fn flag(&self) -> Option<bool> {
        self.as_bool()
    }
}
