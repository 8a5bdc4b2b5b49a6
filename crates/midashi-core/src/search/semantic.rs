//! The semantic leg of a query: section vectors (scanned, or an HNSW graph for large sets),
//! filtered like the keyword leg and fused with it. Feature `semantic`; without it
//! `semantic_off.rs` stands here and a query vector is refused.

use super::SearchIndex;
use crate::answer::{Mode, SearchOptions};
use crate::error::{Error, Result};
use crate::format::frame::decode;
use crate::format::FileKind;
use crate::layout::Layout;
use crate::query::QueryPlan;
use crate::rank::coverage;
use crate::rank::fusion::{counted, fuse};
use crate::rank::pipeline::Seen;
use crate::vectors::ann::AnnData;
use crate::vectors::table::{StaticTable, TableData};
use crate::vectors::VectorsData;

impl SearchIndex {
    /// Attaches a vectors or HNSW graph file by kind (see [`SearchIndex::attach_file`]).
    pub(super) fn attach_vector_file(&mut self, kind: FileKind, bytes: &[u8]) -> Result<()> {
        match kind {
            FileKind::Ann => self.attach_ann(bytes),
            FileKind::Table => self.attach_table(bytes),
            _ => self.attach_vectors(bytes),
        }
    }

    /// Adds the static table file: queries then get their vectors from it, with no encoder
    /// ([`crate::vectors::table`]).
    pub fn attach_table(&mut self, bytes: &[u8]) -> Result<()> {
        let name = self
            .manifest
            .file(FileKind::Table)
            .map_or_else(|| "table".to_string(), |f| f.name.clone());
        let malformed = |detail: &str| Error::Malformed {
            file: name.clone(),
            detail: detail.into(),
        };
        let data: TableData = decode(FileKind::Table, &name, bytes)?;
        let table =
            StaticTable::new(data).ok_or_else(|| malformed("its rows do not match its pieces"))?;
        let dims = self.manifest.model.as_ref().map(|m| m.dims as usize);
        if dims.is_some_and(|d| d != table.dims()) {
            return Err(malformed("its rows do not match the index's vectors"));
        }
        self.table = Some(table);
        Ok(())
    }

    /// Whether a static table is attached (queries' vectors by look-up).
    pub fn has_table(&self) -> bool {
        self.table.is_some()
    }

    /// The query's vector from the index's static table, when it has one and `mode` may use
    /// it. Without the table attached, `auto` runs keyword only (a host attaches it for the
    /// queries worth it) and an explicit mode asks for the files.
    pub fn table_vector(&self, query: &str, mode: Mode) -> Result<Option<Vec<f32>>> {
        let Some(file) = self.manifest.file(FileKind::Table) else {
            return Ok(None);
        };
        if mode == Mode::Keyword {
            return Ok(None);
        }
        let Some(table) = &self.table else {
            if mode == Mode::Auto {
                return Ok(None);
            }
            let mut files = vec![file.name.clone()];
            files.extend(
                self.manifest
                    .file(FileKind::Vectors)
                    .map(|f| f.name.clone()),
            );
            return Err(Error::NeedsFiles(files));
        };
        // `None`: no word of the query is made of the site's pieces. It has no meaning here,
        // so the semantic leg finds nothing (an explicit hybrid query is its keyword leg).
        Ok(table.embed(query))
    }

    /// Why the semantic leg has no vectors: the index names files not yet attached (fetch
    /// them: the vectors, and the graph when there is one), or it has none.
    fn missing_vectors(&self) -> Error {
        let files: Vec<String> = [FileKind::Vectors, FileKind::Ann]
            .into_iter()
            .filter_map(|kind| self.manifest.file(kind).map(|f| f.name.clone()))
            .collect();
        if self.manifest.file(FileKind::Vectors).is_some() {
            Error::NeedsFiles(files)
        } else {
            Error::SemanticUnavailable("the index has no vectors: rebuild it with a model".into())
        }
    }

    /// Adds the vectors file (loaded lazily, when semantic search is first needed).
    pub fn attach_vectors(&mut self, bytes: &[u8]) -> Result<()> {
        let name = self
            .manifest
            .file(FileKind::Vectors)
            .map_or_else(|| "vectors".to_string(), |f| f.name.clone());
        let v: VectorsData = decode(FileKind::Vectors, &name, bytes)?;
        let n = self.section_count() as u32;
        if !v.is_consistent() || v.row_section.iter().any(|&s| s >= n) {
            return Err(Error::Malformed {
                file: name,
                detail: "vectors do not match the sections".into(),
            });
        }
        self.vectors = Some(v);
        Ok(())
    }

    /// Adds the HNSW graph file of a large index (after [`SearchIndex::attach_vectors`]):
    /// unfiltered semantic queries then search the graph instead of scanning every row.
    pub fn attach_ann(&mut self, bytes: &[u8]) -> Result<()> {
        let name = self
            .manifest
            .file(FileKind::Ann)
            .map_or_else(|| "ann".to_string(), |f| f.name.clone());
        let vectors = self.vectors.as_ref().ok_or_else(|| {
            Error::SemanticUnavailable("attach the vectors before the ANN graph".into())
        })?;
        let ann: AnnData = super::graph::decode(&name, bytes)?;
        if !ann.matches(vectors) {
            return Err(Error::Malformed {
                file: name,
                detail: "the ANN graph does not match the vectors".into(),
            });
        }
        self.ann = Some(ann);
        Ok(())
    }

    /// The ranked list of a query that has a vector: the semantic leg alone, or fused with
    /// the keyword leg's ranked list `keyword` (hybrid) as the options' fusion does for
    /// `query` ([`crate::rank::fusion::Fusion::for_query`]). `words_match`: whether any of the query's words
    /// (or their corrections) is in the index; when none is, the semantic leg answers only
    /// if its best similarity lies above the index's noise floor (see `vectors::noise`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn semantic_leg(
        &self,
        store: &dyn Layout,
        qv: &[f32],
        opts: &SearchOptions,
        facts: &Seen,
        mode: Mode,
        (query, plan, keyword): (&str, &QueryPlan, Vec<(u32, f32)>),
        words_match: bool,
    ) -> Result<Vec<(u32, f32)>> {
        let vectors = self
            .vectors
            .as_ref()
            .ok_or_else(|| self.missing_vectors())?;
        store.prepare_semantic()?;
        // The graph answers unfiltered queries; with a filter its candidates could
        // all be filtered away, so filtered queries scan every row.
        let candidates = match &self.ann {
            Some(ann) if !opts.has_filters() => super::graph::candidates(ann, vectors, qv),
            _ => vectors.scan(qv),
        };
        let best = candidates.first().map_or(f32::NEG_INFINITY, |&(_, s)| s);
        if !words_match && !vectors.clearly_above_noise(best) {
            // Nonsense (or words this site never uses, with nothing close in meaning):
            // an honest empty answer, not the least unrelated sections.
            return Ok(Vec::new());
        }
        let semantic: Vec<(u32, f32)> = candidates
            .into_iter()
            .filter(|&(s, _)| store.passes_filters(s, opts, facts))
            .collect();
        store.ready()?;
        Ok(if mode == Mode::Semantic {
            semantic
        } else {
            // Fuse over the heads of both legs: deep tails only add noise to RRF.
            let head = crate::rank::fusion::FUSION_HEAD;
            let fusion = opts
                .fusion
                .for_query(super::policy::is_question(query), self.table.is_some());
            // A Japanese or Korean question: the keyword head in order of how much of the
            // question each section holds (`rank::coverage`).
            let keyword = if coverage::wants_coverage(query) {
                let mut seen = Seen::default();
                let share = coverage::shares(store.section_count(), plan, |t, emit| {
                    store.scores(t, &mut seen, &mut |s, v, _| {
                        if v > 0.0 {
                            emit(s)
                        }
                    })
                });
                store.ready()?;
                coverage::by_coverage(&keyword, &share)
            } else {
                keyword
            };
            let semantic_head = &semantic[..semantic.len().min(head)];
            let fused = fuse(&keyword[..keyword.len().min(head)], semantic_head, fusion);
            counted(fused, &keyword, semantic_head, vectors.relevance_floor())
        })
    }
}
