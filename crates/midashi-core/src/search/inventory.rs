//! What a search index says of its files and documents beyond answering queries: the files a
//! sharded index has loaded and the bound on them, documents and places by ordinal (native
//! callers: the MCP server, `build-index vectors`, tests; the JS host's move to the full
//! engine).
use super::SearchIndex;

impl SearchIndex {
    /// A sharded index's loaded shards and bundles (`(0, 0)` for a single-file index).
    pub fn loaded_parts(&self) -> (usize, usize) {
        self.store.inventory().loaded_parts()
    }

    /// A sharded index's loaded bytes of shards, of bundles and of cards (as fetched; zeros
    /// for a single-file index): what [`SearchIndex::set_keep_loaded`] bounds.
    pub fn loaded_bytes(&self) -> [usize; 3] {
        self.store.inventory().loaded_bytes()
    }

    /// The files a sharded index has loaded, in an order [`SearchIndex::attach_file`] takes
    /// them in: attached to a fresh instance, they carry the state over (the sections of the
    /// results shown, for lookups by id). Empty for a single-file index.
    pub fn loaded_files(&self) -> Vec<String> {
        self.store.layout().loaded_files()
    }

    /// Bounds the bytes of shards, of bundles and of cards a sharded index keeps loaded
    /// between queries (default [`crate::layout::sharded::KEEP_LOADED`]); no effect on a
    /// single-file index.
    pub fn set_keep_loaded(&mut self, bytes: usize) {
        self.store.inventory().set_keep_loaded(bytes)
    }

    /// A section's document path and anchor, by ordinal (what vector rows point at).
    pub fn section_place(&self, section: u32) -> Option<(String, Option<String>)> {
        self.store.inventory().section_place(section)
    }

    /// Every document's path and title, in path order (a sharded index reads every bundle
    /// its source can give).
    pub fn documents(&self) -> Vec<(String, String)> {
        self.store.inventory().documents()
    }
}
