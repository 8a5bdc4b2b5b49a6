//! Reading a sharded index: the directory at open, the rest as queries need it.
//!
//! Files arrive one of two ways. Natively a [`FileSource`] reads them from disk the moment
//! they are wanted. In a browser fetching is asynchronous, so a query that lacks files fails
//! with [`Error::NeedsFiles`] naming them; the caller fetches them, attaches them with
//! [`Sharded::attach`] and asks again (the JS loader does this; a query needs two rounds).

use super::files::{Bundle, Card, Directory, Lexicon, Paths, Shard, Tree, STAMPED_MINOR};
use super::names::{card_hash, card_name, card_ordinal, MAX_CARDS};
use super::scores::HeadingPostings;
use crate::error::{Error, Result};
use crate::format::frame::{decode, minor_version};
use crate::format::kind::FileKind;
use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Reads an index file by name, synchronously (native callers: from the index folder).
pub type FileSource = Box<dyn Fn(&str) -> Result<Vec<u8>> + Send + Sync>;

/// Loaded shards, bundles or cards beyond this many bytes (of each kind, as fetched) are
/// dropped, least recently used first, when the next query starts, so a long session's
/// memory stays bounded: 36 MB at most, plus what one query reads. A dropped file is
/// fetched again if needed.
///
/// Bytes, not files: the bound was 384 files of each kind, and SciFact's 551 shards (2.7 MB)
/// and 1,296 cards (9 MB) went round it: asking its 300 queries again and again in Node took
/// 2.05 ms a query, most of it reading again files dropped a few queries before (in a
/// browser: fetching and verifying them), and takes 0.48 ms with this bound. Files differ in
/// size (a shard of one common word's list, a card of ten sections): their bytes are what
/// memory holds.
pub const KEEP_LOADED: usize = 12 << 20;

/// `lock()` that shrugs off poisoning: the maps only ever gain whole entries, so a panic
/// elsewhere cannot leave one half-written.
pub(crate) trait LockOk<T> {
    fn lock_ok(&self) -> MutexGuard<'_, T>;
}

impl<T> LockOk<T> for Mutex<T> {
    fn lock_ok(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub(crate) struct LoadedShard {
    pub(super) map: fst::Map<Vec<u8>>,
    pub(super) data: Shard,
    /// `data.bare`, read: the bare sections among the lists', sorted.
    pub(super) bare: Vec<u32>,
}

pub(super) struct LoadedLexicon {
    pub(super) map: fst::Map<Vec<u8>>,
    pub(super) data: Lexicon,
}

/// The loaded files of one kind (shards, bundles or cards), by ordinal, and when each was
/// last used. A list rather than a map: ordinals are dense, and each map type is a hash
/// table's code of its own in the wasm module.
pub(super) struct Loaded<T> {
    files: Vec<Option<Arc<T>>>,
    /// Per ordinal, the call that last read or was given the file (0: never).
    used: Vec<u32>,
    /// Per ordinal, the loaded file's bytes (as fetched).
    sizes: Vec<usize>,
    /// The current call, counted from 1.
    call: u32,
    /// Files loaded.
    count: usize,
    /// Their bytes.
    bytes: usize,
}

impl<T> Default for Loaded<T> {
    fn default() -> Self {
        Loaded {
            files: Vec::new(),
            used: Vec::new(),
            sizes: Vec::new(),
            call: 1,
            count: 0,
            bytes: 0,
        }
    }
}

impl<T> Loaded<T> {
    /// File `i` if it is loaded; either way, marks it used by the current call.
    fn get(&mut self, i: u32) -> Option<Arc<T>> {
        self.mark(i);
        self.peek(i).cloned()
    }

    /// The bytes loaded.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// File `i` if it is loaded, without marking it.
    pub(super) fn peek(&self, i: u32) -> Option<&Arc<T>> {
        self.files.get(i as usize)?.as_ref()
    }

    /// Loads file `i`, of `size` bytes (as fetched).
    pub(super) fn insert(&mut self, i: u32, file: Arc<T>, size: usize) {
        self.mark(i);
        let i = i as usize;
        if self.files[i].replace(file).is_some() {
            self.bytes -= self.sizes[i];
        } else {
            self.count += 1;
        }
        self.sizes[i] = size;
        self.bytes += size;
    }

    fn mark(&mut self, i: u32) {
        let i = i as usize;
        if i >= self.files.len() {
            self.files.resize_with(i + 1, || None);
            self.used.resize(i + 1, 0);
            self.sizes.resize(i + 1, 0);
        }
        self.used[i] = self.call;
    }

    /// The ordinals of the loaded files.
    fn ordinals(&self) -> Vec<usize> {
        (0..self.files.len())
            .filter(|&i| self.files[i].is_some())
            .collect()
    }

    fn all(&self) -> Vec<Arc<T>> {
        self.files.iter().flatten().cloned().collect()
    }

    /// Past `keep` bytes, drops the least recently used files down to three quarters of
    /// `keep` (never one the last call used); starts a new call.
    ///
    /// Least recently used, not "all the last call did not use": once a long session
    /// passed the bound, that rule left only the last query's files, and every query after
    /// fetched and verified its shards again (on SciFact in Node, twice the query time).
    /// Down to three quarters, so the sort runs once per quarter of `keep` new bytes, not
    /// per query.
    fn evict(&mut self, keep: usize) {
        if self.bytes > keep {
            let target = keep - keep / 4;
            // Oldest first; of one call's files (one call can load many), by ordinal.
            let mut old: Vec<(u32, usize)> = (0..self.files.len())
                .filter(|&i| self.files[i].is_some() && self.used[i] != self.call)
                .map(|i| (self.used[i], i))
                .collect();
            crate::sort::sort(&mut old);
            for (_, i) in old {
                if self.bytes <= target {
                    break;
                }
                self.files[i] = None;
                self.bytes -= self.sizes[i];
                self.count -= 1;
            }
        }
        self.call += 1;
    }
}

/// A sharded index's files, as far as they are loaded.
pub struct Sharded {
    /// The directory.
    pub(crate) dir: Directory,
    /// Per document: the ordinal of its first section (from the directory's counts).
    pub(super) first_section: Vec<u32>,
    pub(super) by_name: HashMap<String, (FileKind, u32)>,
    pub(super) shards: Mutex<Loaded<LoadedShard>>,
    pub(super) bundles: Mutex<Loaded<Bundle>>,
    pub(super) cards: Mutex<Loaded<Card>>,
    /// Number of cards.
    pub(super) n_cards: u32,
    /// Whether its shards and cards carry their build's stamp (format ≥ 1.14), so that one
    /// without the directory's is refused.
    pub(super) stamped: bool,
    pub(super) lexicon: Mutex<Option<Arc<LoadedLexicon>>>,
    pub(super) tree: Mutex<Option<Arc<Tree>>>,
    pub(super) paths: Mutex<Option<Arc<Paths>>>,
    pub(super) missing: Mutex<Vec<String>>,
    /// Why a file the source gave could not be attached (damaged, replaced): the query
    /// fails with it, not with a request to fetch a file that was fetched.
    pub(super) failed: Mutex<Option<Error>>,
    /// The heading postings of the lists ranked since the last [`Sharded::begin`] (see
    /// [`Sharded::heading_postings`]).
    pub(super) headings: Mutex<HashMap<u64, Arc<HeadingPostings>>>,
    pub(super) source: Option<FileSource>,
    pub(super) keep_loaded: AtomicUsize,
}

impl Sharded {
    /// Opens the directory file (`name` for messages).
    pub fn open(name: &str, bytes: &[u8], source: Option<FileSource>) -> Result<Self> {
        let dir: Directory = decode(FileKind::Directory, name, bytes)?;
        let stamped = minor_version(bytes).is_some_and(|minor| minor >= STAMPED_MINOR);
        let malformed = |detail: &str| Error::Malformed {
            file: name.to_string(),
            detail: detail.to_string(),
        };
        let mut first_section = Vec::with_capacity(dir.docs.len());
        let mut next = 0u64;
        for d in &dir.docs {
            first_section.push(next as u32);
            next += u64::from(d.sections);
        }
        let docs_ok = next == u64::from(dir.n_sections);
        let strings = dir.strings.len() as u32;
        let facets_ok = dir.docs.iter().all(|d| {
            [d.version, d.lang, d.category]
                .iter()
                .flatten()
                .chain(d.tags.iter())
                .all(|&i| i < strings)
        });
        let n_cards = dir.n_sections.div_ceil(dir.card_sections.max(1));
        let cards_ok = dir.card_sections > 0 && dir.card_lines > 0 && n_cards <= MAX_CARDS;
        if !docs_ok || !facets_ok || !cards_ok || dir.shards.is_empty() {
            return Err(malformed(
                "the directory does not describe a consistent index",
            ));
        }
        let mut by_name = HashMap::default();
        for (i, s) in dir.shards.iter().enumerate() {
            by_name.insert(
                FileKind::Shard.name_for_hash(s.name_hash()),
                (FileKind::Shard, i as u32),
            );
        }
        by_name.insert(dir.lexicon.clone(), (FileKind::Lexicon, 0));
        by_name.insert(dir.tree.clone(), (FileKind::Tree, 0));
        by_name.insert(dir.paths.clone(), (FileKind::Paths, 0));
        Ok(Sharded {
            dir,
            first_section,
            by_name,
            shards: Mutex::new(Loaded::default()),
            bundles: Mutex::new(Loaded::default()),
            cards: Mutex::new(Loaded::default()),
            n_cards,
            stamped,
            lexicon: Mutex::default(),
            tree: Mutex::default(),
            paths: Mutex::default(),
            missing: Mutex::default(),
            failed: Mutex::default(),
            headings: Mutex::default(),
            source,
            keep_loaded: AtomicUsize::new(KEEP_LOADED),
        })
    }

    /// Adds a fetched file (any the directory names).
    pub fn attach(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let card = || {
            card_ordinal(self.dir.cards_salt, name)
                .filter(|&i| i < self.n_cards)
                .map(|i| (FileKind::Card, i))
        };
        // Bundles are named in the paths file, so only once it is loaded.
        let bundle = || {
            let hash = FileKind::Bundle.hash_of_name(name)?;
            let paths = self.paths.lock_ok().clone()?;
            let i = paths.bundles.iter().position(|b| b.hash == hash)?;
            Some((FileKind::Bundle, i as u32))
        };
        let Some((kind, i)) = self
            .by_name
            .get(name)
            .copied()
            .or_else(card)
            .or_else(bundle)
        else {
            return Err(Error::Malformed {
                file: name.to_string(),
                detail: "the index directory does not name this file; was it fetched from another build?".into(),
            });
        };
        match kind {
            FileKind::Shard => {
                let shard = self.shard_that_fits(i, name, bytes)?;
                self.shards
                    .lock_ok()
                    .insert(i, Arc::new(shard), bytes.len());
            }
            FileKind::Paths => {
                let data: Paths = decode(kind, name, bytes)?;
                let bundles_ok = data.bundles.first().is_some_and(|b| b.first_doc == 0)
                    && data
                        .bundles
                        .windows(2)
                        .all(|w| w[0].first_doc < w[1].first_doc)
                    && data
                        .bundles
                        .iter()
                        .all(|b| (b.first_doc as usize) < self.dir.docs.len());
                if data.paths.len() != self.dir.docs.len() || !bundles_ok {
                    return Err(Error::Malformed {
                        file: name.to_string(),
                        detail: "the paths do not match the directory".into(),
                    });
                }
                *self.paths.lock_ok() = Some(Arc::new(data));
            }
            FileKind::Card => {
                let mut data: Card = decode(kind, name, bytes)?;
                self.card_of_this_build(name, &data)?;
                if !self.card_fits(i, &data) {
                    return Err(Error::Malformed {
                        file: name.to_string(),
                        detail: "the card does not match the directory".into(),
                    });
                }
                data.restore_ids();
                self.cards.lock_ok().insert(i, Arc::new(data), bytes.len());
            }
            // The tree serves only the semantic leg, the lexicon only typo corrections, bundles
            // only long previews and lookups: a build without them refuses these files (see
            // the `optional` module).
            FileKind::Bundle => self.attach_bundle(i, name, bytes)?,
            FileKind::Lexicon => self.attach_lexicon(name, bytes)?,
            FileKind::Tree => self.attach_tree(name, bytes)?,
            _ => unreachable!("by_name holds only shard, bundle, lexicon, tree and paths files"),
        }
        Ok(())
    }

    /// Starts a query: forgets what the previous one lacked, and drops loaded files beyond
    /// the memory bound.
    ///
    /// Only files the previous call neither read nor was given are dropped: a query that
    /// takes several calls (one per round of fetching) keeps what its earlier rounds
    /// loaded, however many files that is.
    pub(crate) fn begin(&self) {
        self.missing.lock_ok().clear();
        self.failed.lock_ok().take();
        self.headings.lock_ok().clear();
        // Past the bound, keep only what the last call used (of each kind).
        let keep = self.keep_loaded.load(Ordering::Relaxed);
        self.shards.lock_ok().evict(keep);
        self.bundles.lock_ok().evict(keep);
        self.cards.lock_ok().evict(keep);
    }

    /// The files the current query lacked, as an error to return (shards first: until a
    /// query's words are loaded, what else it needs is not known).
    pub(crate) fn need(&self) -> Result<()> {
        if let Some(e) = self.failed.lock_ok().take() {
            return Err(e);
        }
        let mut missing = self.missing.lock_ok().clone();
        if missing.is_empty() {
            return Ok(());
        }
        // In name order, once each: the same request list whatever order the query
        // noticed them in.
        crate::sort::sort(&mut missing);
        missing.dedup();
        // The paths file too, when it is asked for up front (a query whose previews need
        // bundles: see `SearchIndex::search`), so it comes in the same round.
        let shards: Vec<String> = missing
            .iter()
            .filter(|n| {
                matches!(
                    self.by_name.get(*n),
                    Some((FileKind::Shard | FileKind::Paths, _))
                )
            })
            .cloned()
            .collect();
        Err(Error::NeedsFiles(if shards.is_empty() {
            missing
        } else {
            shards
        }))
    }

    /// Loads `name` through the source, or notes it as missing.
    fn fetch(&self, name: &str) -> bool {
        let Some(source) = &self.source else {
            self.missing.lock_ok().push(name.to_string());
            return false;
        };
        match source(name).and_then(|bytes| self.attach(name, &bytes)) {
            Ok(()) => true,
            Err(e) => {
                // A file that cannot be read stays missing, and the query fails with why.
                self.missing.lock_ok().push(name.to_string());
                self.failed.lock_ok().get_or_insert(e);
                false
            }
        }
    }

    pub(super) fn shard(&self, i: u32) -> Option<Arc<LoadedShard>> {
        let shard = self.dir.shards.get(i as usize)?;
        // The name (a hash of the shard's first term) only to fetch it: a query asks for
        // its shards once per term and per list, and hashing each time was 2 % of a
        // JSQuAD query.
        self.loaded_or_fetched(&self.shards, i, || {
            FileKind::Shard.name_for_hash(shard.name_hash())
        })
    }

    pub(super) fn lexicon(&self) -> Option<Arc<LoadedLexicon>> {
        if self.lexicon.lock_ok().is_none() && !self.fetch(&self.dir.lexicon.clone()) {
            return None;
        }
        self.lexicon.lock_ok().clone()
    }

    /// The tree, or `None` (noted as missing).
    pub(crate) fn tree(&self) -> Option<Arc<Tree>> {
        if self.tree.lock_ok().is_none() && !self.fetch(&self.dir.tree.clone()) {
            return None;
        }
        self.tree.lock_ok().clone()
    }

    /// The documents' paths, or `None` (noted as missing).
    pub(crate) fn paths(&self) -> Option<Arc<Paths>> {
        if self.paths.lock_ok().is_none() && !self.fetch(&self.dir.paths.clone()) {
            return None;
        }
        self.paths.lock_ok().clone()
    }

    /// The shard whose range holds `term`.
    pub(super) fn shard_for(&self, term: &str) -> u32 {
        let after = self
            .dir
            .shards
            .partition_point(|s| s.first_term.as_str() <= term);
        after.saturating_sub(1) as u32
    }

    /// The document a section belongs to.
    pub(crate) fn doc_of(&self, section: u32) -> u32 {
        let after = self.first_section.partition_point(|&f| f <= section);
        after.saturating_sub(1) as u32
    }

    /// How many sections the document holding `section` has.
    pub(crate) fn page_sections(&self, section: u32) -> u32 {
        let doc = self.doc_of(section) as usize;
        let first = self.first_section.get(doc).copied().unwrap_or(0);
        let next = self.first_section.get(doc + 1).copied();
        next.unwrap_or(self.dir.n_sections).saturating_sub(first)
    }

    /// The bundle holding a document, or `None` (noted as missing, or the paths file that
    /// names the bundles is).
    pub(crate) fn bundle_of_doc(&self, doc: u32) -> Option<Arc<Bundle>> {
        let paths = self.paths()?;
        let i = paths
            .bundles
            .partition_point(|b| b.first_doc <= doc)
            .checked_sub(1)? as u32;
        self.loaded_or_fetched(&self.bundles, i, || {
            FileKind::Bundle.name_for_hash(paths.bundles[i as usize].hash)
        })
    }

    /// The bundle holding the document at `path` (`None`: no such document, or the paths
    /// or the bundle are missing, which is noted).
    pub(crate) fn bundle_of_path(&self, path: &str) -> Option<Arc<Bundle>> {
        let paths = self.paths()?;
        let doc = paths
            .paths
            .binary_search_by(|p| p.as_str().cmp(path))
            .ok()?;
        self.bundle_of_doc(doc as u32)
    }

    /// The names of the files loaded now, in an order [`Sharded::attach`] accepts them in (the
    /// paths file before the bundles it names): what a fresh instance of the index is given
    /// to carry on where this one is (the JS host moving to the full engine).
    pub fn loaded_files(&self) -> Vec<String> {
        let mut names = Vec::new();
        let singles = [
            (self.lexicon.lock_ok().is_some(), &self.dir.lexicon),
            (self.tree.lock_ok().is_some(), &self.dir.tree),
            (self.paths.lock_ok().is_some(), &self.dir.paths),
        ];
        for (loaded, name) in singles {
            if loaded {
                names.push(name.clone());
            }
        }
        // Named in one place: each call site of the name formatting is code in the wasm.
        let mut hashed: Vec<(FileKind, u64)> = Vec::new();
        for i in self.shards.lock_ok().ordinals() {
            hashed.push((FileKind::Shard, self.dir.shards[i].name_hash()));
        }
        for i in self.cards.lock_ok().ordinals() {
            hashed.push((FileKind::Card, card_hash(self.dir.cards_salt, i as u32)));
        }
        if let Some(paths) = self.paths.lock_ok().clone() {
            for i in self.bundles.lock_ok().ordinals() {
                if let Some(b) = paths.bundles.get(i) {
                    hashed.push((FileKind::Bundle, b.hash));
                }
            }
        }
        names.extend(
            hashed
                .into_iter()
                .map(|(kind, hash)| kind.name_for_hash(hash)),
        );
        names
    }

    /// Shards, and bundles and cards, loaded now.
    pub fn loaded(&self) -> (usize, usize) {
        (
            self.shards.lock_ok().count,
            self.bundles.lock_ok().count + self.cards.lock_ok().count,
        )
    }

    /// Bytes loaded of shards, of bundles and of cards.
    pub fn loaded_bytes(&self) -> [usize; 3] {
        [
            self.shards.lock_ok().bytes(),
            self.bundles.lock_ok().bytes(),
            self.cards.lock_ok().bytes(),
        ]
    }

    /// Lines of each section a card holds.
    pub(crate) fn card_lines(&self) -> u32 {
        self.dir.card_lines
    }

    /// The card holding section `s`, or `None` (noted as missing).
    pub(crate) fn card_of_section(&self, s: u32) -> Option<Arc<Card>> {
        let i = s / self.dir.card_sections;
        if i >= self.n_cards {
            return None;
        }
        self.loaded_or_fetched(&self.cards, i, || card_name(self.dir.cards_salt, i))
    }

    /// File `i` of one kind: loaded already, or read through the source now (attaching it),
    /// or `None` with its name noted as missing. Either way it counts as used by this call.
    fn loaded_or_fetched<T>(
        &self,
        files: &Mutex<Loaded<T>>,
        i: u32,
        name: impl FnOnce() -> String,
    ) -> Option<Arc<T>> {
        if let Some(file) = files.lock_ok().get(i) {
            return Some(file);
        }
        if self.fetch(&name()) {
            files.lock_ok().get(i)
        } else {
            None
        }
    }

    /// Every card that is loaded now.
    pub(crate) fn loaded_cards(&self) -> Vec<Arc<Card>> {
        self.cards.lock_ok().all()
    }

    /// Sets how many bytes of shards (and of bundles, and of cards) stay loaded between
    /// queries ([`KEEP_LOADED`]).
    pub fn set_keep_loaded(&self, bytes: usize) {
        self.keep_loaded.store(bytes, Ordering::Relaxed);
    }

    /// Whether files are read synchronously (natively) rather than attached by the caller.
    pub(crate) fn has_source(&self) -> bool {
        self.source.is_some()
    }

    /// Every bundle that is loaded now.
    pub(crate) fn loaded_bundles(&self) -> Vec<Arc<Bundle>> {
        self.bundles.lock_ok().all()
    }

    /// Each bundle's first document (empty while the paths file is missing, which is noted).
    pub(crate) fn bundle_firsts(&self) -> Vec<u32> {
        self.paths()
            .map(|p| p.bundles.iter().map(|b| b.first_doc).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
