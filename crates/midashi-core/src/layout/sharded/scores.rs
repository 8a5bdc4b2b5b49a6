//! A shard's scored posting lists: every (term, section) BM25F score computed at build time
//! and stored quantised in one byte, with what ranking needs of the section. Written and
//! read here, side by side.
use crate::layout::single::postings::{read_varint, write_varint};
use crate::rank::pipeline::SectionFacts;
/// One entry of a scored posting list.
///
/// A list is stored column by column, which gzip compresses far better than posting by
/// posting (neighbouring scores share their high bytes):
///
/// ```text
/// df varint, count varint (postings, ≥ df: see below),
/// count × section delta varint,
/// scores: a byte `base`, then
///   base ≥ 1: count × score byte = (exponent − base + 1) << 4 | top 4 mantissa bits,
///             0 for a score of 0   (every score 0 or positive, quantised, within 15 binades)
///   base = 0: count × f32 byte 3, count × byte 2, count × byte 1, count × byte 0 (by plane)
/// count × facts varint = subtree << 4 | heading_term << 3 | depth,
/// [count × family varint: 0 = none, else 1 + zigzag(family − previous family)]  (versioned)
/// per heading_term posting, in order: heading length varint, heading term count varint
/// ```
///
/// `heading_term`: the term is one of the section heading's query terms (what the
/// exact-heading lift compares with the query). A heading term that the section's text does
/// not index gets a posting of score 0, which changes no sum: hence `count ≥ df`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredPosting {
    /// Section ordinal.
    pub section: u32,
    /// The BM25F score of the term in the section.
    pub score: f32,
    /// The section's facts.
    pub facts: SectionFacts,
    /// For a heading term: the heading's length in terms and its distinct query terms.
    pub heading: Option<(u32, u32)>,
}

/// Writes one scored list. `postings` must be sorted by section.
pub fn write_scored_list(out: &mut Vec<u8>, df: u64, versioned: bool, postings: &[ScoredPosting]) {
    write_varint(out, df);
    write_varint(out, postings.len() as u64);
    let mut prev = 0u32;
    for p in postings {
        write_varint(out, u64::from(p.section - prev));
        prev = p.section;
    }
    write_scores(out, postings);
    for p in postings {
        let flag = u64::from(p.heading.is_some());
        write_varint(
            out,
            u64::from(p.facts.subtree) << 4 | flag << 3 | u64::from(p.facts.depth & 7),
        );
    }
    if versioned {
        // Families as the zigzag difference from the previous posting's (0 = none): the
        // sections of one page, and of its copies in other versions, have neighbouring ones.
        let mut prev = 0i64;
        for p in postings {
            match p.facts.family {
                None => write_varint(out, 0),
                Some(f) => {
                    let d = i64::from(f) - prev;
                    prev = i64::from(f);
                    write_varint(out, (((d << 1) ^ (d >> 63)) as u64) + 1);
                }
            }
        }
    }
    for (len, count) in postings.iter().filter_map(|p| p.heading) {
        write_varint(out, u64::from(len));
        write_varint(out, u64::from(count));
    }
}

/// Mantissa bits a quantised score keeps (`scoring::quantise`): a score byte is its
/// exponent's offset from the list's smallest (high nibble, 0 for a score of 0) and these.
const SCORE_MANTISSA_BITS: u32 = 23 - crate::rank::bm25::DROPPED_BITS;
const _: () = assert!(
    SCORE_MANTISSA_BITS == 4,
    "a score byte holds 4 mantissa bits"
);
/// Binades a list's scores may span to be written a byte each (the high nibble's 1..=15).
const SCORE_BINADES: u32 = 15;

/// Writes a list's scores: one byte each when they are quantised and span at most
/// [`SCORE_BINADES`] binades (always, for BM25F scores: the score bytes of a common word's
/// list are a quarter lighter in gzip than two planes of f32 bytes), else as f32 planes.
fn write_scores(out: &mut Vec<u8>, postings: &[ScoredPosting]) {
    let low = (1u32 << crate::rank::bm25::DROPPED_BITS) - 1;
    let exponent = |bits: u32| bits >> 23;
    // Smallest and largest exponent of the non-zero scores, and whether they all fit.
    let (mut base, mut top, mut bytewise) = (u32::MAX, 0, true);
    for b in postings
        .iter()
        .map(|p| p.score.to_bits())
        .filter(|&b| b != 0)
    {
        bytewise &= b & low == 0 && (1..255).contains(&exponent(b));
        base = base.min(exponent(b));
        top = top.max(exponent(b));
    }
    if base == u32::MAX {
        (base, top) = (1, 1); // all zero
    }
    if bytewise && top - base < SCORE_BINADES {
        out.push(base as u8);
        out.extend(postings.iter().map(|p| match p.score.to_bits() {
            0 => 0,
            b => {
                let mantissa =
                    (b >> crate::rank::bm25::DROPPED_BITS) & ((1 << SCORE_MANTISSA_BITS) - 1);
                ((exponent(b) - base + 1) << SCORE_MANTISSA_BITS | mantissa) as u8
            }
        }));
    } else {
        out.push(0);
        for plane in (0..4).rev() {
            out.extend(postings.iter().map(|p| p.score.to_le_bytes()[plane]));
        }
    }
}

/// A quantised score byte of a list whose `base` is at least 1; `None` if malformed.
#[inline(always)]
fn score_byte(base: u32, b: u8) -> Option<f32> {
    let offset = u32::from(b) >> SCORE_MANTISSA_BITS;
    let mantissa = u32::from(b) & ((1 << SCORE_MANTISSA_BITS) - 1);
    match offset {
        0 if mantissa == 0 => Some(0.0),
        0 => None,
        _ => {
            let exponent = base + offset - 1;
            if exponent >= 255 {
                return None;
            }
            Some(f32::from_bits(
                exponent << 23 | mantissa << crate::rank::bm25::DROPPED_BITS,
            ))
        }
    }
}

/// Walks the scored list at `offset` posting by posting, without keeping it: each
/// posting's section, score, facts (bareness from `bare`, the shard's bare sections,
/// ascending) and heading-term flag go to `visit`, in list order. Returns the list's df and
/// where its heading lengths start; `None` if the bytes are malformed (postings before the
/// damage may have been visited: the caller fails the query).
///
/// Every posting's section and subtree must lie inside the index's `n_sections`: grouping
/// walks a kept section's descendants, so a damaged subtree of 2³² would cost billions of
/// steps (a fuzzed shard took 22 s and 690 MB) where a refusal costs nothing.
///
/// Why a walk: a prefix typed on a large site completes to words that hold most of its
/// sections, and building each list as [`ScoredPosting`]s (36 bytes a posting, five
/// passes) only for ranking to read it once was a third of such a keystroke's time.
pub fn visit_scored_list(
    buf: &[u8],
    offset: usize,
    versioned: bool,
    n_sections: u32,
    bare: &[u32],
    mut visit: impl FnMut(u32, f32, SectionFacts, bool),
) -> Option<(u64, usize)> {
    let mut pos = offset;
    let df = read_varint(buf, &mut pos)?;
    let count = usize::try_from(read_varint(buf, &mut pos)?).ok()?;
    // Each posting takes at least 3 bytes: a damaged count cannot make us allocate much.
    if count > buf.len().saturating_sub(pos) / 3 + 1 {
        return None;
    }
    let mut sections = Vec::with_capacity(count);
    let mut section = 0u32;
    for _ in 0..count {
        section = section.checked_add(u32::try_from(read_varint(buf, &mut pos)?).ok()?)?;
        if section >= n_sections {
            return None;
        }
        sections.push(section);
    }
    let base = u32::from(*buf.get(pos)?);
    pos += 1;
    let width = if base == 0 { 4 } else { 1 };
    let scores = buf.get(pos..pos.checked_add(count.checked_mul(width)?)?)?;
    pos += scores.len();
    // The family column follows the facts column: find where, to read both in step.
    let mut family_pos = pos;
    if versioned {
        for _ in 0..count {
            read_varint(buf, &mut family_pos)?;
        }
    }
    let mut prev_family = 0i64;
    let mut bare = bare.iter().peekable();
    for (i, &section) in sections.iter().enumerate() {
        let packed = read_varint(buf, &mut pos)?;
        let subtree = u32::try_from(packed >> 4).ok()?;
        if subtree >= n_sections - section {
            return None;
        }
        let family = if versioned {
            match read_varint(buf, &mut family_pos)? {
                0 => None,
                z => {
                    let z = z - 1;
                    let d = (z >> 1) as i64 ^ -((z & 1) as i64);
                    prev_family = prev_family.checked_add(d)?;
                    Some(u32::try_from(prev_family).ok()?)
                }
            }
        } else {
            None
        };
        // Both lists ascend by section: one walk through them together (a binary search
        // per posting was a tenth of a common prefix's time on a large site).
        while bare.next_if(|&&b| b < section).is_some() {}
        let facts = SectionFacts {
            depth: (packed & 7) as u8,
            subtree,
            family,
            bare: bare.peek() == Some(&&section),
        };
        let score = if base == 0 {
            let b = |plane: usize| scores[(3 - plane) * count + i];
            f32::from_le_bytes([b(0), b(1), b(2), b(3)])
        } else {
            score_byte(base, scores[i])?
        };
        visit(section, score, facts, packed & 8 != 0);
    }
    Some((df, if versioned { family_pos } else { pos }))
}

/// The number of postings of the list at `offset` (its first two varints).
pub fn list_len(buf: &[u8], offset: usize) -> Option<usize> {
    let mut pos = offset;
    read_varint(buf, &mut pos)?;
    usize::try_from(read_varint(buf, &mut pos)?).ok()
}

/// The largest score of the list at `offset` and its `k`-th largest non-zero one (0 when it
/// has fewer), read from its score column alone: what [`crate::rank::topk`] bounds a
/// query's candidates with before the list is walked. `None` if the bytes are malformed or
/// the scores are stored as f32 planes (never for BM25F scores; the query then ranks every
/// candidate).
///
/// A score byte's order is its score's (exponent offset above mantissa), so a count per byte
/// value is the list's score histogram; the section column before it is skipped by its
/// varints' last bytes, without decoding them.
pub fn list_stats(buf: &[u8], offset: usize, k: usize) -> Option<(f32, f32)> {
    let mut pos = offset;
    read_varint(buf, &mut pos)?;
    let count = usize::try_from(read_varint(buf, &mut pos)?).ok()?;
    let mut ends = 0;
    while ends < count {
        ends += usize::from(*buf.get(pos)? & 0x80 == 0);
        pos += 1;
    }
    let base = u32::from(*buf.get(pos)?);
    if base == 0 {
        return None;
    }
    let column = buf.get(pos + 1..pos.checked_add(1)?.checked_add(count)?)?;
    if count < k {
        // No k-th: the largest byte is the largest score.
        let top = column.iter().copied().max().unwrap_or(0);
        let max = if top == 0 {
            0.0
        } else {
            score_byte(base, top)?
        };
        return Some((max, 0.0));
    }
    let mut histogram = [0u32; 256];
    for &b in column {
        histogram[usize::from(b)] += 1;
    }
    let (mut max, mut kth, mut seen) = (0f32, 0f32, 0usize);
    for b in (1..256).rev() {
        let n = histogram[b] as usize;
        if n == 0 {
            continue;
        }
        let score = score_byte(base, b as u8)?;
        if max == 0.0 {
            max = score;
        }
        seen += n;
        if seen >= k {
            kth = score;
            break;
        }
    }
    Some((max, kth))
}

/// Reads a scored list at `offset` whole, with its heading lengths: its df and postings
/// (bareness from `bare`, as [`visit_scored_list`]); `None` if the bytes are malformed.
pub fn read_scored_list(
    buf: &[u8],
    offset: usize,
    versioned: bool,
    n_sections: u32,
    bare: &[u32],
) -> Option<(u64, Vec<ScoredPosting>)> {
    let mut out = Vec::new();
    let (df, mut pos) = visit_scored_list(
        buf,
        offset,
        versioned,
        n_sections,
        bare,
        |section, score, facts, heading| {
            out.push(ScoredPosting {
                section,
                score,
                facts,
                heading: heading.then_some((0, 0)),
            })
        },
    )?;
    for p in out.iter_mut().filter(|p| p.heading.is_some()) {
        let len = u32::try_from(read_varint(buf, &mut pos)?).ok()?;
        let count = u32::try_from(read_varint(buf, &mut pos)?).ok()?;
        p.heading = Some((len, count));
    }
    Some((df, out))
}

/// A list's heading postings: `(section, heading length, distinct heading terms)`.
pub type HeadingPostings = Vec<(u32, u32, u32)>;

/// [`visit_scored_list`], noting on the way the postings whose heading holds the term, with
/// that heading's length and number of distinct terms (`(section, len, count)`, what the
/// exact-heading lift reads). `None` if the list is malformed; `Some(None)` if only its
/// heading lengths are.
pub fn visit_noting_headings(
    buf: &[u8],
    offset: usize,
    versioned: bool,
    n_sections: u32,
    bare: &[u32],
    mut visit: impl FnMut(u32, f32, SectionFacts),
) -> Option<Option<HeadingPostings>> {
    let mut heads = Vec::new();
    let (_, mut pos) = visit_scored_list(
        buf,
        offset,
        versioned,
        n_sections,
        bare,
        |s, score, facts, heading| {
            if heading {
                heads.push(s);
            }
            visit(s, score, facts)
        },
    )?;
    // The heading lengths follow the list's columns, in the order of its heading postings.
    Some(
        heads
            .into_iter()
            .map(|s| {
                let len = u32::try_from(read_varint(buf, &mut pos)?).ok()?;
                let count = u32::try_from(read_varint(buf, &mut pos)?).ok()?;
                Some((s, len, count))
            })
            .collect(),
    )
}

/// The heading postings of the list at `offset` alone ([`visit_noting_headings`]); `None` if
/// the bytes are malformed. Decoding whole lists (36 bytes a posting) only for their few
/// heading postings was a tenth of a JSQuAD query's time.
pub fn read_heading_postings(
    buf: &[u8],
    offset: usize,
    versioned: bool,
    n_sections: u32,
    bare: &[u32],
) -> Option<HeadingPostings> {
    visit_noting_headings(buf, offset, versioned, n_sections, bare, |_, _, _| {})?
}

/// Writes a sorted list of section ordinals (the bare sections a shard's or the tree's
/// sections include: [`crate::rank::pipeline::SectionFacts::bare`]) as delta varints.
pub fn write_sections(sections: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut prev = 0u32;
    for (i, &s) in sections.iter().enumerate() {
        // The first is stored as is, the rest as the gap after the previous one, minus one.
        let delta = if i == 0 { s } else { s - prev - 1 };
        write_varint(&mut out, u64::from(delta));
        prev = s;
    }
    out
}

/// Reads [`write_sections`]' list; `None` if it is malformed or names a section at or past
/// `n_sections`.
pub fn read_sections(buf: &[u8], n_sections: u32) -> Option<Vec<u32>> {
    let mut out: Vec<u32> = Vec::new();
    let mut pos = 0;
    while pos < buf.len() {
        let delta = u32::try_from(read_varint(buf, &mut pos)?).ok()?;
        let s = match out.last() {
            None => delta,
            Some(&prev) => prev.checked_add(delta)?.checked_add(1)?,
        };
        if s >= n_sections {
            return None;
        }
        out.push(s);
    }
    Some(out)
}
