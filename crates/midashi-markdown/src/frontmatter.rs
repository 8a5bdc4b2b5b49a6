//! Frontmatter (YAML between `---`, TOML between `+++`) and the author hints taken from it
//! and from the document's path.

use midashi_core::section::Hints;

/// The frontmatter syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Yaml,
    Toml,
}

/// What the frontmatter says, before path-based defaults.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Meta {
    pub title: Option<String>,
    pub description: Option<String>,
    pub keywords: Vec<String>,
    pub tags: Vec<String>,
    pub category: Option<String>,
    pub lang: Option<String>,
    pub version: Option<String>,
    /// `search: false` leaves the document out of the index (the page control HTML input
    /// has as `data-midashi-ignore`).
    pub search: Option<bool>,
    /// `search_weight: 2`: how much the page's keyword scores count.
    pub weight: Option<f32>,
}

/// A parse error: the 1-based line within the frontmatter body (when known) and a message.
type FmError = (Option<usize>, String);

/// A scalar or a list, whichever syntax it came from.
enum Val {
    Scalar(String),
    List(Vec<String>),
    Other,
}

/// Parses a frontmatter body. On error returns the 1-based line within `body` (when known)
/// and a message; the caller turns it into a warning and indexes the document anyway.
pub(crate) fn parse(kind: Kind, body: &str) -> Result<Meta, FmError> {
    let fields = match kind {
        Kind::Yaml => yaml_fields(body)?,
        Kind::Toml => toml_fields(body)?,
    };
    let get = |names: &[&str]| {
        names.iter().find_map(|n| {
            fields
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(n))
                .map(|(_, v)| v)
        })
    };
    let scalar = |names: &[&str]| match get(names) {
        Some(Val::Scalar(s)) => non_empty(s),
        Some(Val::List(l)) => l.first().and_then(|s| non_empty(s)),
        _ => None,
    };
    let list = |names: &[&str]| match get(names) {
        Some(Val::Scalar(s)) => s.split(',').filter_map(non_empty).collect(),
        Some(Val::List(l)) => l.iter().filter_map(|s| non_empty(s)).collect(),
        _ => Vec::new(),
    };
    Ok(Meta {
        title: scalar(&["title"]),
        description: scalar(&["description", "summary"]),
        keywords: list(&["keywords"]),
        tags: list(&["tags"]),
        category: scalar(&["category"]),
        lang: scalar(&["lang", "language", "locale"]),
        version: scalar(&["version"]),
        search: scalar(&["search"]).map(|s| !s.eq_ignore_ascii_case("false")),
        weight: scalar(&["search_weight", "searchWeight"])
            .and_then(|s| s.trim().parse::<f32>().ok())
            .filter(|w| w.is_finite() && *w >= 0.0),
    })
}

fn non_empty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

fn yaml_fields(body: &str) -> Result<Vec<(String, Val)>, FmError> {
    use serde_norway::Value;
    let value: Value = serde_norway::from_str(body).map_err(|e| {
        let line = e.location().map(|l| l.line());
        // The error's own "at line N" counts from the frontmatter body; the caller reports
        // the line in the file instead.
        let msg = e.to_string();
        let msg = match msg.find(" at line ") {
            Some(i) => msg[..i].to_string(),
            None => msg,
        };
        (line, format!("invalid YAML frontmatter: {msg}"))
    })?;
    let map = match value {
        Value::Mapping(m) => m,
        Value::Null => return Ok(Vec::new()),
        _ => {
            return Err((
                Some(1),
                "YAML frontmatter is not a mapping of keys to values".into(),
            ))
        }
    };
    fn scalar(v: &Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Tagged(t) => scalar(&t.value),
            _ => None,
        }
    }
    Ok(map
        .iter()
        .filter_map(|(k, v)| {
            let key = scalar(k)?;
            let val = match v {
                Value::Sequence(items) => Val::List(items.iter().filter_map(scalar).collect()),
                v => scalar(v).map_or(Val::Other, Val::Scalar),
            };
            Some((key, val))
        })
        .collect())
}

fn toml_fields(body: &str) -> Result<Vec<(String, Val)>, FmError> {
    use toml::Value;
    let table: toml::Table = toml::from_str(body).map_err(|e| {
        let line = e
            .span()
            .map(|s| body[..s.start.min(body.len())].matches('\n').count() + 1);
        let msg = collapse(e.message());
        (line, format!("invalid TOML frontmatter: {msg}"))
    })?;
    fn scalar(v: &Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Integer(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Boolean(b) => Some(b.to_string()),
            Value::Datetime(d) => Some(d.to_string()),
            _ => None,
        }
    }
    Ok(table
        .iter()
        .map(|(k, v)| {
            let val = match v {
                Value::Array(items) => Val::List(items.iter().filter_map(scalar).collect()),
                v => scalar(v).map_or(Val::Other, Val::Scalar),
            };
            (k.clone(), val)
        })
        .collect())
}

fn collapse(s: &str) -> String {
    crate::text::collapse_whitespace(s)
}

/// The document's hints: frontmatter first, then what the path says (version = a
/// version-like first folder such as `7.4`; language = a locale folder such as `ja/` or
/// `zh-CN/`, first or after the version; category = the first folder that is neither, so
/// `7.4/Microsoft.PowerShell.Core/…` files under `Microsoft.PowerShell.Core` and
/// `ja/guide/…` under `guide`).
pub(crate) fn hints(path: &str, meta: Meta) -> Hints {
    let path = path.replace('\\', "/");
    let mut folders: Vec<&str> = path
        .trim_start_matches("./")
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    folders.pop(); // the file name
    let first = folders.first().map(|s| s.to_string());
    let locale = folders
        .iter()
        .take(2)
        .take_while(|f| locale_tag(f).is_some() || is_version_like(f))
        .find_map(|f| locale_tag(f));
    let category = folders
        .iter()
        .find(|f| !is_version_like(f) && locale_tag(f).is_none())
        .map(|s| s.to_string());
    Hints {
        title: meta.title,
        description: meta.description,
        keywords: meta.keywords,
        tags: meta.tags,
        category: meta.category.or(category),
        lang: meta.lang.or(locale),
        version: meta
            .version
            .or_else(|| first.filter(|f| is_version_like(f))),
    }
}

/// The languages whose codes a docs site names its locale folders by (VitePress,
/// Docusaurus, Starlight and mdBook sites ship these). Codes that are also common folder
/// names (`ml`, `os`, `io`, `is`, `my`, `no`, `am`, `be`, `as`) are left out: a language
/// folder misread is a wrong filter and facet on every page under it.
const LOCALES: &[&str] = &[
    "ar", "bg", "bn", "ca", "cs", "da", "de", "el", "en", "es", "et", "eu", "fa", "fi", "fr", "gl",
    "he", "hi", "hr", "hu", "id", "it", "ja", "ko", "lt", "lv", "ms", "nb", "nl", "pl", "pt", "ro",
    "ru", "sk", "sl", "sr", "sv", "ta", "th", "tr", "uk", "vi", "zh",
];

/// The language tag a locale folder names (`ja`, `zh-CN`, `pt_br` → `pt-BR`, `zh-hans` →
/// `zh-Hans`, `es-419`), or `None` for any other folder.
pub(crate) fn locale_tag(folder: &str) -> Option<String> {
    let mut parts = folder.split(['-', '_']);
    let lang = parts.next()?.to_ascii_lowercase();
    if !LOCALES.contains(&lang.as_str()) {
        return None;
    }
    let mut tag = lang;
    for (i, sub) in parts.enumerate() {
        let alpha = sub.bytes().all(|b| b.is_ascii_alphabetic());
        let sub = match sub.len() {
            // A script: `Hans` (the ones locale folders use; `en-long` is no locale).
            4 if i == 0
                && ["hans", "hant", "latn", "cyrl"]
                    .contains(&sub.to_ascii_lowercase().as_str()) =>
            {
                let (first, rest) = sub.split_at(1);
                first.to_ascii_uppercase() + &rest.to_ascii_lowercase()
            }
            // A region: `CN`, `419`.
            2 if alpha => sub.to_ascii_uppercase(),
            3 if sub.bytes().all(|b| b.is_ascii_digit()) => sub.to_string(),
            _ => return None,
        };
        if i > 1 {
            return None;
        }
        tag.push('-');
        tag.push_str(&sub);
    }
    Some(tag)
}

/// `7.4`, `v2`, `1.0.0`, `v3.2-beta`: digits and dots, optionally a leading `v` and a short
/// suffix.
pub(crate) fn is_version_like(s: &str) -> bool {
    let s = s.strip_prefix(['v', 'V']).unwrap_or(s);
    let (core, suffix) = match s.split_once('-') {
        Some((_, "")) => return false,
        Some(parts) => parts,
        None => (s, ""),
    };
    !core.is_empty()
        && core
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && suffix.len() <= 12
        && suffix
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locale_folders_name_the_language_and_are_not_a_category() {
        let h = |p: &str, meta: Meta| {
            let h = hints(p, meta);
            (h.lang, h.category, h.version)
        };
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            h("ja/guide/a.md", Meta::default()),
            (s("ja"), s("guide"), None)
        );
        assert_eq!(h("zh_cn/a.md", Meta::default()), (s("zh-CN"), None, None));
        assert_eq!(h("zh-hans/api/a.md", Meta::default()).0, s("zh-Hans"));
        assert_eq!(h("es-419/a.md", Meta::default()).0, s("es-419"));
        assert_eq!(
            h("7.4/pt-BR/cmdlets/a.md", Meta::default()),
            (s("pt-BR"), s("cmdlets"), s("7.4"))
        );
        // Not locales: other folders, a locale folder deeper down, codes left out.
        for p in [
            "guide/a.md",
            "api/ja/a.md",
            "ml/a.md",
            "io/a.md",
            "en-long/a.md",
            "a.md",
        ] {
            assert_eq!(h(p, Meta::default()).0, None, "{p}");
        }
        // Frontmatter wins.
        let meta = Meta {
            lang: s("en"),
            ..Meta::default()
        };
        assert_eq!(h("ja/a.md", meta).0, s("en"));
    }

    #[test]
    fn yaml_fields_and_aliases() {
        let m = parse(
            Kind::Yaml,
            "title: Intro\nsummary: Short\nkeywords: a, b ,\ntags: [x, 'y', 3]\nLocale: en-US\nversion: 7.4\n",
        )
        .unwrap();
        assert_eq!(m.title.as_deref(), Some("Intro"));
        assert_eq!(m.description.as_deref(), Some("Short"));
        assert_eq!(m.keywords, ["a", "b"]);
        assert_eq!(m.tags, ["x", "y", "3"]);
        assert_eq!(m.lang.as_deref(), Some("en-US"));
        assert_eq!(m.version.as_deref(), Some("7.4"));
    }

    #[test]
    fn toml_fields() {
        let m = parse(
            Kind::Toml,
            "title = \"T\"\ndescription = \"D\"\ntags = [\"a\", \"b\"]\ncategory = \"guide\"\n",
        )
        .unwrap();
        assert_eq!(m.title.as_deref(), Some("T"));
        assert_eq!(m.tags, ["a", "b"]);
        assert_eq!(m.category.as_deref(), Some("guide"));
    }

    #[test]
    fn errors_carry_lines() {
        let (line, msg) = parse(Kind::Yaml, "title: ok\nbad: [unclosed\n").unwrap_err();
        assert!(line.is_some(), "{msg}");
        assert!(msg.starts_with("invalid YAML frontmatter"), "{msg}");
        let (line, _) = parse(Kind::Toml, "a = 1\nb = = 2\n").unwrap_err();
        assert_eq!(line, Some(2));
        assert!(parse(Kind::Yaml, "- just\n- a list\n").is_err());
        assert_eq!(
            parse(Kind::Yaml, "# only a comment\n").unwrap(),
            Meta::default()
        );
    }

    #[test]
    fn path_hints() {
        let h = hints(
            "7.4/Microsoft.PowerShell.Core/About/about_If.md",
            Meta::default(),
        );
        assert_eq!(h.category.as_deref(), Some("Microsoft.PowerShell.Core"));
        assert_eq!(h.version.as_deref(), Some("7.4"));
        let h = hints("guide/essentials/computed.md", Meta::default());
        assert_eq!(h.category.as_deref(), Some("guide"));
        assert_eq!(h.version, None);
        let h = hints("ch01-00.md", Meta::default());
        assert_eq!((h.category, h.version), (None, None));
        for v in ["7.4", "5.1", "v2", "1.0.0", "v3.2-beta"] {
            assert!(is_version_like(v), "{v}");
        }
        for v in ["guide", "v", "7.", ".4", "api-v2", "-beta", "1.0-"] {
            assert!(!is_version_like(v), "{v}");
        }
    }
}
