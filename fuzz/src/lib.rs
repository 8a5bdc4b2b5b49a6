//! What the fuzz targets share: a tiny index built once from the CLI's test fixture (four
//! small Markdown files, English and Japanese, with synonyms and vectors), and a routine that
//! drives every read path of a loaded index, so a malformed file that loads but breaks a
//! later query is caught too.

use midashi_core::build::{BuildOutput, IndexBuilder, IndexSettings, Layout, Synonyms};
use midashi_core::format::entry::ModelInfo;
use midashi_core::format::FileKind;
use midashi_core::section::SectionId;
use midashi_core::vectors::VectorsData;
use midashi_core::{Mode, SearchIndex, SearchOptions};
use midashi_markdown::{parse_document, Options, SlugStyle};
use std::sync::OnceLock;

pub mod targets;

/// The fixed corpus: `(path, source)`, the same files build-index's CLI tests index.
pub const CORPUS: [(&str, &str); 4] = [
    (
        "index.md",
        include_str!("../../build-index/tests/fixtures/docs/index.md"),
    ),
    (
        "guide/computed.md",
        include_str!("../../build-index/tests/fixtures/docs/guide/computed.md"),
    ),
    (
        "guide/pagination.md",
        include_str!("../../build-index/tests/fixtures/docs/guide/pagination.md"),
    ),
    (
        "ja/computed.md",
        include_str!("../../build-index/tests/fixtures/docs/ja/computed.md"),
    ),
];

/// Dimensions of the tiny index's vectors.
pub const DIMS: usize = 8;

/// A deterministic unit vector for section `i` (the vectors' values do not matter here,
/// only that the semantic and hybrid paths run over real files).
pub fn unit_vector(i: usize) -> Vec<f32> {
    let v: Vec<f32> = (0..DIMS)
        .map(|d| (((i * 7 + d * 3) % 11) as f32) - 5.0)
        .collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.into_iter().map(|x| x / n).collect()
}

fn build(layout: Layout) -> BuildOutput {
    let settings = IndexSettings {
        synonyms: Synonyms::parse("paging = pagination\nページング = paging\n")
            .expect("valid synonyms"),
        slug: "vitepress".into(),
        layout,
        ..IndexSettings::default()
    };
    let mut builder = IndexBuilder::new(settings);
    let opts = Options {
        slug: SlugStyle::Vitepress,
        ..Options::default()
    };
    for (path, src) in CORPUS {
        builder.add(parse_document(path, src, &opts).0);
    }
    let sections: usize = builder
        .documents_sorted()
        .iter()
        .map(|d| d.sections.len())
        .sum();
    let mut vectors = VectorsData::new(DIMS as u32);
    for s in 0..sections {
        vectors.push(s as u32, &unit_vector(s));
        if s % 3 == 0 {
            // A second window for some sections: the best-window path.
            vectors.push(s as u32, &unit_vector(s + 1));
        }
    }
    builder.set_vectors(
        ModelInfo {
            name: "fuzz".into(),
            dims: DIMS as u32,
            sha256: "0".repeat(64),
            languages: vec!["en".into()],
        },
        vectors,
    );
    builder.build().expect("the fixture builds")
}

/// The tiny index's files, built once.
pub fn tiny_files() -> &'static BuildOutput {
    static FILES: OnceLock<BuildOutput> = OnceLock::new();
    FILES.get_or_init(|| build(Layout::Single))
}

/// The tiny index in the sharded layout (directory, shards, bundles, lexicon, tree, paths, cards),
/// built once.
pub fn tiny_sharded_files() -> &'static BuildOutput {
    static FILES: OnceLock<BuildOutput> = OnceLock::new();
    FILES.get_or_init(|| build(Layout::Sharded))
}

/// The bytes of the tiny index's file of `stem` (`midashi-entry`, `terms`, `sections`,
/// `vectors`).
pub fn tiny_file(stem: &str) -> &'static [u8] {
    &tiny_files()
        .files
        .iter()
        .find(|(name, _)| name.starts_with(stem))
        .expect("file present")
        .1
}

/// The tiny index, loaded once (with its vectors).
pub fn tiny_index() -> &'static SearchIndex {
    static INDEX: OnceLock<SearchIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut idx = SearchIndex::open(
            tiny_file("midashi-entry"),
            tiny_file("terms"),
            tiny_file("sections"),
        )
        .expect("the tiny index loads");
        idx.attach_vectors(tiny_file("vectors"))
            .expect("its vectors load");
        idx
    })
}

/// Runs every read path of `idx`: searches in each mode, with and without grouping, whole
/// previews, documents, sections by id and by anchor, completions. Errors are fine (they
/// are typed); panics are what the fuzzers look for.
pub fn exercise(idx: &SearchIndex) {
    let qv = unit_vector(1);
    for (q, mode) in [
        ("pagination", Mode::Keyword),
        ("paging offset", Mode::Auto),
        ("算出プロパティ", Mode::Keyword),
        ("conf", Mode::Keyword),
        ("paginaton cursr", Mode::Keyword),
        ("computed", Mode::Hybrid),
        ("x", Mode::Semantic),
    ] {
        for group in [true, false] {
            let opts = SearchOptions {
                mode,
                group,
                limit: 1000,
                preview_lines: usize::MAX,
                ..SearchOptions::default()
            };
            let vector = matches!(mode, Mode::Hybrid | Mode::Semantic).then_some(&qv[..]);
            let _ = idx.search(q, &opts, vector);
        }
    }
    let _ = idx.suggest("pa", 10);
    let docs: Vec<String> = idx.documents().into_iter().map(|(p, _)| p).collect();
    for path in docs {
        if let Some(doc) = idx.get_document(&path) {
            for s in &doc.sections {
                if let Some(id) = SectionId::parse(&s.id) {
                    let _ = idx.get_section(id);
                }
                if let Some(anchor) = &s.anchor {
                    let _ = idx.find_anchor(&path, anchor);
                }
            }
        }
    }
}

/// The reads that touch a file of `kind`, after one plain keyword search every index
/// answers: what the loading targets run. Running all of [`exercise`] per input cost
/// ~100 ms under the sanitizers (mostly distance-2 typo automata and whole previews of
/// every section, which no mutation of a file reaches), so the targets ran ~10 inputs a
/// second; these reads keep every path a damaged file of that kind can reach, at a few ms.
pub fn exercise_for(idx: &SearchIndex, kind: FileKind) {
    // Typo corrections walk only the dictionary (a single file's terms, a sharded index's
    // lexicon): elsewhere they would build Levenshtein automata for every word a damaged
    // file made unknown, reading nothing of the file.
    let fuzzy = matches!(kind, FileKind::Terms | FileKind::Lexicon);
    let run = |q: &str, mode: Mode, group: bool, preview_lines: usize| {
        let opts = SearchOptions {
            mode,
            group,
            limit: 5,
            preview_lines,
            fuzzy,
            ..SearchOptions::default()
        };
        let qv = unit_vector(1);
        let vector = matches!(mode, Mode::Hybrid | Mode::Semantic).then_some(&qv[..]);
        idx.search(q, &opts, vector)
    };
    let first = run("pagination", Mode::Keyword, true, 5);
    if matches!(
        kind,
        FileKind::Entry | FileKind::Terms | FileKind::Directory | FileKind::Shard
    ) {
        let _ = run("算出プロパティ", Mode::Keyword, false, 5);
        let _ = run("conf", Mode::Keyword, true, 5);
        let _ = run("paging offset", Mode::Auto, false, 5);
    }
    if fuzzy {
        let _ = run("cursr", Mode::Keyword, false, 5);
        let _ = idx.suggest("pa", 10);
    }
    if matches!(kind, FileKind::Vectors | FileKind::Ann | FileKind::Tree) {
        let _ = run("computed", Mode::Hybrid, true, 5);
        let _ = run("x", Mode::Semantic, false, 5);
    }
    if matches!(
        kind,
        FileKind::Entry | FileKind::Sections | FileKind::Bundle | FileKind::Card | FileKind::Paths
    ) {
        let _ = run("computed", Mode::Keyword, false, usize::MAX);
        if let Ok(r) = &first {
            for h in r.results.iter().take(3) {
                if let Some(id) = SectionId::parse(&h.id) {
                    let _ = idx.get_section(id);
                }
            }
        }
        if let Some((path, _)) = idx.documents().into_iter().next() {
            if let Some(doc) = idx.get_document(&path) {
                if let Some(anchor) = doc.sections.iter().find_map(|s| s.anchor.clone()) {
                    let _ = idx.find_anchor(&path, &anchor);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes the seed corpora of `load_index` and `query` (run once when the format changes:
    /// `cargo test --manifest-path fuzz/Cargo.toml -- --ignored write_seeds`).
    #[test]
    #[ignore]
    fn write_seeds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds");
        let dir = root.join("load_index");
        std::fs::create_dir_all(&dir).unwrap();
        let header = midashi_core::format::HEADER_LEN;
        for (i, stem) in ["midashi-entry", "terms", "sections", "vectors"]
            .iter()
            .enumerate()
        {
            let file = tiny_file(stem);
            let mut raw = vec![i as u8];
            raw.extend_from_slice(file);
            std::fs::write(dir.join(format!("{i}-{stem}-file")), raw).unwrap();
            let mut framed = vec![(i + 4) as u8];
            framed.extend_from_slice(&file[header..]);
            std::fs::write(dir.join(format!("{}-{stem}-payload", i + 4)), framed).unwrap();
        }
        let dir = root.join("query");
        std::fs::create_dir_all(&dir).unwrap();
        for (i, q) in [
            "pagination",
            "paging offset",
            "ページング",
            "算出プロパティ",
            "conf",
            "paginaton",
            "getElementById v-model std::collections",
            "\"limit\" AND (offset) -cursor*",
        ]
        .iter()
        .enumerate()
        {
            let mut bytes = vec![0b0000_0111, 10, 0, 5, 0, 0, 0, 0];
            bytes[0] |= (i as u8 % 4) << 3;
            bytes.extend_from_slice(q.as_bytes());
            std::fs::write(dir.join(format!("q{i}")), bytes).unwrap();
        }
        let dir = root.join("load_sharded");
        std::fs::create_dir_all(&dir).unwrap();
        let files = &tiny_sharded_files().files;
        for (i, stem) in [
            "directory",
            "shard",
            "bundle",
            "lexicon",
            "tree",
            "paths",
            "card",
        ]
        .iter()
        .enumerate()
        {
            let (_, file) = files
                .iter()
                .find(|(n, _)| n.starts_with(&format!("{stem}.")))
                .unwrap();
            let mut raw = vec![i as u8];
            raw.extend_from_slice(file);
            std::fs::write(dir.join(format!("{i}-{stem}-file")), raw).unwrap();
            let mut framed = vec![(i + 7) as u8];
            framed.extend_from_slice(&file[header..]);
            std::fs::write(dir.join(format!("{}-{stem}-payload", i + 7)), framed).unwrap();
        }
    }

    #[test]
    fn the_tiny_sharded_index_answers_like_the_single_one() {
        let files = &tiny_sharded_files().files;
        let get = |stem: &str| {
            files
                .iter()
                .find(|(n, _)| n.starts_with(stem))
                .map(|(_, b)| b.clone())
                .unwrap()
        };
        let all = files.clone();
        let source: midashi_core::layout::sharded::FileSource =
            Box::new(move |name: &str| Ok(all.iter().find(|(n, _)| n == name).unwrap().1.clone()));
        let idx =
            SearchIndex::open_sharded(&get("midashi-entry"), &get("directory."), Some(source))
                .unwrap();
        // Excerpts differ by design: a card holds a section's own text, a single file the
        // whole section's (tests/node/sharded.test.mjs compares the same way).
        let opts = SearchOptions {
            excerpts: false,
            ..SearchOptions::default()
        };
        assert_eq!(
            idx.search("pagination", &opts, None).unwrap(),
            tiny_index().search("pagination", &opts, None).unwrap()
        );
        exercise(&idx);
    }

    #[test]
    fn tiny_index_answers() {
        let idx = tiny_index();
        let r = idx
            .search("pagination", &SearchOptions::default(), None)
            .unwrap();
        assert!(r.total > 0);
        exercise(idx);
    }
}
