//! The page template: header with the search widget, sidebar, breadcrumbs, the rendered body.
//! Everything interpolated here that comes from Markdown (titles, descriptions, folder names)
//! goes through [`html`]; the body comes from `midashi_markdown::render_html`, which escapes
//! raw HTML and neutralises `javascript:` links itself.

use super::escape::{html, url_path};

/// What one page shows.
pub struct Page<'a> {
    /// `<html lang>`: also the widget's language.
    pub lang: &'a str,
    /// Page title (document title).
    pub title: &'a str,
    /// Site title, in the header and after the page title.
    pub site_title: &'a str,
    /// Frontmatter description, for `<meta name="description">`.
    pub description: Option<&'a str>,
    /// Relative prefix from this page to the site root (`./`, `../`, …).
    pub root: &'a str,
    /// Folders from the root to this page, with the file of each folder's index page if any.
    pub crumbs: Vec<(String, Option<String>)>,
    /// The sidebar's HTML (already escaped).
    pub sidebar: &'a str,
    /// The page body's HTML (already safe).
    pub body: &'a str,
}

/// Scripts that set the theme before first paint (no flash of the wrong colours) and, on
/// file://, load the classic-script bundle instead of the module (browsers refuse module
/// scripts, workers and fetch for file:// pages). The only interpolated value is the root
/// prefix, a run of `./` and `../`.
fn head_scripts(root: &str) -> String {
    let root_js = serde_json::to_string(root).unwrap_or_else(|_| "\"./\"".into());
    format!(
        r#"<script>(function(){{try{{var t=localStorage.getItem("midashi-theme");if(t==="dark"||t==="light")document.documentElement.dataset.theme=t;}}catch(e){{}}
if(location.protocol==="file:"){{["midashi-inline.js","midashi-file.js"].forEach(function(n){{var s=document.createElement("script");s.src={root_js}+"search/"+n;s.async=false;document.head.appendChild(s);}});}}}})();</script>
<script type="module" src="{root}search/midashi.js"></script>"#,
        root = html(root)
    )
}

/// The theme button: light ⇄ dark, remembered, and passed on to the widget.
const THEME_SCRIPT: &str = r#"<script>(function(){var b=document.getElementById("theme-toggle"),w=document.querySelector("midashi-search");
function cur(){return document.documentElement.dataset.theme||(matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light");}
function apply(t){document.documentElement.dataset.theme=t;if(w)w.setAttribute("theme",t);b.setAttribute("aria-pressed",t==="dark"?"true":"false");}
if(document.documentElement.dataset.theme)apply(document.documentElement.dataset.theme);else b.setAttribute("aria-pressed",cur()==="dark"?"true":"false");
b.addEventListener("click",function(){var t=cur()==="dark"?"light":"dark";apply(t);try{localStorage.setItem("midashi-theme",t);}catch(e){}});})();</script>"#;

/// The whole HTML of a page.
pub fn render(p: &Page<'_>) -> String {
    let words = super::strings::for_lang(p.lang);
    let (skip, nav_label, crumbs_label, theme_label, home) = (
        words.skip,
        words.nav,
        html(words.crumbs),
        words.dark_mode,
        words.home,
    );
    let title = if p.title == p.site_title || p.title.is_empty() {
        html(p.site_title)
    } else {
        format!("{} · {}", html(p.title), html(p.site_title))
    };
    let description = p
        .description
        .map(|d| format!("<meta name=\"description\" content=\"{}\">\n", html(d)))
        .unwrap_or_default();
    let mut crumbs = String::new();
    if !p.crumbs.is_empty() {
        crumbs.push_str(&format!(
            "<nav class=\"crumbs\" aria-label=\"{}\"><ol><li><a href=\"{}index.html\">{}</a></li>",
            crumbs_label,
            html(p.root),
            home
        ));
        for (label, file) in &p.crumbs {
            match file {
                Some(f) => crumbs.push_str(&format!(
                    "<li><a href=\"{}{}\">{}</a></li>",
                    html(p.root),
                    html(&url_path(f)),
                    html(label)
                )),
                None => crumbs.push_str(&format!("<li>{}</li>", html(label))),
            }
        }
        crumbs.push_str("</ol></nav>\n");
    }
    format!(
        r##"<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="midashi build-index --site">
{description}<title>{title}</title>
<link rel="stylesheet" href="{root}assets/site.css">
<link rel="icon" href="data:,">
{scripts}
</head>
<body>
<a class="skip" href="#content">{skip}</a>
<header class="top">
<a class="brand" href="{root}index.html">{site_title}</a>
<midashi-search index="{root}search/" base="{root}" html-links></midashi-search>
<span class="spacer"></span>
<button type="button" class="theme-toggle" id="theme-toggle" aria-pressed="false">{theme_label}</button>
</header>
<div class="layout">
<nav class="sidebar" aria-label="{nav_label}">{sidebar}</nav>
<main id="content" class="content">
{crumbs}<article>
{body}
</article>
<footer class="site">Midashi</footer>
</main>
</div>
{theme_script}
</body>
</html>
"##,
        lang = html(p.lang),
        root = html(p.root),
        scripts = head_scripts(p.root),
        site_title = html(p.site_title),
        sidebar = p.sidebar,
        body = p.body,
        theme_script = THEME_SCRIPT,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolated_text_is_escaped() {
        let page = Page {
            lang: "en\"><script>",
            title: "<img src=x onerror=alert(1)>",
            site_title: "S&S",
            description: Some("\"><script>alert(1)</script>"),
            root: "../",
            crumbs: vec![("<b>dir</b>".into(), None)],
            sidebar: "",
            body: "<p>ok</p>",
        };
        let out = render(&page);
        assert!(!out.contains("<img src=x"));
        assert!(!out.contains("<script>alert(1)"));
        assert!(!out.contains("<b>dir</b>"));
        assert!(out.contains("&lt;img src=x onerror=alert(1)&gt; · S&amp;S"));
        assert!(out.contains("<script type=\"module\" src=\"../search/midashi.js\"></script>"));
    }
}
