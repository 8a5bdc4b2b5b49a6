//! Heading anchors: the slug of a heading and how duplicates are told apart, exactly as each
//! supported site generator does it, so that a search result's deep link lands on the heading.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use unicode_normalization::UnicodeNormalization;

/// Which site generator's anchors to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SlugStyle {
    /// GitHub (github-slugger): lowercase, keep letters, numbers, `-` and `_`, spaces become
    /// `-`; duplicates get `-1`, `-2`, … skipping slugs already taken.
    #[default]
    Github,
    /// VitePress (`@mdit-vue/shared` slugify with markdown-it-anchor's unique slugs).
    Vitepress,
    /// mdBook (`normalize_id` / `id_from_content`, with its unique-id counter).
    Mdbook,
}

impl SlugStyle {
    /// The name accepted by [`FromStr`] and printed by [`fmt::Display`].
    pub fn as_str(self) -> &'static str {
        match self {
            SlugStyle::Github => "github",
            SlugStyle::Vitepress => "vitepress",
            SlugStyle::Mdbook => "mdbook",
        }
    }
}

impl fmt::Display for SlugStyle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown slug style name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSlugStyleError(pub String);

impl fmt::Display for ParseSlugStyleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown slug style {:?} (expected github, vitepress or mdbook)",
            self.0
        )
    }
}

impl std::error::Error for ParseSlugStyleError {}

impl FromStr for SlugStyle {
    type Err = ParseSlugStyleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "github" | "gfm" => Ok(SlugStyle::Github),
            "vitepress" => Ok(SlugStyle::Vitepress),
            "mdbook" => Ok(SlugStyle::Mdbook),
            _ => Err(ParseSlugStyleError(s.to_string())),
        }
    }
}

/// The slug of a heading's text (inline markup already removed), before duplicates are
/// numbered.
pub fn slugify(text: &str, style: SlugStyle) -> String {
    match style {
        SlugStyle::Github => github(text),
        SlugStyle::Vitepress => vitepress(text),
        SlugStyle::Mdbook => mdbook(text),
    }
}

fn github(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ' ' {
            // Only U+0020: github-slugger removes other whitespace with the punctuation.
            out.push('-');
        } else if c.is_alphanumeric() || c == '-' || c == '_' {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// JavaScript's `\s`: ECMAScript WhiteSpace + LineTerminator (not Rust's `is_whitespace`,
/// which differs on U+0085 and U+FEFF).
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

fn vitepress(text: &str) -> String {
    const SPECIAL: &str = "~`!@#$%^&*()-_+=[]{}|\\;:\"'“”‘’<>,.?/";
    let mut out = String::with_capacity(text.len());
    let mut in_run = false;
    for c in text.nfkd() {
        if ('\u{300}'..='\u{36f}').contains(&c) || c <= '\u{1f}' {
            continue;
        }
        if is_js_space(c) || SPECIAL.contains(c) {
            // A run of specials becomes one '-' (the '-' itself is special, so runs of '-'
            // collapse too, as `-{2,}` → `-` does).
            if !in_run {
                out.push('-');
                in_run = true;
            }
        } else {
            out.push(c);
            in_run = false;
        }
    }
    let trimmed = out.trim_matches('-');
    let mut slug = String::with_capacity(trimmed.len() + 1);
    if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
        slug.push('_');
    }
    slug.push_str(trimmed);
    slug.to_lowercase()
}

fn mdbook(text: &str) -> String {
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                // mdBook lowercases ASCII only ("Über" stays "Über").
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of one document, handed out in document order.
pub(crate) struct Anchors {
    style: SlugStyle,
    /// Anchors in use (generated and, where the generator counts them, explicit), with
    /// github-slugger's per-slug counter.
    used: HashMap<String, u32>,
    /// Line of the first heading that took each anchor, for duplicate warnings.
    first_line: HashMap<String, u32>,
}

impl Anchors {
    pub(crate) fn new(style: SlugStyle) -> Self {
        Anchors {
            style,
            used: HashMap::new(),
            first_line: HashMap::new(),
        }
    }

    /// The anchor for a heading whose generated slug is `slug`, numbered if already taken.
    pub(crate) fn generated(&mut self, slug: String, line: u32) -> String {
        let anchor = match self.style {
            SlugStyle::Github => {
                // github-slugger: one counter per base slug, skipping slugs already taken.
                let mut result = slug.clone();
                while self.used.contains_key(&result) {
                    let n = self.used.entry(slug.clone()).or_insert(0);
                    *n += 1;
                    result = format!("{slug}-{n}");
                }
                self.used.insert(result.clone(), 0);
                result
            }
            SlugStyle::Vitepress | SlugStyle::Mdbook => {
                // markdown-it-anchor's uniqueSlug and mdBook's unique_id: try slug, slug-1, …
                let mut result = slug.clone();
                let mut i = 1u32;
                while self.used.contains_key(&result) {
                    result = format!("{slug}-{i}");
                    i += 1;
                }
                self.used.insert(result.clone(), 0);
                result
            }
        };
        self.first_line.entry(anchor.clone()).or_insert(line);
        anchor
    }

    /// Records an explicit `{#id}`; returns the line of an earlier heading with the same
    /// anchor, if any (the caller warns: the generator would fail or the link is ambiguous).
    pub(crate) fn explicit(&mut self, id: &str, line: u32) -> Option<u32> {
        let earlier = self.first_line.get(id).copied();
        if earlier.is_none() {
            self.first_line.insert(id.to_string(), line);
        }
        // mdBook does not count explicit ids when numbering generated ones; the others do.
        if self.style != SlugStyle::Mdbook {
            self.used.entry(id.to_string()).or_insert(0);
        }
        earlier
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_parse_and_print() {
        for s in [SlugStyle::Github, SlugStyle::Vitepress, SlugStyle::Mdbook] {
            assert_eq!(s.to_string().parse::<SlugStyle>(), Ok(s));
        }
        assert_eq!("VitePress".parse::<SlugStyle>(), Ok(SlugStyle::Vitepress));
        assert!("hugo".parse::<SlugStyle>().is_err());
    }

    #[test]
    fn github_slugs() {
        let g = |t| slugify(t, SlugStyle::Github);
        assert_eq!(g("Hello World"), "hello-world");
        assert_eq!(g("The `match` Control Flow"), "the-match-control-flow");
        assert_eq!(g("Foo  Bar"), "foo--bar");
        assert_eq!(g("C++ & Rust: why?"), "c--rust-why");
        assert_eq!(g("snake_case-and-kebab"), "snake_case-and-kebab");
        assert_eq!(g("インストール方法"), "インストール方法");
        assert_eq!(g("Über Größe"), "über-größe");
    }

    #[test]
    fn vitepress_slugs() {
        let v = |t| slugify(t, SlugStyle::Vitepress);
        assert_eq!(v("Hello World"), "hello-world");
        assert_eq!(v("  --Hello,  World!--  "), "hello-world");
        assert_eq!(v("v-model & Components"), "v-model-components");
        assert_eq!(v("3.x Migration"), "_3-x-migration");
        assert_eq!(v("Café"), "cafe");
        assert_eq!(v("ＡＢＣ１２３"), "abc123");
        assert_eq!(v("“Quoted” ‘text’"), "quoted-text");
        // NFKD keeps the Japanese voiced mark as a separate (non-Latin) combining character.
        assert_eq!(v("ガイド"), "カ\u{3099}イト\u{3099}");
        assert_eq!(v("算出プロパティ"), "算出フ\u{309a}ロハ\u{309a}ティ");
    }

    #[test]
    fn mdbook_slugs() {
        let m = |t| slugify(t, SlugStyle::Mdbook);
        assert_eq!(
            m("`--passes`: add more rustdoc passes"),
            "--passes-add-more-rustdoc-passes"
        );
        assert_eq!(
            m("Method-call 🐙 expressions \u{1f47c}"),
            "method-call--expressions-"
        );
        assert_eq!(m("_-_12345"), "_-_12345");
        assert_eq!(m("中文標題 CJK title"), "中文標題-cjk-title");
        assert_eq!(m("Über"), "Über");
    }

    #[test]
    fn duplicates_follow_each_generator() {
        let mut g = Anchors::new(SlugStyle::Github);
        let got: Vec<_> = ["foo", "foo", "foo-1", "foo"]
            .iter()
            .map(|s| g.generated(s.to_string(), 1))
            .collect();
        // github-slugger: "foo-1" is taken by the second "foo", so the literal one is "foo-1-1".
        assert_eq!(got, ["foo", "foo-1", "foo-1-1", "foo-2"]);

        let mut v = Anchors::new(SlugStyle::Vitepress);
        assert_eq!(v.explicit("intro", 1), None);
        assert_eq!(v.generated("intro".into(), 2), "intro-1");
        assert_eq!(v.generated("intro".into(), 3), "intro-2");
        assert_eq!(v.explicit("intro", 4), Some(1));

        let mut m = Anchors::new(SlugStyle::Mdbook);
        m.explicit("intro", 1);
        assert_eq!(m.generated("intro".into(), 2), "intro");
        assert_eq!(m.generated("intro".into(), 3), "intro-1");
    }
}
