//! Search options from a JS object, read field by field into the core's [`SearchOptions`].
//!
//! Not through serde: serde-wasm-bindgen's deserializer, and the float formatting its type
//! errors pull in, were ~30 KB of the module (raw) for one small object read once per query.
//! The rules are the core's (`#[serde(rename_all = "camelCase", default,
//! deny_unknown_fields)]`): camelCase names, every option optional (`undefined` counts as
//! absent), an unknown one refused by name. Ranges (a `limit` of 0, say) are the core's to
//! check, so the message is the same from every entry point.

use js_sys::{Array, Object, Reflect};
use midashi_core::rank::fusion::Fusion;
use midashi_core::{Mode, SearchOptions};
use wasm_bindgen::{JsCast, JsValue};

/// Every option, as the "unknown option" message lists them (checked against the serde
/// names of `SearchOptions` by tests/types.rs).
pub const NAMES: [&str; 20] = [
    "limit",
    "offset",
    "mode",
    "fusion",
    "path",
    "category",
    "tags",
    "depth",
    "lang",
    "preferLang",
    "version",
    "minScore",
    "previewLines",
    "excerpts",
    "prefix",
    "fuzzy",
    "group",
    "collapseVersions",
    "facets",
    "facetsIfRanked",
];

/// Reads `value` (an options object, or `undefined`/`null` for the defaults). The error
/// says which option is wrong and what it should be.
pub fn search_options(value: &JsValue) -> Result<SearchOptions, String> {
    let mut o = SearchOptions::default();
    if value.is_undefined() || value.is_null() {
        return Ok(o);
    }
    if !value.is_object() || Array::is_array(value) {
        return Err("expected an object such as { limit: 10 }".into());
    }
    let obj: &Object = value.unchecked_ref();
    for key in Object::keys(obj).iter() {
        let name = key.as_string().unwrap_or_default();
        let v = Reflect::get(obj, &key).unwrap_or(JsValue::UNDEFINED);
        if v.is_undefined() && NAMES.contains(&name.as_str()) {
            continue;
        }
        let n = name.as_str();
        match n {
            "limit" => o.limit = whole(n, &v)?,
            "offset" => o.offset = whole(n, &v)?,
            "previewLines" => o.preview_lines = whole(n, &v)?,
            "mode" => o.mode = mode(&v)?,
            "fusion" => o.fusion = fusion(&v)?,
            "path" => o.path = text_or_null(n, &v)?,
            "category" => o.category = text_or_null(n, &v)?,
            "lang" => o.lang = text_or_null(n, &v)?,
            "preferLang" => o.prefer_lang = text_or_null(n, &v)?,
            "version" => o.version = text_or_null(n, &v)?,
            "tags" => {
                o.tags = list(n, &v, "a list of strings", |x| x.as_string())?;
            }
            "depth" => {
                o.depth = list(n, &v, "a list of depths 0–6", |x| {
                    x.as_f64()
                        .filter(|f| f.fract() == 0.0 && (0.0..=255.0).contains(f))
                        .map(|f| f as u8)
                })?;
            }
            "minScore" => {
                o.min_score = if v.is_null() {
                    None
                } else {
                    Some(number(n, &v)? as f32)
                };
            }
            "excerpts" => o.excerpts = flag(n, &v)?,
            "prefix" => o.prefix = flag(n, &v)?,
            "fuzzy" => o.fuzzy = flag(n, &v)?,
            "group" => o.group = flag(n, &v)?,
            "collapseVersions" => o.collapse_versions = flag(n, &v)?,
            "facets" => o.facets = flag(n, &v)?,
            "facetsIfRanked" => o.facets_if_ranked = flag(n, &v)?,
            _ => {
                return Err(format!(
                    "unknown option `{name}`; the options are {}",
                    NAMES.join(", ")
                ))
            }
        }
    }
    Ok(o)
}

fn whole(name: &str, v: &JsValue) -> Result<usize, String> {
    let n = v
        .as_f64()
        .filter(|f| f.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(f))
        .map(|f| f as u64)
        .ok_or_else(|| format!("`{name}` must be a whole number of 0 or more"))?;
    // usize has 32 bits here: a larger number is refused as given, not as 4294967295.
    usize::try_from(n).map_err(|_| format!("`{name}` is too large: {n}"))
}

fn number(name: &str, v: &JsValue) -> Result<f64, String> {
    v.as_f64()
        .ok_or_else(|| format!("`{name}` must be a number"))
}

fn flag(name: &str, v: &JsValue) -> Result<bool, String> {
    v.as_bool()
        .ok_or_else(|| format!("`{name}` must be true or false"))
}

fn text_or_null(name: &str, v: &JsValue) -> Result<Option<String>, String> {
    if v.is_null() {
        return Ok(None);
    }
    v.as_string()
        .map(Some)
        .ok_or_else(|| format!("`{name}` must be a string or null"))
}

fn list<T>(
    name: &str,
    v: &JsValue,
    what: &str,
    item: impl Fn(&JsValue) -> Option<T>,
) -> Result<Vec<T>, String> {
    let bad = || format!("`{name}` must be {what}");
    if !Array::is_array(v) {
        return Err(bad());
    }
    v.unchecked_ref::<Array>()
        .iter()
        .map(|x| item(&x).ok_or_else(bad))
        .collect()
}

fn mode(v: &JsValue) -> Result<Mode, String> {
    match v.as_string().as_deref() {
        Some("auto") => Ok(Mode::Auto),
        Some("keyword") => Ok(Mode::Keyword),
        Some("semantic") => Ok(Mode::Semantic),
        Some("hybrid") => Ok(Mode::Hybrid),
        _ => Err("`mode` must be \"auto\", \"keyword\", \"semantic\" or \"hybrid\"".into()),
    }
}

/// `{ method: "auto" }` (the default), `{ method: "rrf", k, keyword_weight, semantic_weight }`
/// or `{ method: "linear", keyword_weight, semantic_weight }` (the core's `Fusion` as JSON:
/// its fields keep their snake_case names).
fn fusion(v: &JsValue) -> Result<Fusion, String> {
    let field = |f: &str| -> Result<f32, String> {
        let x = Reflect::get(v, &JsValue::from_str(f)).unwrap_or(JsValue::UNDEFINED);
        x.as_f64()
            .map(|x| x as f32)
            .ok_or_else(|| format!("`fusion.{f}` must be a number"))
    };
    if !v.is_object() {
        return Err("`fusion` must be an object such as { method: \"rrf\", k: 60, keyword_weight: 1, semantic_weight: 1 }".into());
    }
    let method = Reflect::get(v, &JsValue::from_str("method"))
        .ok()
        .and_then(|m| m.as_string());
    match method.as_deref() {
        Some("auto") => Ok(Fusion::Auto),
        Some("rrf") => Ok(Fusion::Rrf {
            k: field("k")?,
            keyword_weight: field("keyword_weight")?,
            semantic_weight: field("semantic_weight")?,
        }),
        Some("linear") => Ok(Fusion::Linear {
            keyword_weight: field("keyword_weight")?,
            semantic_weight: field("semantic_weight")?,
        }),
        _ => Err("`fusion.method` must be \"auto\", \"rrf\" or \"linear\"".into()),
    }
}

#[cfg(test)]
mod tests {
    /// The names read here are the core type's, all of them: a field added to
    /// `SearchOptions` must be read here too.
    #[test]
    fn names_are_the_core_options() {
        let json = serde_json::to_value(midashi_core::SearchOptions::default()).unwrap();
        let mut core: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut ours = super::NAMES.to_vec();
        core.sort_unstable();
        ours.sort_unstable();
        assert_eq!(core, ours);
    }
}
