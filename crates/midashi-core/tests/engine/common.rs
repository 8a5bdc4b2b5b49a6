//! What the engine tests share: synthetic vectors for the documents an index builder holds,
//! so the semantic and hybrid legs run over real index files without a model.

#![allow(dead_code)] // each test file uses a part

use midashi_core::build::IndexBuilder;
use midashi_core::format::entry::ModelInfo;
use midashi_core::vectors::VectorsData;
use std::path::Path;

/// Dimensions of the synthetic vectors.
pub const DIMS: usize = 8;

/// A deterministic unit vector for section `i` (its values do not matter, only that the
/// vector paths run).
pub fn unit_vector(i: usize) -> Vec<f32> {
    let v: Vec<f32> = (0..DIMS)
        .map(|d| (((i * 7 + d * 3) % 11) as f32) - 5.0)
        .collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.into_iter().map(|x| x / n).collect()
}

/// Gives every section the builder holds a synthetic vector, from a model of `languages`.
pub fn add_vectors(builder: &mut IndexBuilder, languages: &[&str]) {
    let vectors = synthetic_vectors(builder);
    builder.set_vectors(test_model(languages), vectors);
}

/// A synthetic vector for every section the builder holds.
pub fn synthetic_vectors(builder: &mut IndexBuilder) -> VectorsData {
    let n: usize = builder
        .documents_sorted()
        .iter()
        .map(|d| d.sections.len())
        .sum();
    let mut vectors = VectorsData::new(DIMS as u32);
    for s in 0..n {
        vectors.push(s as u32, &unit_vector(s));
    }
    vectors
}

/// The model the synthetic vectors claim to come from, covering `languages`.
pub fn test_model(languages: &[&str]) -> ModelInfo {
    ModelInfo {
        name: "test".into(),
        dims: DIMS as u32,
        sha256: "0".repeat(64),
        languages: languages.iter().map(|l| l.to_string()).collect(),
    }
}

/// The file of `files` whose name starts with `stem` (`"terms."`, `"midashi-entry"` …).
pub fn by_stem(files: &std::collections::HashMap<String, Vec<u8>>, stem: &str) -> Vec<u8> {
    files
        .iter()
        .find(|(n, _)| n.starts_with(stem))
        .map(|(_, b)| b.clone())
        .unwrap_or_else(|| panic!("no {stem} file"))
}

/// Opens built `files` as their layout: single files, or sharded read through a file source.
pub fn open_built(files: &std::collections::HashMap<String, Vec<u8>>) -> midashi_core::SearchIndex {
    if files.keys().any(|n| n.starts_with("directory.")) {
        let all = files.clone();
        let source: midashi_core::layout::sharded::FileSource =
            Box::new(move |name: &str| Ok(all[name].clone()));
        midashi_core::SearchIndex::open_sharded(
            &by_stem(files, "midashi-entry"),
            &by_stem(files, "directory."),
            Some(source),
        )
        .unwrap()
    } else {
        midashi_core::SearchIndex::open(
            &by_stem(files, "midashi-entry"),
            &by_stem(files, "terms."),
            &by_stem(files, "sections."),
        )
        .unwrap()
    }
}

/// Markdown files under `dir`, as paths relative to `root`, in path order.
pub fn markdown_under(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            markdown_under(root, &p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(
                p.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/"),
            );
        }
    }
}

/// A builder of `layout` holding the Markdown `docs`.
fn builder(layout: midashi_core::build::Layout, docs: &[(&str, &str)]) -> IndexBuilder {
    let mut b = IndexBuilder::new(midashi_core::build::IndexSettings {
        layout,
        ..Default::default()
    });
    for (path, src) in docs {
        b.add(midashi_markdown::parse_document(path, src, &Default::default()).0);
    }
    b
}

/// The files `b` builds, by name.
fn files_of(b: IndexBuilder) -> std::collections::HashMap<String, Vec<u8>> {
    b.build().unwrap().files.into_iter().collect()
}

/// The same Markdown documents indexed in both layouts: `[single file, sharded]`, the
/// sharded one reading its files on demand through a file source.
pub fn both_layouts(docs: &[(&str, &str)]) -> [midashi_core::SearchIndex; 2] {
    use midashi_core::build::Layout;
    [Layout::Single, Layout::Sharded].map(|layout| open_built(&files_of(builder(layout, docs))))
}

/// [`both_layouts`] with vectors attached: `vectors` makes them from the builder that holds
/// the documents, for a test model of `languages`.
pub fn both_layouts_with_vectors(
    docs: &[(&str, &str)],
    languages: &[&str],
    vectors: impl Fn(&mut IndexBuilder) -> VectorsData,
) -> [midashi_core::SearchIndex; 2] {
    use midashi_core::build::Layout;
    [Layout::Single, Layout::Sharded].map(|layout| {
        let mut b = builder(layout, docs);
        let v = vectors(&mut b);
        b.set_vectors(test_model(languages), v);
        let files = files_of(b);
        let mut idx = open_built(&files);
        idx.attach_vectors(&by_stem(&files, "vectors.")).unwrap();
        idx
    })
}
