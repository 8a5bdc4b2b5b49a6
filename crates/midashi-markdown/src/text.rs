//! Plain text of a section: the buffer its prose is gathered into, CJK detection and the
//! token estimate.

/// Gathers the plain text of a section from inline events and block boundaries.
#[derive(Debug, Default)]
pub(crate) struct TextBuf {
    s: String,
    /// A soft line break waiting to see its right-hand neighbour: between two CJK characters
    /// it disappears (as browsers render it), otherwise it is a space.
    pending_soft: bool,
}

impl TextBuf {
    /// Appends inline text verbatim.
    pub(crate) fn push(&mut self, t: &str) {
        let Some(first) = t.chars().next() else {
            return;
        };
        if std::mem::take(&mut self.pending_soft) {
            let last = self.s.chars().next_back();
            let joins = matches!(last, Some(l) if is_cjk(l) && is_cjk(first));
            if !joins && !first.is_whitespace() && last.is_some_and(|l| !l.is_whitespace()) {
                self.s.push(' ');
            }
        }
        self.s.push_str(t);
    }

    /// Appends text with whitespace runs collapsed to one space (text from HTML).
    pub(crate) fn push_collapsed(&mut self, t: &str) {
        let mut space = false;
        for (i, part) in t.split(char::is_whitespace).enumerate() {
            if i > 0 {
                space = true;
            }
            if part.is_empty() {
                continue;
            }
            if space {
                self.space();
                space = false;
            }
            self.push(part);
        }
        if space {
            self.space();
        }
    }

    /// A soft line break inside a paragraph.
    pub(crate) fn soft_break(&mut self) {
        if !self.s.is_empty() {
            self.pending_soft = true;
        }
    }

    /// A hard line break.
    pub(crate) fn hard_break(&mut self) {
        self.pending_soft = false;
        if !self.s.is_empty() && !self.s.ends_with('\n') {
            self.s.push('\n');
        }
    }

    /// The end of a block: what follows starts a new line.
    pub(crate) fn block_break(&mut self) {
        self.hard_break();
    }

    /// A word separator (table cells, HTML tags that separate words).
    pub(crate) fn space(&mut self) {
        self.pending_soft = false;
        if self
            .s
            .chars()
            .next_back()
            .is_some_and(|c| !c.is_whitespace())
        {
            self.s.push(' ');
        }
    }

    /// Whether nothing has been gathered.
    pub(crate) fn is_empty(&self) -> bool {
        self.s.is_empty()
    }

    /// The text: whitespace runs within a line collapsed (markup that was dropped leaves
    /// doubled spaces), blank lines dropped.
    pub(crate) fn finish(self) -> String {
        let mut out = String::with_capacity(self.s.len());
        for line in self.s.lines() {
            let mut words = line.split_whitespace().peekable();
            if words.peek().is_none() {
                continue;
            }
            if !out.is_empty() {
                out.push('\n');
            }
            for (i, w) in words.enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(w);
            }
        }
        out
    }
}

/// Code blocks of a section, one after another.
#[derive(Debug, Default)]
pub(crate) struct CodeBuf(String);

impl CodeBuf {
    pub(crate) fn start_block(&mut self) {
        if !self.0.is_empty() && !self.0.ends_with('\n') {
            self.0.push('\n');
        }
    }

    pub(crate) fn push(&mut self, t: &str) {
        self.0.push_str(t);
    }

    pub(crate) fn finish(self) -> String {
        let mut s = self.0;
        let end = s.trim_end().len();
        s.truncate(end);
        s
    }
}

/// Chinese, Japanese and Korean characters (glued across soft line breaks), and the index's
/// token estimate: the core's, so the MCP server and the wasm engine count alike.
pub(crate) use midashi_core::answer::quote::is_cjk;
pub use midashi_core::answer::quote::token_estimate;

/// Whitespace runs collapsed to single spaces, ends trimmed.
pub(crate) fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Cuts `s` to at most `max` bytes at a character boundary; true if it was cut.
pub(crate) fn truncate_bytes(s: &mut String, max: usize) -> bool {
    if s.len() <= max {
        return false;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soft_breaks_glue_cjk_and_space_latin() {
        let mut t = TextBuf::default();
        t.push("これは");
        t.soft_break();
        t.push("日本語");
        t.soft_break();
        t.push("and English");
        t.soft_break();
        t.push("words");
        t.block_break();
        t.push("next");
        assert_eq!(t.finish(), "これは日本語 and English words\nnext");
    }

    #[test]
    fn collapsed_text() {
        let mut t = TextBuf::default();
        t.push("a");
        t.push_collapsed("  b \n  c ");
        t.push("d");
        assert_eq!(t.finish(), "a b c d");
    }

    #[test]
    fn estimates() {
        assert_eq!(token_estimate(&["abcd", "efgh"]), 2);
        assert_eq!(token_estimate(&["日本語", "a"]), 4);
        assert_eq!(token_estimate(&[""]), 0);
    }

    #[test]
    fn truncation_keeps_chars_whole() {
        let mut s = "ああああ".to_string();
        assert!(truncate_bytes(&mut s, 7));
        assert_eq!(s, "ああ");
        assert!(!truncate_bytes(&mut s, 100));
    }
}
