//! Where a built page is served: its path under the site's root.

/// The URL of the page at `path` under the site's root: `a/b/index.html` → `{base}a/b/`,
/// `index.html` → `{base}`, `a.html` → `{base}a.html`. Characters that would break a URL
/// path are percent-encoded; other non-ASCII text is left readable (browsers accept IRIs).
pub fn page_url_of_html(path: &str, base_url: &str) -> String {
    let mut url = base_url.trim().to_string();
    if !url.ends_with('/') {
        url.push('/');
    }
    let path = path.replace('\\', "/");
    let path = path.trim_start_matches("./").trim_start_matches('/');
    let (dir, file) = match path.rfind('/') {
        Some(i) => (&path[..=i], &path[i + 1..]),
        None => ("", path),
    };
    let kept = if file.eq_ignore_ascii_case("index.html") || file.eq_ignore_ascii_case("index.htm")
    {
        dir.to_string()
    } else {
        path.to_string()
    };
    midashi_markdown::push_encoded(&mut url, &kept);
    url
}

#[cfg(test)]
mod tests {
    use super::page_url_of_html as u;

    #[test]
    fn index_pages_are_their_folder() {
        assert_eq!(u("a/b/index.html", "/"), "/a/b/");
        assert_eq!(u("index.html", "/docs"), "/docs/");
        assert_eq!(u("a.html", "/"), "/a.html");
        assert_eq!(u("guide/a b.html", "/x/"), "/x/guide/a%20b.html");
        assert_eq!(u("ja/ガイド.html", "/"), "/ja/ガイド.html");
    }
}
