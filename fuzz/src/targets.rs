//! The fuzz targets' bodies, one function each: `fuzz_targets/*.rs` hand them libFuzzer's
//! inputs (`scripts/fuzz.sh`), and `tests/replay.rs` every committed seed, regression and
//! corpus input in the normal test run.

use crate::{exercise_for, tiny_file, tiny_index, tiny_sharded_files, unit_vector, DIMS};
use midashi_core::format::{frame, FileKind, Manifest};
use midashi_core::layout::sharded::FileSource;
use midashi_core::rank::fusion::Fusion;
use midashi_core::{Mode, SearchIndex, SearchOptions};
use midashi_markdown::{parse_document, render_html, Options, SlugStyle, MAX_HEADING_BYTES};

/// Loading index files from arbitrary bytes: the entry, terms, sections and vectors files
/// through midashi-core's decode/open paths, then every read path of whatever loaded.
///
/// Input: one selector byte, then the bytes. Selector % 8: 0–3 give the bytes as the whole
/// entry / terms / sections / vectors file (header checks, truncation, corruption); 4–7 give
/// them as that file's *payload* under a valid header and checksum, so the postcard decoder
/// and the consistency checks behind the checksum are reached too. The other files are the
/// tiny fixture index's.
pub fn load_index(data: &[u8]) {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let kind = [
        FileKind::Entry,
        FileKind::Terms,
        FileKind::Sections,
        FileKind::Vectors,
        FileKind::Ann,
    ][usize::from(selector % 5)];
    let framed;
    let file: &[u8] = if selector % 10 >= 5 {
        framed = frame(kind, bytes);
        &framed
    } else {
        bytes
    };
    let (entry, terms, sections) = match kind {
        FileKind::Entry => (file, tiny_file("terms"), tiny_file("sections")),
        FileKind::Terms => (tiny_file("midashi-entry"), file, tiny_file("sections")),
        FileKind::Sections => (tiny_file("midashi-entry"), tiny_file("terms"), file),
        // The vectors, the ANN graph and the raw model files ride on a good keyword index.
        _ => (
            tiny_file("midashi-entry"),
            tiny_file("terms"),
            tiny_file("sections"),
        ),
    };
    if kind == FileKind::Entry {
        if let Ok(m) = Manifest::decode(entry) {
            let _ = m.file(FileKind::Terms);
        }
    }
    let Ok(mut idx) = SearchIndex::open(entry, terms, sections) else {
        return;
    };
    if kind == FileKind::Vectors {
        if idx.attach_vectors(file).is_err() {
            return;
        }
    } else {
        let _ = idx.attach_vectors(tiny_file("vectors"));
    }
    // A graph that does not match the vectors must be refused, never searched.
    if kind == FileKind::Ann {
        let _ = idx.attach_ann(file);
    }
    exercise_for(&idx, kind);
}

/// Loading a sharded index from arbitrary bytes: one of its files (the directory, a shard,
/// a bundle, a card, the lexicon, the tree or the paths) is replaced by the input, the others are
/// the tiny fixture's in the sharded layout, read on demand through a file source; then every
/// read path runs (searches of every mode fetch shards, cards, bundles, the lexicon and the
/// tree).
///
/// Input: one selector byte, then the bytes. Selector % 7 picks the file; selector / 7 odd
/// gives the bytes as that file's *payload* under a valid header and checksum (so the postcard
/// decoder and the consistency checks behind the checksum are reached), even as the whole file.
pub fn load_sharded(data: &[u8]) {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let (kind, stem) = [
        (FileKind::Directory, "directory."),
        (FileKind::Shard, "shard."),
        (FileKind::Bundle, "bundle."),
        (FileKind::Lexicon, "lexicon."),
        (FileKind::Tree, "tree."),
        (FileKind::Paths, "paths."),
        (FileKind::Card, "card."),
    ][usize::from(selector % 7)];
    let file = if (selector / 7) % 2 == 1 {
        frame(kind, bytes)
    } else {
        bytes.to_vec()
    };
    let files = &tiny_sharded_files().files;
    // The file replaced: the first of its kind.
    let target = files
        .iter()
        .find(|(n, _)| n.starts_with(stem))
        .map(|(n, _)| n.clone())
        .unwrap_or_default();
    // The fixture's files with the target replaced: what the reader opens and fetches.
    let get = move |name: &str| -> Option<Vec<u8>> {
        if name == target {
            return Some(file.clone());
        }
        files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
    };
    let entry = get("midashi-entry.bin").unwrap_or_default();
    let directory = files
        .iter()
        .find(|(n, _)| n.starts_with("directory."))
        .and_then(|(n, _)| get(n))
        .unwrap_or_default();
    let source: FileSource = Box::new(move |wanted: &str| {
        get(wanted).ok_or_else(|| midashi_core::Error::Malformed {
            file: wanted.to_string(),
            detail: "no such file".into(),
        })
    });
    let Ok(mut idx) = SearchIndex::open_sharded(&entry, &directory, Some(source)) else {
        return;
    };
    if let Some((_, vectors)) = files.iter().find(|(n, _)| n.starts_with("vectors.")) {
        let _ = idx.attach_vectors(vectors);
    }
    exercise_for(&idx, kind);
}

/// Awkward floats for fusion constants and score cut-offs.
const FLOATS: [f32; 8] = [
    60.0,
    0.0,
    -1.0,
    1.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1e-30,
];

/// Parsing and running arbitrary queries with arbitrary options against the tiny fixture
/// index (built once from four Markdown files, with synonyms and vectors).
///
/// Input: 8 option bytes, then the query as UTF-8 (lossy). A 0x01 byte in the query part
/// starts a path filter, a second one a tag filter.
pub fn query(data: &[u8]) {
    let mut opt = [0u8; 8];
    let n = data.len().min(8);
    opt[..n].copy_from_slice(&data[..n]);
    let rest = String::from_utf8_lossy(&data[n..]);
    let mut parts = rest.split('\u{1}');
    let query = parts.next().unwrap_or("");
    let path = parts.next().map(str::to_string);
    let tags: Vec<String> = parts.next().map(str::to_string).into_iter().collect();

    let [flags, limit, offset, preview, depths, fusion, score, vec_sel] = opt;
    let mode = match (flags >> 3) & 3 {
        0 => Mode::Auto,
        1 => Mode::Keyword,
        2 => Mode::Semantic,
        _ => Mode::Hybrid,
    };
    let k = FLOATS[usize::from(fusion & 7)];
    let w = FLOATS[usize::from((fusion >> 3) & 7)];
    let fusion = if fusion & 0x80 != 0 {
        Fusion::Auto
    } else if fusion & 0x40 == 0 {
        Fusion::Rrf {
            k,
            keyword_weight: 1.0,
            semantic_weight: w,
        }
    } else {
        Fusion::Linear {
            keyword_weight: w,
            semantic_weight: k,
        }
    };
    let opts = SearchOptions {
        limit: if limit == 255 {
            1001
        } else {
            usize::from(limit)
        },
        offset: if offset == 255 {
            usize::MAX
        } else {
            usize::from(offset)
        },
        mode,
        fusion,
        path,
        category: (flags & 0x80 != 0).then(|| "guide".to_string()),
        tags,
        depth: (0..8u8).filter(|d| depths & (1 << d) != 0).collect(),
        lang: None,
        // Sometimes a language to put first: a matching, a near and a blank tag.
        prefer_lang: match (score >> 4) & 3 {
            0 => None,
            1 => Some("ja".to_string()),
            2 => Some("ja-JP_x".to_string()),
            _ => Some(" ".to_string()),
        },
        version: None,
        min_score: (score & 8 != 0).then(|| FLOATS[usize::from(score & 7)]),
        preview_lines: if preview == 255 {
            usize::MAX
        } else {
            usize::from(preview)
        },
        excerpts: flags & 0x20 == 0,
        prefix: flags & 1 != 0,
        fuzzy: flags & 2 != 0,
        group: flags & 4 != 0,
        collapse_versions: flags & 8 != 0,
        facets: flags & 0x40 != 0,
        facets_if_ranked: score & 0x40 != 0,
    };
    // The query vector: none, a real unit vector, a wrong-sized one, or one of odd floats.
    let vector: Option<Vec<f32>> = match vec_sel & 3 {
        0 => None,
        1 => Some(unit_vector(usize::from(vec_sel >> 2))),
        2 => Some(vec![1.0; usize::from(vec_sel >> 2)]),
        _ => Some(vec![FLOATS[usize::from(vec_sel >> 5)]; DIMS]),
    };
    let idx = tiny_index();
    let _ = idx.search(query, &opts, vector.as_deref());
    let _ = idx.suggest(query, usize::from(limit));
    let _ = idx.get_document(query);
    if let Some(p) = &opts.path {
        let _ = idx.find_anchor(p, query);
    }
}

/// Sectioning arbitrary Markdown (midashi-markdown), checking the section tree's invariants,
/// and rendering it as HTML.
///
/// Input: the file's bytes (invalid UTF-8 replaced, as build-index reads files). The slug
/// style is picked by the input's length, so seeds can be plain Markdown files.
pub fn markdown(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let slug = [SlugStyle::Github, SlugStyle::Vitepress, SlugStyle::Mdbook][data.len() % 3];
    let opts = Options {
        slug,
        ..Options::default()
    };
    let (doc, _warnings) = parse_document("dir/page.md", &src, &opts);

    // The line-range invariants every consumer relies on.
    let lines = src.split_inclusive('\n').count().max(1) as u32;
    let s = &doc.sections;
    assert!(!s.is_empty() && s[0].depth == 0 && s[0].start_line == 1);
    for (i, sec) in s.iter().enumerate() {
        assert!(sec.start_line >= 1 && sec.end_line <= lines, "{sec:?}");
        assert!(sec.start_line <= sec.own_end_line && sec.own_end_line <= sec.end_line);
        assert!(sec.heading.len() <= MAX_HEADING_BYTES);
        if let Some(pid) = sec.parent {
            let p = s[..i]
                .iter()
                .find(|p| p.id == pid)
                .expect("parent before child");
            assert!(p.depth < sec.depth);
            assert!(p.start_line <= sec.start_line && sec.end_line <= p.end_line);
        } else {
            assert_eq!(i, 0);
        }
    }
    let html = render_html(&src, &doc, &opts);
    // Raw HTML in the Markdown is escaped: no script element can come out.
    assert!(!html.contains("<script"), "{html}");
}
