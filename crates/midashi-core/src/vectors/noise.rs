//! The noise floor of an index's vectors: how close a query of nonsense comes to its
//! nearest section.
//!
//! A sentence model maps every text somewhere, so the semantic leg always has a "best"
//! section — `xylophonequartz` found 42 results on the demo. Similarities are not
//! comparable across models or corpora (all-MiniLM-L6-v2 gives the Rust book's nearest
//! section 0.19–0.37 for keyboard mashing, 0.8–0.9 for a real question), so no fixed cut
//! works: the builder embeds [`nonsense_queries`] with the index's own model and stores the
//! highest best-match they reach ([`measure`]). At query time a query whose words match
//! nothing in the index keeps its semantic results only when its best similarity lies above
//! that floor (`VectorsData::clearly_above_noise`); otherwise the answer is empty, with a
//! "did you mean" when there is one.

use super::VectorsData;

/// How many nonsense queries the floor is measured on: the floor is their highest best
/// match, so about the 98th percentile of what nonsense reaches.
pub const NONSENSE_QUERIES: usize = 48;

/// Deterministic queries that mean nothing in any language, a quarter of each kind: random
/// letter runs; runs along a keyboard row (`asdfgh`: what people type to try a search box);
/// pronounceable pseudo-words (consonant–vowel syllables, which a subword tokenizer splits
/// into real word pieces: the hardest nonsense for a model); two such words together. The
/// same list for every build, so index bytes stay reproducible.
pub fn nonsense_queries() -> Vec<String> {
    // A fixed 64-bit LCG (Knuth's MMIX constants): enough to scatter letters, no crate.
    let mut state: u64 = 0x6e6f_6973_6566_6c72;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    const CONSONANTS: &[u8] = b"bcdfghjklmnpqrstvwxz";
    const VOWELS: &[u8] = b"aeiouy";
    let letters = |len: u64, next: &mut dyn FnMut(u64) -> u64| -> String {
        (0..len)
            .map(|_| char::from(b'a' + next(26) as u8))
            .collect()
    };
    let pseudo_word = |next: &mut dyn FnMut(u64) -> u64| -> String {
        let syllables = 2 + next(3);
        let mut w = String::new();
        for _ in 0..syllables {
            w.push(char::from(
                CONSONANTS[next(CONSONANTS.len() as u64) as usize],
            ));
            w.push(char::from(VOWELS[next(VOWELS.len() as u64) as usize]));
            if next(3) == 0 {
                w.push(char::from(
                    CONSONANTS[next(CONSONANTS.len() as u64) as usize],
                ));
            }
        }
        w
    };
    const ROWS: [&str; 3] = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];
    let quarter = NONSENSE_QUERIES / 4;
    let mut out = Vec::with_capacity(NONSENSE_QUERIES);
    for _ in 0..quarter {
        let len = 5 + next(10);
        out.push(letters(len, &mut next));
    }
    while out.len() < 2 * quarter {
        let row = ROWS[next(3) as usize];
        let len = 4 + next(row.len() as u64 - 3) as usize;
        let from = next((row.len() - len + 1) as u64) as usize;
        let run = &row[from..from + len];
        let run: String = if next(4) == 0 {
            run.chars().rev().collect()
        } else {
            run.to_string()
        };
        // Short rows give few distinct runs: keep the list free of repeats.
        if !out.contains(&run) {
            out.push(run);
        }
    }
    for _ in 0..quarter {
        out.push(pseudo_word(&mut next));
    }
    while out.len() < NONSENSE_QUERIES {
        let a = pseudo_word(&mut next);
        let b = pseudo_word(&mut next);
        out.push(format!("{a} {b}"));
    }
    out
}

/// The floor: the highest best-match similarity of `query_vectors` (the embeddings of
/// [`nonsense_queries`], made as queries are) over `vectors`; `None` without rows.
pub fn measure(vectors: &VectorsData, query_vectors: &[Vec<f32>]) -> Option<f32> {
    query_vectors
        .iter()
        .filter_map(|q| vectors.scan(q).first().map(|&(_, s)| s))
        .reduce(f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonsense_is_fixed_varied_and_wordlike() {
        let q = nonsense_queries();
        assert_eq!(q.len(), NONSENSE_QUERIES);
        assert_eq!(q, nonsense_queries(), "the same list every build");
        let distinct: std::collections::HashSet<&String> = q.iter().collect();
        assert_eq!(distinct.len(), q.len());
        assert!(q.iter().all(|s| s.len() >= 4 && s.is_ascii()));
        assert_eq!(
            q.iter().filter(|s| s.contains(' ')).count(),
            NONSENSE_QUERIES / 4
        );
    }

    #[test]
    fn the_floor_is_the_highest_best_match() {
        let mut v = VectorsData::new(2);
        v.push(0, &[1.0, 0.0]);
        v.push(1, &[0.0, 1.0]);
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let floor = measure(&v, &[vec![0.6, 0.8], vec![s, s]]).unwrap();
        assert!((floor - 0.8).abs() < 0.01, "{floor}");
        assert_eq!(measure(&VectorsData::new(2), &[vec![1.0, 0.0]]), None);
    }
}
