//! When a browser should fetch the semantic leg for an `auto` query: the module and the
//! model are tens of megabytes, and for a query that names what it looks for (a heading, an
//! identifier, a few keywords) keyword search already finds it — Rust-book headings: right
//! section first 40 of 40 times with keyword, 37 with hybrid. The leg is worth its bytes for
//! a query that reads as a **question** (people ask in sentences that share few words with
//! the section that answers) and for a phrase whose keyword results are **weak** (few
//! sections hold its words). Never for a query of one or two characters (a prefix on the
//! way to a word), nor for one whose words match nothing and that is not a question
//! (nonsense, or words this site never uses: the answer is "no results", and the visitor
//! can still ask for "Search by meaning"). One definition, here, for the JS API, the widget
//! and any other host; when a query counts as settled is the host's (the widget waits for a
//! pause in typing, `SETTLE_MS` in web/src/widget/element.ts).

/// Why the semantic leg would help a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SemanticReason {
    /// The query reads as a question or a sentence.
    Question,
    /// A phrase of at least [`WEAK_WORDS`] words for which keyword search found some, but
    /// fewer than [`WEAK_BELOW`], sections.
    Weak,
}

impl SemanticReason {
    /// The name hosts show and test for.
    pub fn as_str(self) -> &'static str {
        match self {
            SemanticReason::Question => "question",
            SemanticReason::Weak => "weak",
        }
    }
}

/// Keyword answers with fewer sections than this are weak.
pub const WEAK_BELOW: usize = 3;

/// Words from which a query is a phrase that a weak answer may have missed in other words.
/// One or two words name something (`layers`, `borrow checker`): when few sections hold
/// them, few sections are about them, and the semantic leg's bytes would buy nothing.
pub const WEAK_WORDS: usize = 3;

/// Characters below which a query is a prefix being typed, never worth the leg.
const SHORTEST: usize = 3;

/// Words that open an English question.
const QUESTION_WORDS: &[&str] = &[
    "how", "what", "why", "when", "where", "which", "who", "whom", "whose", "can", "could",
    "should", "does", "do", "did", "is", "are", "was", "were", "will", "would", "may", "shall",
];

/// Japanese interrogatives and question endings (疑問詞, 終助詞 か).
const JA_QUESTION: &[&str] = &[
    "どう",
    "なぜ",
    "なんで",
    "何",
    "なに",
    "どこ",
    "いつ",
    "どの",
    "どれ",
    "だれ",
    "誰",
    "ですか",
    "ますか",
    "でしょうか",
    "どんな",
    "どちら",
    "いくつ",
    "いくら",
    "なんと",
    "なんの",
];

/// Endings by which a Japanese query reads as a question or a sentence: a closing 。, the
/// particle か, the topic particle は with nothing after it (「首都は」: "the capital is …?"),
/// an imperative よ (「挙げよ」, 「答えよ」). Of JSQuAD's 4,442 questions, a question mark and the
/// words above recognise 3,866, these endings 500 more (hybrid nDCG@10 0.9559 → 0.9571).
const JA_QUESTION_ENDINGS: &[char] = &['か', 'は', 'よ'];

/// Words from which a query reads as a sentence rather than keywords.
const SENTENCE_WORDS: usize = 6;

/// Whether `query` reads as a question or a sentence.
pub fn is_question(query: &str) -> bool {
    let q = query.trim();
    if q.ends_with('?') || q.ends_with('？') {
        return true;
    }
    // ASCII case folding only: the question words are ASCII, and `to_lowercase` would link
    // Unicode's case tables into every browser module (~12 KB gzip).
    let first = q.split_whitespace().next().unwrap_or_default();
    if QUESTION_WORDS.iter().any(|w| first.eq_ignore_ascii_case(w))
        && q.split_whitespace().count() >= 3
    {
        return true;
    }
    if JA_QUESTION.iter().any(|w| q.contains(w)) {
        return true;
    }
    let open = q.trim_end_matches(['。', '．']);
    if open.len() < q.len() && open.chars().count() >= 2 {
        return true;
    }
    let mut tail = open.chars().rev();
    if let (Some(last), Some(before)) = (tail.next(), tail.next()) {
        // After a kana or kanji: not a Latin word's last letter or a lone particle.
        if JA_QUESTION_ENDINGS.contains(&last) && is_japanese(before) {
            return true;
        }
    }
    q.split_whitespace().count() >= SENTENCE_WORDS
}

/// Hiragana, katakana or a CJK ideograph.
fn is_japanese(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '々')
}

/// Why an `auto` query whose keyword answer holds `keyword_total` sections would gain from
/// the semantic leg, if it would.
pub fn semantic_reason(query: &str, keyword_total: usize) -> Option<SemanticReason> {
    let q = query.trim();
    if q.chars().count() < SHORTEST {
        None
    } else if is_question(q) {
        Some(SemanticReason::Question)
    } else if (1..WEAK_BELOW).contains(&keyword_total) && q.split_whitespace().count() >= WEAK_WORDS
    {
        Some(SemanticReason::Weak)
    } else {
        None
    }
}

impl super::SearchIndex {
    /// Whether the vectors' model covers the query's script. An English-only model's vectors
    /// of a Japanese query are close to noise (JSQuAD nDCG@10: keyword 0.94, hybrid with
    /// all-MiniLM-L6-v2 0.50), so an automatic query leaves the semantic leg out; an explicit
    /// `hybrid` or `semantic` still runs it. A model that names no languages is trusted.
    pub fn semantic_covers(&self, query: &str) -> bool {
        let Some(model) = &self.manifest.model else {
            return true;
        };
        if model.languages.is_empty() {
            return true;
        }
        let cjk = self.analyzer.analyze_query(query).iter().any(|t| t.cjk);
        !cjk || model
            .languages
            .iter()
            .any(|l| matches!(l.as_str(), "ja" | "zh" | "ko" | "multilingual"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_and_weak_answers() {
        for q in [
            "how do I search offline",
            "what is a shard?",
            "Can I use it without a server",
            "設定ファイルはどこにありますか",
            "なぜキャッシュされる",
            "北海道に梅雨はあるか",
            "海洋を本拠地とする気団の名前は",
            "梅雨の時期の日照時間の特徴とは。",
            "マーラーの交響曲を挙げよ",
            "アジア・モンスーンはどんな性質の大気か。",
            "the widget does not open when I press the slash key",
        ] {
            assert!(is_question(q), "{q}");
        }
        for q in [
            "borrow checker",
            "Theming",
            "computed properties",
            "how",
            "Get-ChildItem",
            "算出プロパティ",
            "リアクティビティーの基礎",
            "は",
            "Sass",
            "v-for と v-if",
        ] {
            assert!(!is_question(q), "{q}");
        }
        assert_eq!(semantic_reason("borrow checker", 12), None);
        assert_eq!(
            semantic_reason("keep functions warm", 2),
            Some(SemanticReason::Weak)
        );
        // A name that few sections hold is answered by those sections.
        assert_eq!(semantic_reason("borrow checker", 2), None);
        assert_eq!(semantic_reason("layers", 1), None);
        // Nonsense matches nothing and asks nothing: no leg.
        assert_eq!(semantic_reason("xq zzkv wubbo", 0), None);
        assert_eq!(semantic_reason("asdfghjkl", 0), None);
        // A prefix of one or two characters, whatever it found.
        assert_eq!(semantic_reason("l", 0), None);
        assert_eq!(semantic_reason("ho", 1), None);
        assert_eq!(semantic_reason("何?", 0), None);
        // A question still loads it, even when its words match nothing.
        assert_eq!(
            semantic_reason("how do I frobnicate the wuzzle?", 0),
            Some(SemanticReason::Question)
        );
        assert_eq!(
            semantic_reason("how does borrowing work", 40),
            Some(SemanticReason::Question)
        );
    }
}
