//! `build-index eval --floor`: how well a relevance floor tells the judged sections from the
//! rest among those only the semantic leg finds.
//!
//! A hybrid answer counts the sections that hold the query's words and, of the sections only
//! the semantic leg finds (in its fused head), those above a floor (`rank::fusion::counted`).
//! A floor too low counts unrelated sections ("109 results" for any query); too high, it
//! drops the paraphrase a reader meant. This report measures, over a judged question set,
//! each candidate floor's precision (judged sections among the semantic-only sections it
//! counts) and recall (of the judged semantic-only sections in the head, those it counts),
//! beside the counted results per query, so the shipped rule is chosen on judgments rather
//! than by eye. Unjudged sections count as unrelated: precision is a lower bound.

use midashi_core::rank::fusion::FUSION_HEAD;
use midashi_core::{Mode, SearchIndex, SearchOptions};
use std::collections::{HashMap, HashSet};

use crate::error::Result;

/// One question's semantic-only head and what its judgments say of it.
struct Question {
    /// The index's noise floor (what nonsense reaches).
    noise: f32,
    /// The semantic leg's best similarity.
    best: f32,
    /// Sections that hold the query's words.
    keyword_matches: usize,
    /// Judged sections, and how many of them hold the query's words.
    judged: usize,
    judged_with_words: usize,
    /// The semantic head: (similarity, judged, holds the query's words).
    head: Vec<(f32, bool, bool)>,
}

/// A candidate floor for a question: from its noise floor and best similarity.
struct Rule {
    name: String,
    floor: Box<dyn Fn(&Question) -> f32>,
}

/// The questions seen so far.
#[derive(Default)]
pub struct FloorReport {
    questions: Vec<Question>,
}

/// A section's id as the judgments name it: `path#anchor`, or `path` for a page's top.
fn judged_id(path: &str, anchor: Option<&str>) -> String {
    match anchor {
        Some(a) => format!("{path}#{a}"),
        None => path.to_string(),
    }
}

impl FloorReport {
    /// Adds one question with its vector: its keyword matches (every page of them) and
    /// the semantic leg's head, ungrouped, as the fusion sees them.
    pub fn add(
        &mut self,
        index: &SearchIndex,
        text: &str,
        vector: &[f32],
        judged: &HashMap<String, f64>,
    ) -> Result<()> {
        let Some(vectors) = index.vectors() else {
            return Ok(());
        };
        let relevant: HashSet<&str> = judged
            .iter()
            .filter(|(_, &g)| g > 0.0)
            .map(|(id, _)| id.as_str())
            .collect();
        let page = 1000;
        let mut words: HashSet<String> = HashSet::new();
        let mut offset = 0;
        loop {
            let opts = SearchOptions {
                mode: Mode::Keyword,
                limit: page,
                offset,
                group: false,
                prefix: false,
                excerpts: false,
                ..SearchOptions::default()
            };
            let answer = index.search(text, &opts, None)?;
            let n = answer.results.len();
            words.extend(
                answer
                    .results
                    .into_iter()
                    .map(|h| judged_id(&h.path, h.anchor.as_deref())),
            );
            offset += page;
            if n < page || offset >= index.section_count() {
                break;
            }
        }
        let opts = SearchOptions {
            mode: Mode::Semantic,
            limit: FUSION_HEAD,
            group: false,
            prefix: false,
            excerpts: false,
            ..SearchOptions::default()
        };
        let head = index.search(text, &opts, Some(vector))?.results;
        let best = head.first().map_or(f32::NEG_INFINITY, |h| h.score);
        let head = head
            .iter()
            .map(|h| {
                let id = judged_id(&h.path, h.anchor.as_deref());
                (h.score, relevant.contains(id.as_str()), words.contains(&id))
            })
            .collect();
        self.questions.push(Question {
            noise: vectors.relevance_floor(),
            best,
            keyword_matches: words.len(),
            judged: relevant.len(),
            judged_with_words: relevant.iter().filter(|id| words.contains(**id)).count(),
            head,
        });
        Ok(())
    }

    /// The candidate floors: the shipped noise floor, margins below the best similarity,
    /// and both together.
    fn rules() -> Vec<Rule> {
        let mut rules = vec![
            Rule {
                name: "none (the whole head)".into(),
                floor: Box::new(|_| f32::NEG_INFINITY),
            },
            Rule {
                name: "noise floor".into(),
                floor: Box::new(|q| q.noise),
            },
        ];
        for margin in [0.05f32, 0.10, 0.15, 0.20] {
            rules.push(Rule {
                name: format!("best − {margin:.2}"),
                floor: Box::new(move |q| q.best - margin),
            });
            rules.push(Rule {
                name: format!("max(noise, best − {margin:.2})"),
                floor: Box::new(move |q| q.noise.max(q.best - margin)),
            });
        }
        rules
    }

    /// The table: one row per rule.
    pub fn print(&self) {
        let n = self.questions.len();
        println!("relevance floor over {n} questions with a vector (semantic head {FUSION_HEAD}, ungrouped):");
        if n == 0 {
            return;
        }
        let judged: usize = self.questions.iter().map(|q| q.judged).sum();
        let with_words: usize = self.questions.iter().map(|q| q.judged_with_words).sum();
        let in_head = |only: bool| -> usize {
            self.questions
                .iter()
                .map(|q| q.head.iter().filter(|h| h.1 && !(only && h.2)).count())
                .sum()
        };
        let (judged_head, judged_only) = (in_head(false), in_head(true));
        println!(
            "  judged sections {judged}: {with_words} hold a query word; {judged_head} in the semantic head, {judged_only} of them only there"
        );
        println!("  Counted: word matches plus the semantic-only sections above the floor. Head: the floor read as a");
        println!("  cut of the whole semantic head (precision: judged among those above; recall: judged above / judged in head).");
        println!("  | floor | counted (median) | semantic-only counted | its precision | its recall | head above | head precision | head recall |");
        println!("  |---|---:|---:|---:|---:|---:|---:|---:|");
        let ratio = |a: usize, b: usize| {
            if b == 0 {
                "–".to_string()
            } else {
                format!("{:.3}", a as f64 / b as f64)
            }
        };
        for rule in Self::rules() {
            let t = self.tally(&rule);
            println!(
                "  | {} | {} | {:.1} | {} | {} | {:.1} | {} | {} |",
                rule.name,
                t.counted_median,
                t.semantic_only as f64 / n as f64,
                ratio(t.semantic_only_judged, t.semantic_only),
                ratio(t.semantic_only_judged, judged_only),
                t.above as f64 / n as f64,
                ratio(t.above_judged, t.above),
                ratio(t.above_judged, judged_head),
            );
        }
    }

    /// What `rule` keeps of every question's head.
    fn tally(&self, rule: &Rule) -> Tally {
        let mut t = Tally::default();
        let mut counted: Vec<usize> = Vec::with_capacity(self.questions.len());
        for q in &self.questions {
            let floor = (rule.floor)(q);
            let mut kept_only = 0;
            for &(_, judged, words) in q.head.iter().filter(|h| h.0 >= floor) {
                t.above += 1;
                t.above_judged += usize::from(judged);
                if !words {
                    kept_only += 1;
                    t.semantic_only_judged += usize::from(judged);
                }
            }
            t.semantic_only += kept_only;
            counted.push(q.keyword_matches + kept_only);
        }
        counted.sort_unstable();
        t.counted_median = counted.get(counted.len() / 2).copied().unwrap_or(0);
        t
    }
}

/// What one floor keeps, summed over the questions.
#[derive(Debug, Default, PartialEq)]
struct Tally {
    /// Results a question reports, median.
    counted_median: usize,
    /// Head sections without a query word above the floor, and the judged among them.
    semantic_only: usize,
    semantic_only_judged: usize,
    /// Head sections above the floor, and the judged among them.
    above: usize,
    above_judged: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_floor_counts_word_matches_and_semantic_sections_above_it() {
        let question = |best: f32, head: Vec<(f32, bool, bool)>| Question {
            noise: 0.5,
            best,
            keyword_matches: 10,
            judged: 2,
            judged_with_words: 1,
            head,
        };
        let report = FloorReport {
            questions: vec![
                // Above the noise floor: a judged section with words, an unjudged one
                // without; below it: a judged one without words.
                question(
                    0.9,
                    vec![(0.9, true, true), (0.6, false, false), (0.4, true, false)],
                ),
                question(0.45, vec![(0.45, false, false)]),
            ],
        };
        let noise = Rule {
            name: String::new(),
            floor: Box::new(|q| q.noise),
        };
        assert_eq!(
            report.tally(&noise),
            Tally {
                counted_median: 11,
                semantic_only: 1,
                semantic_only_judged: 0,
                above: 2,
                above_judged: 1,
            }
        );
        let none = Rule {
            name: String::new(),
            floor: Box::new(|_| f32::NEG_INFINITY),
        };
        let all = report.tally(&none);
        assert_eq!((all.semantic_only, all.semantic_only_judged), (3, 1));
        assert_eq!(
            (all.above, all.above_judged, all.counted_median),
            (4, 2, 12)
        );
    }
}
