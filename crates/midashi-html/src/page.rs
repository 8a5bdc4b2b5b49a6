//! What a page says about itself: whether it is indexed, its content region, language,
//! title and hints.

use midashi_core::section::Hints;
use scraper::{ElementRef, Html, Selector};

/// A page to index.
pub(crate) struct Page<'a> {
    /// Where its content is.
    pub region: ElementRef<'a>,
    /// `<title>`, when there is one.
    pub html_title: Option<String>,
    /// Hints from meta tags, filters and the path.
    pub hints: Hints,
    /// `data-midashi-weight` (on any element, the first one) or `<meta name="midashi:weight">`.
    pub weight: f32,
}

fn sel(s: &str) -> Selector {
    // The selectors are constants of this file: a parse failure is a bug caught by tests.
    Selector::parse(s).unwrap_or_else(|_| panic!("bad selector {s}"))
}

fn meta(dom: &Html, name: &str) -> Option<String> {
    let s = sel(&format!("meta[name=\"{name}\" i]"));
    dom.select(&s)
        .filter_map(|m| m.value().attr("content"))
        .map(|c| c.trim().to_string())
        .find(|c| !c.is_empty())
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// Reads a page's controls; `Err` says why it is not indexed.
pub(crate) fn read<'a>(dom: &'a Html, path: &str) -> Result<Page<'a>, String> {
    let root = dom.root_element();
    if root.value().attr("data-midashi-ignore").is_some() {
        return Err("data-midashi-ignore on <html>".into());
    }
    let body = dom.select(&sel("body")).next();
    if body.is_some_and(|b| b.value().attr("data-midashi-ignore").is_some()) {
        return Err("data-midashi-ignore on <body>".into());
    }
    if meta(dom, "robots").is_some_and(|c| c.to_ascii_lowercase().contains("noindex")) {
        return Err("<meta name=\"robots\" content=\"noindex\">".into());
    }
    if dom
        .select(&sel("meta[http-equiv=\"refresh\" i]"))
        .next()
        .is_some()
    {
        return Err("a redirect (<meta http-equiv=\"refresh\">)".into());
    }
    let region = region(dom).ok_or_else(|| "no <body>".to_string())?;

    let html_title = dom
        .select(&sel("title"))
        .next()
        .map(|t| t.text().collect::<String>().trim().to_string())
        .filter(|t| !t.is_empty());

    let mut hints = midashi_markdown::path_hints(path);
    // The page's own `<html lang>` first, else its locale folder (`ja/…`).
    hints.lang = root
        .value()
        .attr("lang")
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .or(hints.lang);
    hints.description = meta(dom, "description");
    if let Some(k) = meta(dom, "keywords") {
        hints.keywords = split_list(&k);
    }
    if let Some(c) = meta(dom, "midashi:category") {
        hints.category = Some(c);
    }
    if let Some(t) = meta(dom, "midashi:tags") {
        hints.tags = split_list(&t);
    }
    if let Some(v) = meta(dom, "midashi:version") {
        hints.version = Some(v);
    }
    for el in dom.select(&sel("[data-midashi-filter]")) {
        let value = el.value().attr("data-midashi-filter").unwrap_or_default();
        // `key:value`, the value read from the element's text when it is left out.
        let (key, value) = match value.split_once(':') {
            Some((k, v)) => (k.trim(), v.trim().to_string()),
            None => (
                value.trim(),
                el.text().collect::<String>().trim().to_string(),
            ),
        };
        match key {
            "category" if !value.is_empty() => hints.category = Some(value),
            "version" if !value.is_empty() => hints.version = Some(value),
            "tags" | "tag" => hints.tags.extend(split_list(&value)),
            "keywords" => hints.keywords.extend(split_list(&value)),
            _ => {}
        }
    }
    let weight = dom
        .select(&sel("[data-midashi-weight]"))
        .find_map(|e| e.value().attr("data-midashi-weight").map(str::to_string))
        .or_else(|| meta(dom, "midashi:weight"))
        .and_then(|w| w.trim().parse::<f32>().ok())
        .filter(|w| w.is_finite() && *w >= 0.0)
        .unwrap_or(1.0);
    Ok(Page {
        region,
        html_title,
        hints,
        weight,
    })
}

/// The content region: `[data-midashi-body]`, else `<main>`, `[role=main]`, `<body>`; inside
/// `<main>` or `[role=main]`, its one `<article>` when it has exactly one (a docs theme
/// puts the page in an article and its outline, breadcrumbs and pager beside it).
fn region(dom: &Html) -> Option<ElementRef<'_>> {
    if let Some(el) = dom.select(&sel("[data-midashi-body]")).next() {
        return Some(el);
    }
    let main = dom
        .select(&sel("main"))
        .next()
        .or_else(|| dom.select(&sel("[role=main]")).next());
    if let Some(main) = main {
        let articles: Vec<_> = main.select(&sel("article")).take(2).collect();
        return Some(match articles.as_slice() {
            [one] => *one,
            _ => main,
        });
    }
    dom.select(&sel("body")).next()
}
