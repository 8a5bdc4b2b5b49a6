//! What a fetched file must be to take its place in a loaded sharded index: the directory
//! says which terms a shard holds and which sections a card or a bundle holds, so a valid
//! file of the same kind put in another's place is refused instead of answering wrongly.

use super::files::{Card, Shard};
use super::names::NAME_HASH_MASK;
use super::read::{LoadedShard, Sharded};
use super::scores::read_sections;
use crate::error::{Error, Result};
use crate::format::frame::decode;
use crate::format::kind::FileKind;
use crate::query::lexicon::open_dictionary;

impl Sharded {
    /// Shard `i` read from `bytes`, if it is the shard the directory places there and its
    /// lists are sound enough to load.
    pub(super) fn shard_that_fits(&self, i: u32, name: &str, bytes: &[u8]) -> Result<LoadedShard> {
        let data: Shard = decode(FileKind::Shard, name, bytes)?;
        let map = open_dictionary(name, data.fst.clone())?;
        let refuse = |detail: &str| Error::Malformed {
            file: name.to_string(),
            detail: format!("{detail}; fetch or copy the index folder again, or rebuild it"),
        };
        // Shards are named by their first term, not their content: a valid shard of another
        // range put in this one's place is caught by its terms, one of another build by its
        // group's stamp.
        if !self.shard_in_range(i, &map) {
            return Err(refuse(
                "its terms are not the ones the directory places in this shard: another shard \
                 (from another build?) was put in its place",
            ));
        }
        let group = self.dir.shards.get(i as usize).map_or(0, |s| s.group);
        if self.stamped && data.group != group {
            return Err(refuse(
                "it is not the shard the directory names: it comes from another build of the \
                 index (its stamp differs)",
            ));
        }
        let bare = read_sections(&data.bare, self.dir.n_sections)
            .ok_or_else(|| refuse("its list of sections without text is damaged"))?;
        Ok(LoadedShard { map, data, bare })
    }

    /// Whether the first term of shard `i`'s dictionary lies in the range the directory gives
    /// it: from its first term up to the next shard's.
    pub(super) fn shard_in_range(&self, i: u32, map: &fst::Map<Vec<u8>>) -> bool {
        use fst::Streamer;
        let mut stream = map.stream();
        let Some((first, _)) = stream.next() else {
            return true;
        };
        let i = i as usize;
        let from = self.dir.shards.get(i).map(|s| s.first_term.as_bytes());
        let to = self.dir.shards.get(i + 1).map(|s| s.first_term.as_bytes());
        from.is_some_and(|f| first >= f) && to.is_none_or(|t| first < t)
    }

    /// Refuses card `data` (file `name`) unless it comes from the directory's build (carries
    /// its stamp), when the index stamps its cards.
    pub(super) fn card_of_this_build(&self, name: &str, data: &Card) -> Result<()> {
        if !self.stamped || data.salt == self.dir.cards_salt & NAME_HASH_MASK {
            return Ok(());
        }
        Err(Error::Malformed {
            file: name.to_string(),
            detail:
                "it is not the card the directory names: it comes from another build of the \
                     index (its stamp differs); fetch or copy the index folder again, or rebuild it"
                    .into(),
        })
    }

    /// Whether card `data` is what the directory says card `i` is: its sections, in their
    /// documents, with sane line numbers and links.
    pub(super) fn card_fits(&self, i: u32, data: &Card) -> bool {
        let first = i * self.dir.card_sections;
        let expected = (first + self.dir.card_sections).min(self.dir.n_sections) - first;
        let first_doc = data.docs.first().map_or(0, |d| d.doc);
        data.first_section == first
            && data.sections.len() == expected as usize
            && links_fit(&data.link_docs, &data.links, data.sections.len())
            && data
                .docs
                .iter()
                .enumerate()
                .all(|(j, d)| d.doc as usize == first_doc as usize + j)
            && data.sections.iter().enumerate().all(|(j, s)| {
                let r = &s.record;
                r.doc == self.doc_of(first + j as u32)
                    && (r.doc as usize).wrapping_sub(first_doc as usize) < data.docs.len()
                    && lines_fit(r)
            })
    }
}

/// Whether a bundle's or card's other-version links are one list per section, each into
/// its `link_docs`.
pub(super) fn links_fit(
    link_docs: &[super::LinkDoc],
    links: &[Vec<super::Link>],
    sections: usize,
) -> bool {
    links.len() == sections
        && links
            .iter()
            .flatten()
            .all(|l| (l.doc as usize) < link_docs.len())
}

/// Whether a section's line numbers are in order (1 ≤ start ≤ own end ≤ end).
pub(super) fn lines_fit(r: &crate::section::records::SectionRecord) -> bool {
    1 <= r.start_line && r.start_line <= r.own_end_line && r.own_end_line <= r.end_line
}
