//! Section ids a file can leave out: a bundle or card section's id is a hash of what the
//! file already holds (its document's path, heading path and occurrence), so the writer
//! elides the ids a reader derives and the reader restores them.
use super::links::{Link, LinkDoc};
use crate::section::SectionId;
/// A file that leaves out the section ids a reader can derive ([`Bundle`], [`Card`]): an
/// id of 0 means "derive it", unless a real id is 0 and derives to something else — then
/// `derived_ids` is false and every id is stored.
pub(crate) trait DerivableIds {
    /// Per section, what its id hashes: its document's path, its heading path and
    /// occurrence (`None`: a damaged file).
    fn id_keys(&self) -> Vec<Option<(&str, Vec<String>, u32)>>;
    /// The documents links point into, and each section's links.
    fn link_parts(&self) -> (&[LinkDoc], &[Vec<Link>]);

    /// What each section's own id and its links' ids derive to, in order: a link is the
    /// same section in another version's document, so it hashes that document's path with
    /// the same headings.
    fn derived(&self) -> Vec<(u64, Vec<u64>)> {
        let (link_docs, links) = self.link_parts();
        self.id_keys()
            .into_iter()
            .zip(links)
            .map(|(key, links)| match key {
                None => (0, vec![0; links.len()]),
                Some((path, headings, occurrence)) => (
                    SectionId::new(path, &headings, occurrence).0,
                    links
                        .iter()
                        .map(|l| {
                            link_docs
                                .get(l.doc as usize)
                                .map_or(0, |d| SectionId::new(&d.path, &headings, occurrence).0)
                        })
                        .collect(),
                ),
            })
            .collect()
    }
    /// The `derived_ids` flag, and each section's id with its links, in order.
    fn ids_mut(&mut self) -> (&mut bool, Vec<(&mut u64, &mut Vec<Link>)>);
}

/// Replaces every id of `file` that derives by 0 (before writing).
pub(crate) fn elide_ids(file: &mut impl DerivableIds) {
    let derived = file.derived();
    let (flag, ids) = file.ids_mut();
    let clash = ids
        .iter()
        .zip(&derived)
        .any(|((id, links), (own, theirs))| {
            (**id == 0 && *own != 0) || links.iter().zip(theirs).any(|(l, d)| l.id == 0 && *d != 0)
        });
    *flag = !clash;
    if *flag {
        replace_ids(ids, derived, |id, d| if id == d { 0 } else { id });
    }
}

/// Puts back the ids [`elide_ids`] left out (after reading).
pub(crate) fn restore_ids(file: &mut impl DerivableIds) {
    let derived = file.derived();
    let (flag, ids) = file.ids_mut();
    if *flag {
        replace_ids(ids, derived, |id, d| if id == 0 { d } else { id });
    }
}

/// Sets every id (own and linked) to `f(stored, derived)`: the one walk both directions share.
fn replace_ids(
    ids: Vec<(&mut u64, &mut Vec<Link>)>,
    derived: Vec<(u64, Vec<u64>)>,
    f: impl Fn(u64, u64) -> u64,
) {
    for ((id, links), (own, theirs)) in ids.into_iter().zip(derived) {
        *id = f(*id, own);
        for (l, d) in links.iter_mut().zip(theirs) {
            l.id = f(l.id, d);
        }
    }
}
