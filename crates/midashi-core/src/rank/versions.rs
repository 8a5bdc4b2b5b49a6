//! Versioned docs: the same page in several product versions (`5.1/…`, `7.4/…`, …).
//!
//! A versioned site holds near-identical copies of most pages, one per version, so an
//! unfiltered query would show the same section five times. A section's *family* is the
//! same section in every version: its document path without the version folder, its
//! heading path and its occurrence number — the inputs of [`crate::section::SectionId`]
//! minus the version, so a family survives the text differences between versions.
//! [`collapse`] keeps one result per family (the newest version that matched) and lists the
//! others with it.

use crate::section::records::SectionsData;
use rustc_hash::FxHashMap as HashMap;
use std::cmp::Ordering;

/// Orders version strings the way people read them: `7.10` after `7.9`, `7.4` after `5.1`;
/// a pre-release suffix (`7.5-preview`) before its release; non-numeric parts by bytes.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    let split = |s: &str| {
        let s = s.strip_prefix(['v', 'V']).unwrap_or(s);
        let (core, pre) = s.split_once('-').unwrap_or((s, ""));
        (core.to_string(), pre.to_string())
    };
    let (ac, ap) = split(a);
    let (bc, bp) = split(b);
    let mut ai = ac.split('.');
    let mut bi = bc.split('.');
    loop {
        match (ai.next(), bi.next()) {
            (None, None) => break,
            (x, y) => {
                let (x, y) = (x.unwrap_or("0"), y.unwrap_or("0"));
                let ord = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(p), Ok(q)) => p.cmp(&q),
                    _ => x.cmp(y),
                };
                if ord != Ordering::Equal {
                    return ord;
                }
            }
        }
    }
    // A release sorts after its pre-releases.
    match (ap.is_empty(), bp.is_empty()) {
        (true, true) => a.cmp(b),
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => ap.cmp(&bp).then_with(|| a.cmp(b)),
    }
}

/// The document path with its version folder taken out (`7.4/Module/Get-Item.md` →
/// `Module/Get-Item.md`); `None` when the path does not name the version (then the
/// version came from frontmatter alone and the path is already version-free).
fn version_free_path<'a>(path: &'a str, version: &str) -> std::borrow::Cow<'a, str> {
    let segments: Vec<&str> = path.split('/').collect();
    match segments.iter().position(|s| *s == version) {
        Some(i) => {
            let kept: Vec<&str> = segments
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, s)| *s)
                .collect();
            std::borrow::Cow::Owned(kept.join("/"))
        }
        None => std::borrow::Cow::Borrowed(path),
    }
}

/// Which family each section belongs to, for an index with at least two versions.
#[derive(Debug, Clone)]
pub struct Families {
    /// Family number per section; `u32::MAX` for sections of unversioned documents.
    family: Vec<u32>,
    /// The distinct versions, newest first.
    versions: Vec<String>,
}

impl Families {
    /// Groups the sections of `data`; `None` when the index has fewer than two versions
    /// (nothing to collapse).
    pub fn new(data: &SectionsData) -> Option<Self> {
        // Newest first. A handful of versions: kept sorted by insertion (a generic sort
        // would add kilobytes of code to the wasm module for lists this short).
        let mut versions: Vec<String> = Vec::new();
        for v in data.docs.iter().filter_map(|d| d.hints.version.as_ref()) {
            let at = versions.partition_point(|x| compare_versions(x, v) == Ordering::Greater);
            if versions.get(at) != Some(v) {
                versions.insert(at, v.clone());
            }
        }
        if versions.len() < 2 {
            return None;
        }
        let mut ids: HashMap<u64, u32> = HashMap::default();
        let mut family = vec![u32::MAX; data.sections.len()];
        for d in &data.docs {
            let Some(version) = &d.hints.version else {
                continue;
            };
            let path = version_free_path(&d.path, version);
            let first = d.first_section as usize;
            let end = (first + d.section_count as usize).min(data.sections.len());
            let mut seen: HashMap<&[String], u32> = HashMap::default();
            for (s, sec) in data.sections[first..end].iter().enumerate() {
                // The title leads every heading path; it may change between versions
                // ("… 5.1"), so the family keys on the headings below it.
                let headings = sec.heading_path.get(1..).unwrap_or(&[]);
                let occurrence = seen.entry(headings).or_insert(0);
                let key = crate::section::SectionId::new(&path, headings, *occurrence).0;
                *occurrence += 1;
                let next = ids.len() as u32;
                family[first + s] = *ids.entry(key).or_insert(next);
            }
        }
        Some(Families { family, versions })
    }

    /// The distinct versions of the index, newest first.
    pub fn versions(&self) -> &[String] {
        &self.versions
    }

    /// The family of a section (`None`: not versioned).
    pub fn family(&self, section: u32) -> Option<u32> {
        self.family
            .get(section as usize)
            .copied()
            .filter(|&f| f != u32::MAX)
    }
}

/// One result after collapsing: the section shown, its score, and the same section in the
/// other versions that matched (newest first).
#[derive(Debug, Clone, PartialEq)]
pub struct Collapsed {
    /// The section shown.
    pub section: u32,
    /// The family's best score (its place in the ranking).
    pub score: f32,
    /// The other versions' sections.
    pub others: Vec<u32>,
}

/// Keeps one result per family, in the order of each family's best-ranked member;
/// `others` holds the family's other members. Which member is shown — the newest version's —
/// is settled by [`newest_first`], for the results that need it. Sections without a family
/// pass through alone.
pub fn collapse(ranked: &[(u32, f32)], family_of: impl Fn(u32) -> Option<u32>) -> Vec<Collapsed> {
    let mut out: Vec<Collapsed> = Vec::new();
    let mut slot: HashMap<u32, usize> = HashMap::default();
    slot.reserve(ranked.len());
    for &(s, score) in ranked {
        let Some(f) = family_of(s) else {
            out.push(Collapsed {
                section: s,
                score,
                others: Vec::new(),
            });
            continue;
        };
        match slot.get(&f) {
            None => {
                slot.insert(f, out.len());
                out.push(Collapsed {
                    section: s,
                    score,
                    others: Vec::new(),
                });
            }
            Some(&i) => out[i].others.push(s),
        }
    }
    out
}

/// Makes each collapsed result show its family's newest version (`version_of` names a
/// section's version), the other members after it, newest first, ties by ordinal. Apart from
/// [`collapse`] so that a search settles it only for the results it reads: the page, unless
/// facets or a preferred language look at every result. On powershell-docs every ranked
/// section has a family, and ordering every family was a fifth of a query's time.
pub fn newest_first<'a>(results: &mut [Collapsed], version_of: impl Fn(u32) -> Option<&'a str>) {
    // Each member's version looked up once, and the few versions put in order once (`rank`,
    // equal for versions that compare equal), instead of parsing two per comparison.
    let mut versions: Vec<&str> = Vec::new();
    let mut families: Vec<Vec<(u32, usize)>> = Vec::new();
    for c in results.iter() {
        if c.others.is_empty() {
            families.push(Vec::new());
            continue;
        }
        let members = std::iter::once(c.section)
            .chain(c.others.iter().copied())
            .map(|s| {
                let v = version_of(s).unwrap_or("");
                let i = match versions.iter().position(|&w| w == v) {
                    Some(i) => i,
                    None => {
                        versions.push(v);
                        versions.len() - 1
                    }
                };
                (s, i)
            })
            .collect();
        families.push(members);
    }
    let mut by_age: Vec<usize> = (0..versions.len()).collect();
    crate::sort::sort_by(&mut by_age, |&a, &b| {
        compare_versions(versions[a], versions[b])
    });
    let mut rank = vec![0u32; versions.len()];
    for k in 1..by_age.len() {
        let newer =
            compare_versions(versions[by_age[k]], versions[by_age[k - 1]]) != Ordering::Equal;
        rank[by_age[k]] = rank[by_age[k - 1]] + u32::from(newer);
    }
    for (c, mut members) in results.iter_mut().zip(families) {
        if members.is_empty() {
            continue;
        }
        // Newest first, ties by ordinal: a total order.
        crate::sort::sort_by(&mut members, |a, b| {
            rank[b.1].cmp(&rank[a.1]).then(a.0.cmp(&b.0))
        });
        c.section = members[0].0;
        c.others = members[1..].iter().map(|m| m.0).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_shows_its_newest_version_wherever_the_page_is_cut() {
        // Sections 0–5: three families of two versions, ranked old version first.
        let ranked = [(1, 9.0), (0, 8.0), (2, 7.0), (3, 6.0), (5, 5.0), (4, 4.0)];
        let version = |s: u32| Some(if s % 2 == 0 { "7.4" } else { "5.1" });
        let family = |s: u32| Some(s / 2);
        let mut all = collapse(&ranked, family);
        newest_first(&mut all, version);
        let shown: Vec<(u32, Vec<u32>)> =
            all.iter().map(|c| (c.section, c.others.clone())).collect();
        assert_eq!(shown, [(0, vec![1]), (2, vec![3]), (4, vec![5])]);
        // The scores are the best member's, in rank order.
        assert_eq!(
            all.iter().map(|c| c.score).collect::<Vec<_>>(),
            [9.0, 7.0, 5.0]
        );
        // Settled for a page alone: the same results on that page.
        let mut paged = collapse(&ranked, family);
        newest_first(&mut paged[1..2], version);
        assert_eq!((paged[1].section, paged[1].others.clone()), (2, vec![3]));
    }

    #[test]
    fn versions_order_like_people_read_them() {
        let mut v = vec!["7.10", "5.1", "7.4", "7.5-preview", "7.5", "v6"];
        v.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(v, ["5.1", "v6", "7.4", "7.5-preview", "7.5", "7.10"]);
        assert_eq!(compare_versions("7.4", "7.4"), Ordering::Equal);
    }

    #[test]
    fn the_version_folder_is_taken_out_of_the_path() {
        assert_eq!(
            version_free_path("7.4/Core/Get-Item.md", "7.4"),
            "Core/Get-Item.md"
        );
        assert_eq!(version_free_path("docs/v2/a.md", "v2"), "docs/a.md");
        assert_eq!(version_free_path("a/b.md", "7.4"), "a/b.md");
    }
}
