//! Escaping for text that the site generator itself puts into HTML (titles, sidebar labels,
//! breadcrumbs, attribute values) and for the links it writes. Page bodies are rendered by
//! `midashi_markdown::render_html`, which escapes on its own.

/// `text` as HTML text or attribute value (double- or single-quoted): `& < > " '` escaped.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A relative file path as a URL path: every byte outside `A–Z a–z 0–9 - . _ ~ /` is
/// percent-encoded. Besides spaces and non-ASCII, this matters for `:`: a page named
/// `javascript:x.html` linked as is would be a `javascript:` URL.
pub fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Standard base64 with padding (for the file:// bundle; not worth a dependency).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_markup_and_quotes() {
        assert_eq!(
            html(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
        assert_eq!(html("見出し"), "見出し");
    }

    #[test]
    fn url_path_encodes_schemes_spaces_and_non_ascii() {
        assert_eq!(
            url_path("javascript:alert(1).html"),
            "javascript%3Aalert%281%29.html"
        );
        assert_eq!(
            url_path("ja/はじめに.html"),
            "ja/%E3%81%AF%E3%81%98%E3%82%81%E3%81%AB.html"
        );
        assert_eq!(url_path("a b/c#d.html"), "a%20b/c%23d.html");
    }

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected);
        }
    }
}
