//! Text content of raw HTML and Vue/JSX components: tags and attribute values dropped, text
//! kept, `<script>`/`<style>` bodies and comments dropped.
//!
//! HTML reaches us in pieces (a line of an HTML block, one inline tag), so the stripper is a
//! small state machine that carries its state from one piece to the next.

use crate::text::TextBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Text,
    /// Just after `<`.
    Open,
    /// In a tag name (`closing` says `</`).
    Name,
    /// Between attributes.
    Attrs,
    /// In a quoted attribute value.
    Quote(char),
    /// `<!`, `<!-`: deciding between a comment and a declaration.
    Bang(u8),
    /// In `<!-- … -->`, counting the dashes just seen.
    Comment(u8),
    /// In `<!…>` or `<?…>`.
    Decl,
}

/// Streaming HTML-to-text.
#[derive(Debug)]
pub(crate) struct HtmlStripper {
    state: State,
    closing: bool,
    self_closing: bool,
    name: String,
    /// Inside `<script>` or `<style>`: everything is dropped until this closing tag.
    raw_until: Option<&'static str>,
}

impl Default for HtmlStripper {
    fn default() -> Self {
        HtmlStripper {
            state: State::Text,
            closing: false,
            self_closing: false,
            name: String::new(),
            raw_until: None,
        }
    }
}

/// Tag names long enough to tell apart the ones we care about; longer names are cut.
const MAX_NAME: usize = 16;

impl HtmlStripper {
    /// Forgets any open tag, comment or script: called at block ends so that one malformed
    /// fragment cannot swallow the rest of a document.
    pub(crate) fn reset(&mut self) {
        *self = HtmlStripper::default();
    }

    /// Inside a `<script>` or `<style>` body: Markdown text seen now belongs to it.
    pub(crate) fn in_raw(&self) -> bool {
        self.raw_until.is_some()
    }

    /// Feeds a piece of HTML; its text content goes to `out`.
    pub(crate) fn feed(&mut self, html: &str, out: &mut TextBuf) {
        let mut rest = html;
        while !rest.is_empty() {
            if let Some(end) = self.raw_until {
                match find_closing(rest, end) {
                    Some(i) => {
                        self.raw_until = None;
                        rest = &rest[i..];
                    }
                    None => return,
                }
            }
            rest = self.step(rest, out);
        }
    }

    /// Runs the state machine until the input ends or a script/style body starts; returns
    /// the unread input.
    fn step<'a>(&mut self, s: &'a str, out: &mut TextBuf) -> &'a str {
        let mut text_start: Option<usize> = None;
        let mut iter = s.char_indices().peekable();
        while let Some((i, c)) = iter.next() {
            match self.state {
                State::Text => {
                    if c == '<' {
                        let next = iter.peek().map(|&(_, n)| n);
                        if matches!(next, Some(n) if n.is_ascii_alphabetic() || n == '/' || n == '!' || n == '?')
                        {
                            if let Some(st) = text_start.take() {
                                push_text(&s[st..i], out);
                            }
                            self.state = State::Open;
                            continue;
                        }
                    }
                    text_start.get_or_insert(i);
                }
                State::Open => {
                    self.name.clear();
                    self.closing = false;
                    self.self_closing = false;
                    match c {
                        '/' => {
                            self.closing = true;
                            self.state = State::Name;
                        }
                        '!' => self.state = State::Bang(0),
                        '?' => self.state = State::Decl,
                        c => {
                            self.name.push(c.to_ascii_lowercase());
                            self.state = State::Name;
                        }
                    }
                }
                State::Name => match c {
                    '>' => {
                        if self.end_tag(out) {
                            return &s[i + 1..];
                        }
                    }
                    '/' => {
                        self.self_closing = true;
                        self.state = State::Attrs;
                    }
                    c if c.is_whitespace() => self.state = State::Attrs,
                    c => {
                        if self.name.len() < MAX_NAME {
                            self.name.push(c.to_ascii_lowercase());
                        }
                    }
                },
                State::Attrs => match c {
                    '>' => {
                        if self.end_tag(out) {
                            return &s[i + 1..];
                        }
                    }
                    '"' | '\'' => self.state = State::Quote(c),
                    '/' => self.self_closing = true,
                    c if c.is_whitespace() => {}
                    _ => self.self_closing = false,
                },
                State::Quote(q) => {
                    if c == q {
                        self.state = State::Attrs;
                    }
                }
                State::Bang(n) => {
                    self.state = match (n, c) {
                        (0, '-') => State::Bang(1),
                        (1, '-') => State::Comment(0),
                        (_, '>') => State::Text,
                        _ => State::Decl,
                    }
                }
                State::Comment(dashes) => {
                    self.state = match c {
                        '-' => State::Comment(dashes.saturating_add(1)),
                        '>' if dashes >= 2 => State::Text,
                        _ => State::Comment(0),
                    }
                }
                State::Decl => {
                    if c == '>' {
                        self.state = State::Text;
                    }
                }
            }
        }
        if let Some(st) = text_start {
            push_text(&s[st..], out);
        }
        ""
    }

    /// A tag just closed with `>`; true if a script/style body starts after it.
    fn end_tag(&mut self, out: &mut TextBuf) -> bool {
        self.state = State::Text;
        if is_separating(&self.name) {
            out.space();
        }
        if !self.closing && !self.self_closing {
            self.raw_until = match self.name.as_str() {
                "script" => Some("script"),
                "style" => Some("style"),
                _ => None,
            };
        }
        self.raw_until.is_some()
    }
}

/// Position of `</name` (ASCII case-insensitive) in `s`.
fn find_closing(s: &str, name: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut from = 0;
    while let Some(off) = s[from..].find("</") {
        let i = from + off;
        let after = &bytes[i + 2..];
        if after.len() >= name.len() && after[..name.len()].eq_ignore_ascii_case(name.as_bytes()) {
            return Some(i);
        }
        from = i + 2;
    }
    None
}

/// Tags that separate words (block-level and line-breaking ones); inline tags like `<b>` do
/// not, so `foo<b>bar</b>` stays one word.
fn is_separating(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "br"
            | "dd"
            | "details"
            | "div"
            | "dl"
            | "dt"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hr"
            | "li"
            | "main"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "summary"
            | "table"
            | "td"
            | "th"
            | "tr"
            | "ul"
    )
}

fn push_text(t: &str, out: &mut TextBuf) {
    if t.contains('&') {
        out.push_collapsed(&decode_entities(t));
    } else {
        out.push_collapsed(t);
    }
}

/// Decodes the character references that matter for indexing text: numeric ones and the
/// common named ones. Unknown references stay as written.
pub(crate) fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest
            .char_indices()
            .take(12)
            .find(|&(_, c)| c == ';')
            .map(|(i, _)| i);
        let decoded = end.and_then(|e| decode_one(&rest[1..e]).map(|c| (c, e)));
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn decode_one(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code).filter(|&c| c != '\0');
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "ndash" => '–',
        "mdash" => '—',
        "hellip" => '…',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "larr" => '←',
        "rarr" => '→',
        "times" => '×',
        "middot" => '·',
        "laquo" => '«',
        "raquo" => '»',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(pieces: &[&str]) -> String {
        let mut h = HtmlStripper::default();
        let mut out = TextBuf::default();
        for p in pieces {
            h.feed(p, &mut out);
        }
        out.finish()
    }

    #[test]
    fn tags_and_attributes_go_text_stays() {
        assert_eq!(
            strip(&[
                "<div class=\"tip\" title='no > here'>\n",
                "  Hello <b>bold</b> world\n",
                "</div>\n"
            ]),
            "Hello bold world"
        );
        assert_eq!(
            strip(&["<VueSchoolLink href=\"https://x\" title=\"Free lesson\"/>"]),
            ""
        );
        assert_eq!(strip(&["<Badge type=\"tip\">beta</Badge>"]), "beta");
        assert_eq!(strip(&["<td>a</td><td>b</td>"]), "a b");
    }

    #[test]
    fn scripts_styles_and_comments_are_dropped() {
        assert_eq!(
            strip(&[
                "<script setup>\n",
                "import { ref } from 'vue'\n",
                "const a = 1 < 2\n",
                "</script>\n",
                "after"
            ]),
            "after"
        );
        assert_eq!(
            strip(&["<style scoped>.a > b { color: red }</style>kept"]),
            "kept"
        );
        assert_eq!(strip(&["a <!-- hidden\n", "still -- hidden --> b"]), "a b");
        assert_eq!(strip(&["1 < 2 and <!DOCTYPE html> x"]), "1 < 2 and x");
    }

    #[test]
    fn entities() {
        assert_eq!(
            decode_entities("a &amp; b &lt;c&gt; &#x41;&#66; &bogus; &"),
            "a & b <c> AB &bogus; &"
        );
        assert_eq!(strip(&["<p>Fish &amp; chips&nbsp;!</p>"]), "Fish & chips !");
    }
}
