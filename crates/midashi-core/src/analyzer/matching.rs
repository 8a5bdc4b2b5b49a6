//! Finding a query's terms in a page of results' texts ([`Analyzer::matches`]): what marks
//! the words of previews and excerpts.
//!
//! Why a memo: analysing the ten texts of a page of results (each preview and excerpt) was
//! five sixths of a SciFact query's time with excerpts, and most of their words recur. ASCII
//! text is cut into runs at the bytes that no word-boundary rule joins to anything and no
//! compound crosses ([`apart`]: spaces, line breaks, brackets, quotes …). A run gives the
//! same terms wherever it stands, so what it matched is kept by its text and read back the
//! next time, instead of cutting, lower-casing, splitting and stemming it again. Only where
//! the normalised text's offsets are the original's
//! ([`super::normalize::Normalized::identity`]), so that a match lies at the same distance
//! from its run's start wherever the run occurs. Stems are kept longer, from query to query
//! ([`MatchMemo::with_stems`]): they do not depend on the query's terms.
use super::{walk_into, Analyzer, Language, Piece, Sink, StemMemo};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Whether this build keeps the runs' matches (feature `memo`; the size-first sharded
/// keyword module analyses every word, and keeps only the stems).
pub(super) const RUNS: bool = cfg!(feature = "memo");

/// How many distinct runs a [`MatchMemo`] keeps (bounds its memory).
const RUN_ENTRIES: usize = 8192;
/// The longest run kept (offsets inside it fit a `u16`; longer runs are code, not prose).
const MAX_RUN_BYTES: usize = 256;

/// Whether an ASCII byte stands apart: its word-break class (UAX#29: space, line break or
/// Other) breaks on both sides under every rule, and it is not a connector that rejoins a
/// compound (`-`; `.` and `:` are MidNumLet and MidLetter, kept in runs). The walk's cuts
/// and compounds of a run are then the same alone as in its text: the rules that look two
/// characters away ask for a letter or a digit, which such a byte is not.
pub(super) fn apart(b: u8) -> bool {
    !(b.is_ascii_alphanumeric() || matches!(b, b'.' | b'\'' | b':' | b',' | b';' | b'_' | b'-'))
}

/// Per run read: its matches, as offsets from its start, with their terms.
type Runs<'t> = HashMap<Box<str>, Box<[(u16, u16, &'t str)]>>;

/// What one query's matching has learnt: the stems worked out (per language), and per run
/// read under the current text's language, where in it the query's terms are. One per query
/// (the terms are part of what the runs remember); the runs are emptied when a text of
/// another language is matched.
#[derive(Default)]
pub struct MatchMemo<'t> {
    lang: Option<Language>,
    /// Kept from query to query ([`MatchMemo::with_stems`]).
    stems: StemMemo,
    /// Per run (at most [`MAX_RUN_BYTES`]): its matches, as offsets from its start, in the
    /// order the walk emits them.
    runs: Runs<'t>,
}

/// A walk's sink while matching: the wanted terms, what was found, the memo.
pub(super) struct Matches<'m, 't> {
    terms: &'t HashSet<&'t str>,
    out: Vec<(usize, usize, &'t str)>,
    runs: &'m mut Runs<'t>,
}

impl MatchMemo<'_> {
    /// A memo starting from the stems `stems` (an index's, kept from query to query).
    pub fn with_stems(stems: StemMemo) -> Self {
        MatchMemo {
            stems,
            ..MatchMemo::default()
        }
    }

    /// The stems, to be kept for the next query.
    pub fn into_stems(self) -> StemMemo {
        self.stems
    }
}

impl<'t> Matches<'_, 't> {
    /// A piece the walk made: kept when its term is wanted.
    pub(super) fn piece(&mut self, p: &Piece<'_>) {
        if let Some(t) = self.terms.get(p.term()) {
            self.out.push((p.start, p.end, *t));
        }
    }

    /// The matches of `run`, read before, now at byte `at`; false if it was not read.
    pub(super) fn replay(&mut self, run: &str, at: usize) -> bool {
        match self.runs.get(run) {
            Some(hits) => {
                let found = hits
                    .iter()
                    .map(|&(a, b, t)| (at + a as usize, at + b as usize, t));
                self.out.extend(found);
                true
            }
            None => false,
        }
    }

    /// Where the next run's matches will start in what was found.
    pub(super) fn mark(&self) -> usize {
        self.out.len()
    }

    /// Remembers what `run` at byte `at` matched: what was found since `mark`.
    pub(super) fn record(&mut self, run: &str, at: usize, mark: usize) {
        if self.runs.len() >= RUN_ENTRIES || run.len() > MAX_RUN_BYTES {
            return;
        }
        let hits = self.out[mark..]
            .iter()
            // Inside the run, which is at most MAX_RUN_BYTES long.
            .map(|&(a, b, t)| ((a - at) as u16, (b - at) as u16, t))
            .collect();
        self.runs.insert(run.into(), hits);
    }
}

impl Analyzer {
    /// The terms of `text` that are in `terms`, with their byte ranges: what
    /// [`Analyzer::analyze`] yields, filtered, without a string per word that is not one.
    /// `memo` carries what was learnt from one call to the next (a page of results' texts);
    /// it belongs to these `terms`.
    pub fn matches<'t>(
        &self,
        text: &str,
        terms: &'t HashSet<&'t str>,
        memo: &mut MatchMemo<'t>,
    ) -> Vec<(usize, usize, &'t str)> {
        if memo.lang != Some(self.lang) {
            memo.runs.clear();
            memo.lang = Some(self.lang);
        }
        let mut sink = Matches {
            terms,
            out: Vec::new(),
            runs: &mut memo.runs,
        };
        walk_into(
            self.lang,
            &[],
            text,
            memo.stems.for_language(self.lang),
            Sink::Matches(&mut sink),
        );
        std::mem::take(&mut sink.out)
    }
}

#[cfg(test)]
mod tests {
    use super::{Analyzer, MatchMemo};
    use crate::analyzer::Language;
    use proptest::prelude::*;
    use rustc_hash::FxHashSet as HashSet;

    /// What `matches` must find: `analyze`'s tokens whose term is wanted.
    fn plainly(a: &Analyzer, text: &str, terms: &HashSet<&str>) -> Vec<(usize, usize, String)> {
        a.analyze(text)
            .into_iter()
            .filter(|t| terms.contains(t.term.as_str()))
            .map(|t| (t.start, t.end, t.term))
            .collect()
    }

    fn found(v: Vec<(usize, usize, &str)>) -> Vec<(usize, usize, String)> {
        v.into_iter()
            .map(|(a, b, t)| (a, b, t.to_string()))
            .collect()
    }

    #[test]
    fn runs_read_back_match_where_they_stand() {
        let a = Analyzer::new();
        let terms: HashSet<&str> = ["run", "child", "item", "v-model", "http", "3.14"]
            .into_iter()
            .collect();
        let mut memo = MatchMemo::default();
        // The same runs at other offsets, after other bytes, at a text's start and end.
        let texts = [
            "Running getChildItem (v-model) runs: HTTPServer, 3.14.",
            "(v-model) runs: Running HTTPServer, getChildItem 3.14.",
            "runs: runs: runs:",
            "Ｒｕｎｎｉｎｇ runs, then 走る runs.",
            "running",
        ];
        for text in texts.iter().chain(texts.iter()) {
            let got = found(a.matches(text, &terms, &mut memo));
            assert_eq!(got, plainly(&a, text, &terms), "{text:?}");
        }
        assert!(!memo.runs.is_empty(), "ASCII runs are kept");
    }

    #[test]
    fn a_page_in_another_language_does_not_read_english_runs() {
        let terms: HashSet<&str> = ["running", "run", "laufen", "lauf"].into_iter().collect();
        let mut memo = MatchMemo::default();
        for lang in [Language::English, Language::German, Language::English] {
            let a = Analyzer::for_language(lang);
            for text in ["running laufen", "Laufen running"] {
                let got = found(a.matches(text, &terms, &mut memo));
                assert_eq!(got, plainly(&a, text, &terms), "{lang:?} {text:?}");
            }
        }
    }

    #[test]
    fn stems_kept_between_queries_change_nothing() {
        let a = Analyzer::new();
        let first: HashSet<&str> = ["configur"].into_iter().collect();
        let mut memo = MatchMemo::default();
        let text = "Configuring the configuration configures it";
        assert_eq!(
            found(a.matches(text, &first, &mut memo)),
            plainly(&a, text, &first)
        );
        // The next query starts from this one's stems, with other terms.
        let second: HashSet<&str> = ["it", "the"].into_iter().collect();
        let mut next = MatchMemo::with_stems(memo.into_stems());
        assert_eq!(
            found(a.matches(text, &second, &mut next)),
            plainly(&a, text, &second)
        );
    }

    /// Matches `texts` one after another through one memo (runs read back, stems kept), each
    /// against analysing the text whole: every term wanted (each piece's place checked), or
    /// the few `picks` names.
    fn through_one_memo(texts: &[String], picks: &[usize]) -> Result<(), TestCaseError> {
        let a = Analyzer::new();
        let all: Vec<String> = texts
            .iter()
            .flat_map(|t| a.analyze(t))
            .map(|t| t.term)
            .collect();
        let wanted: Vec<&str> = if picks[0] % 2 == 0 {
            all.iter().map(String::as_str).collect()
        } else {
            picks
                .iter()
                .filter_map(|&i| all.get(i % all.len().max(1)).map(String::as_str))
                .collect()
        };
        let terms: HashSet<&str> = wanted.into_iter().collect();
        let mut memo = MatchMemo::default();
        for text in texts.iter().chain(texts.iter()) {
            prop_assert_eq!(
                found(a.matches(text, &terms, &mut memo)),
                plainly(&a, text, &terms)
            );
        }
        Ok(())
    }

    proptest! {
        /// ASCII texts of letters, digits, connectors, case changes and brackets: the same
        /// terms at the same places through the memo as analysing each text whole.
        #[test]
        fn matching_ascii_through_the_memo_is_analysing(
            texts in prop::collection::vec("[aZkS09 ._:',;\\-()\"\n/]{0,40}", 1..6),
            picks in prop::collection::vec(0usize..64, 1..6),
        ) {
            through_one_memo(&texts, &picks)?;
        }

        /// The same with some non-ASCII among them (no runs kept where offsets move).
        #[test]
        fn matching_mixed_text_through_the_memo_is_analysing(
            texts in prop::collection::vec("[aZkS09 ._:',;\\-()\"\n/é–ｶ]{0,40}", 1..6),
            picks in prop::collection::vec(0usize..64, 1..6),
        ) {
            through_one_memo(&texts, &picks)?;
        }
    }
}
