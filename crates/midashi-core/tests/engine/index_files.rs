//! Properties of index files and queries on a small real index (the CLI's fixture: four
//! Markdown files, English and Japanese, sectioned here, with synonyms and vectors). Here
//! because it needs the sectioner and the engine, but not the CLI or the embedder:
//! - every truncation and every single-byte change of every file is a typed error;
//! - payloads that pass the checksum but do not hang together are typed errors too (the
//!   cases the fuzzers found);
//! - arbitrary queries with arbitrary options never panic, and what they return points
//!   inside the index;
//! - query limits: a 1 MB query is refused, words past the cap are ignored, expansion is
//!   bounded.

use midashi_core::build::{IndexBuilder, IndexSettings, Layout, Synonyms};
use midashi_core::format::{decode, encode, frame, frame_as_minor, FileKind, HEADER_LEN};
use midashi_core::layout::single::TermsData;
use midashi_core::query::{MAX_FUZZY_CHARS, MAX_QUERY_BYTES, MAX_QUERY_TERMS};
use midashi_core::search::needs::{Needs, Step};
use midashi_core::section::records::SectionsData;
use midashi_core::{Error, Mode, SearchIndex, SearchOptions};
use midashi_markdown::{parse_document, Options, SlugStyle};
use proptest::prelude::*;
use std::path::Path;
use std::time::Instant;

use crate::common;
use common::unit_vector;

/// The fixture index's files in the single-file layout (`--layout single`): entry, terms,
/// sections, vectors. The sharded layout's files (the default) are tried in tests/sharded.rs.
struct Files {
    entry: Vec<u8>,
    terms: Vec<u8>,
    sections: Vec<u8>,
    vectors: Vec<u8>,
}

fn build_files() -> Files {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build-index/tests/fixtures/docs");
    let mut builder = IndexBuilder::new(IndexSettings {
        synonyms: Synonyms::parse("paging = pagination\nページング = paging\n").unwrap(),
        layout: Layout::Single,
        ..IndexSettings::default()
    });
    let opts = Options {
        slug: SlugStyle::Vitepress,
        ..Options::default()
    };
    for path in [
        "index.md",
        "guide/computed.md",
        "guide/pagination.md",
        "ja/computed.md",
    ] {
        let src = std::fs::read_to_string(root.join(path)).unwrap();
        builder.add(parse_document(path, &src, &opts).0);
    }
    common::add_vectors(&mut builder, &["en"]);
    let out = builder.build().unwrap();
    let file = |stem: &str| {
        out.files
            .iter()
            .find(|(n, _)| n.starts_with(stem))
            .unwrap()
            .1
            .clone()
    };
    Files {
        entry: file("midashi-entry"),
        terms: file("terms"),
        sections: file("sections"),
        vectors: file("vectors"),
    }
}

fn files() -> &'static Files {
    static FILES: std::sync::OnceLock<Files> = std::sync::OnceLock::new();
    FILES.get_or_init(build_files)
}

fn open(f: &Files) -> Result<SearchIndex, Error> {
    let mut idx = SearchIndex::open(&f.entry, &f.terms, &f.sections)?;
    idx.attach_vectors(&f.vectors)?;
    Ok(idx)
}

fn index() -> &'static SearchIndex {
    static INDEX: std::sync::OnceLock<SearchIndex> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| open(files()).unwrap())
}

/// The fixture with one file replaced.
fn with(kind: FileKind, bytes: Vec<u8>) -> Files {
    let f = files();
    let mut out = Files {
        entry: f.entry.clone(),
        terms: f.terms.clone(),
        sections: f.sections.clone(),
        vectors: f.vectors.clone(),
    };
    *match kind {
        FileKind::Entry => &mut out.entry,
        FileKind::Terms => &mut out.terms,
        FileKind::Sections => &mut out.sections,
        FileKind::Vectors => &mut out.vectors,
        other => panic!("the fixture has no {other} file"),
    } = bytes;
    out
}

fn original(kind: FileKind) -> &'static [u8] {
    let f = files();
    match kind {
        FileKind::Entry => &f.entry,
        FileKind::Terms => &f.terms,
        FileKind::Sections => &f.sections,
        FileKind::Vectors => &f.vectors,
        other => panic!("the fixture has no {other} file"),
    }
}

const KINDS: [FileKind; 4] = [
    FileKind::Entry,
    FileKind::Terms,
    FileKind::Sections,
    FileKind::Vectors,
];

#[test]
fn the_fixture_loads_and_answers() {
    let r = index()
        .search("pagination", &SearchOptions::default(), None)
        .unwrap();
    assert!(r.total > 0);
    let r = index()
        .search(
            "pagination",
            &SearchOptions::default(),
            Some(&unit_vector(0)),
        )
        .unwrap();
    assert_eq!(r.mode, Mode::Hybrid);
}

/// Fetching is a plan: a query vector on an index whose vectors are not attached yet answers
/// the vectors file to fetch (a value, not an error); attached by name, the same request
/// answers as an index opened with its vectors does.
#[test]
fn a_query_vector_before_the_vectors_asks_for_them_by_name() {
    let f = files();
    let mut idx = SearchIndex::open(&f.entry, &f.terms, &f.sections).unwrap();
    let v = unit_vector(0);
    let opts = SearchOptions::default();
    let keyword = idx.search_step("pagination", &opts, None).unwrap();
    assert!(matches!(keyword, Step::Ready(ref r) if r.total > 0));
    let name = idx.manifest().file(FileKind::Vectors).unwrap().name.clone();
    match idx.search_step("pagination", &opts, Some(&v)).unwrap() {
        Step::Needs(n) => assert_eq!(
            n,
            Needs {
                files: vec![name.clone()],
                full_engine: false
            }
        ),
        Step::Ready(r) => panic!("answered without its vectors: {r:?}"),
    }
    // A Japanese query leaves the English-only model out: nothing to fetch.
    assert!(matches!(
        idx.search_step("算出プロパティ", &opts, Some(&v)).unwrap(),
        Step::Ready(_)
    ));
    idx.attach_file(&name, &f.vectors).unwrap();
    let want = index().search("pagination", &opts, Some(&v)).unwrap();
    assert_eq!(
        idx.search_step("pagination", &opts, Some(&v)).unwrap(),
        Step::Ready(want)
    );
    // Attached by name, a file of another kind is refused with a typed error.
    let err = idx.attach_file(&name, &f.terms).unwrap_err();
    assert_eq!(err.code(), "WRONG_FILE_KIND", "{err}");
}

#[test]
fn an_english_only_model_sits_out_automatic_japanese_queries() {
    // The fixture's model says it covers English only.
    let v = unit_vector(0);
    let auto = SearchOptions::default();
    let r = index().search("算出プロパティ", &auto, Some(&v)).unwrap();
    assert_eq!(r.mode, Mode::Keyword, "a Japanese query runs keyword only");
    assert!(r.total > 0);
    assert!(!index().semantic_covers("Vue の computed"));
    assert!(index().semantic_covers("computed properties"));
    // Asked for explicitly, the semantic leg still runs.
    let hybrid = SearchOptions {
        mode: Mode::Hybrid,
        ..SearchOptions::default()
    };
    let r = index().search("算出プロパティ", &hybrid, Some(&v)).unwrap();
    assert_eq!(r.mode, Mode::Hybrid);
}

#[test]
fn an_entry_file_of_format_1_1_still_opens() {
    // What midashi wrote before the model named its languages: the same fields, minus one.
    #[derive(serde::Serialize)]
    struct OldModel {
        name: String,
        dims: u32,
        sha256: String,
    }
    #[derive(serde::Serialize)]
    struct OldManifest {
        generator: String,
        files: Vec<midashi_core::format::FileRef>,
        stats: midashi_core::format::entry::Stats,
        slug: String,
        base_url: String,
        model: Option<OldModel>,
    }
    let m = index().manifest();
    let old = OldManifest {
        generator: m.generator.clone(),
        files: m.files.clone(),
        stats: m.stats.clone(),
        slug: m.slug.clone(),
        base_url: m.base_url.clone(),
        model: m.model.as_ref().map(|x| OldModel {
            name: x.name.clone(),
            dims: x.dims,
            sha256: x.sha256.clone(),
        }),
    };
    let bytes = encode(FileKind::Entry, &old).unwrap();
    let framed = frame_as_minor(FileKind::Entry, &bytes[HEADER_LEN..], 1);
    let f = files();
    let idx = SearchIndex::open(&framed, &f.terms, &f.sections).unwrap();
    let model = idx.manifest().model.as_ref().unwrap();
    assert!(
        model.languages.is_empty(),
        "unknown languages: the model is trusted"
    );
    assert!(idx.semantic_covers("算出プロパティ"));
}

#[test]
fn every_truncation_of_every_file_is_a_truncation_error() {
    for kind in KINDS {
        let good = original(kind);
        for cut in 0..good.len() {
            let err = open(&with(kind, good[..cut].to_vec())).unwrap_err();
            assert!(
                matches!(err, Error::Truncated { .. }),
                "{kind} cut at {cut}: {err:?}"
            );
        }
    }
}

#[test]
fn every_single_byte_change_of_every_file_is_a_typed_error() {
    for kind in KINDS {
        let good = original(kind);
        for i in 0..good.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut b = good.to_vec();
                b[i] ^= flip;
                let err = match open(&with(kind, b)) {
                    Ok(_) => panic!("{kind}: flip {flip:#x} at byte {i} went unnoticed"),
                    Err(e) => e,
                };
                // The checksum covers the header and the payload; a changed length shows
                // as a truncated file or as bytes after the payload.
                assert!(
                    matches!(
                        err,
                        Error::Corrupted { .. }
                            | Error::Truncated { .. }
                            | Error::Malformed { .. }
                            | Error::NotAnIndex { .. }
                            | Error::UnsupportedVersion { .. }
                            | Error::WrongKind { .. }
                    ),
                    "{kind} flip at {i}: {err:?}"
                );
            }
        }
    }
}

/// Files whose checksum is right but whose contents are not: what a buggy or hand-made
/// writer produces. Each must be refused at load, not panic later.
#[test]
fn checksummed_but_inconsistent_payloads_are_malformed() {
    let f = files();
    let terms: TermsData = decode(FileKind::Terms, "t", &f.terms).unwrap();
    let sections: SectionsData = decode(FileKind::Sections, "s", &f.sections).unwrap();
    let refuse = |kind: FileKind, bytes: Vec<u8>, what: &str| {
        let err = match open(&with(kind, bytes)) {
            Ok(idx) => {
                // Loading may only succeed if every read path still works.
                exercise(&idx);
                return;
            }
            Err(e) => e,
        };
        assert_eq!(err.code(), "MALFORMED", "{what}: {err:?}");
    };

    // The fuzzer's first find: a term dictionary damaged behind the file's checksum made
    // fst panic (subtract with overflow) on the first fuzzy query.
    for i in (0..terms.fst.len()).step_by(7) {
        let mut t = terms.clone();
        t.fst[i] ^= 0x5a;
        refuse(
            FileKind::Terms,
            encode(FileKind::Terms, &t).unwrap(),
            &format!("fst byte {i}"),
        );
    }
    // Posting lists pointing anywhere must not panic either.
    for i in (0..terms.postings.len()).step_by(11) {
        let mut t = terms.clone();
        t.postings[i] ^= 0xff;
        refuse(
            FileKind::Terms,
            encode(FileKind::Terms, &t).unwrap(),
            &format!("postings byte {i}"),
        );
    }
    // Documents claiming sections that are not there.
    let mut s = sections.clone();
    s.docs[0].section_count = u32::MAX;
    refuse(
        FileKind::Sections,
        encode(FileKind::Sections, &s).unwrap(),
        "section_count",
    );
    let mut s = sections.clone();
    let last = s.docs.len() - 1;
    s.docs[last].first_section = u32::MAX - 1;
    refuse(
        FileKind::Sections,
        encode(FileKind::Sections, &s).unwrap(),
        "first_section",
    );
    // Line numbers out of any range.
    for (start, end) in [
        (0, 0),
        (u32::MAX, u32::MAX),
        (5, 1),
        (1, u32::MAX),
        (0, u32::MAX),
    ] {
        let mut s = sections.clone();
        for sec in &mut s.sections {
            sec.start_line = start;
            sec.end_line = end;
            sec.own_end_line = end;
        }
        refuse(
            FileKind::Sections,
            encode(FileKind::Sections, &s).unwrap(),
            &format!("lines {start}-{end}"),
        );
    }
    // Garbage payloads of each kind.
    for kind in KINDS {
        for payload in [
            &b""[..],
            b"\x00",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
        ] {
            refuse(kind, frame(kind, payload), "garbage");
        }
    }
}

/// Every read path of a loaded index.
fn exercise(idx: &SearchIndex) {
    let qv = unit_vector(1);
    for q in ["pagination", "paging offset", "算出", "conf", "paginaton"] {
        for mode in [Mode::Keyword, Mode::Hybrid, Mode::Semantic] {
            let opts = SearchOptions {
                mode,
                limit: 1000,
                preview_lines: usize::MAX,
                ..SearchOptions::default()
            };
            let v = (mode != Mode::Keyword).then_some(&qv[..]);
            if let Ok(r) = idx.search(q, &opts, v) {
                check_hits(&r);
            }
        }
    }
    let paths: Vec<String> = idx.documents().into_iter().map(|(p, _)| p).collect();
    for p in paths {
        if let Some(d) = idx.get_document(&p) {
            for s in d.sections {
                let id = midashi_core::section::SectionId::parse(&s.id).unwrap();
                assert!(idx.get_section(id).is_some());
            }
        }
    }
    let _ = idx.suggest("pa", 10);
}

fn check_hits(r: &midashi_core::SearchResponse) {
    assert!(r.results.len() <= r.total);
    for h in &r.results {
        // (Scores of a hand-made index can be anything, infinities included; lines are
        // checked at load.)
        assert!(1 <= h.start_line && h.start_line <= h.end_line, "{h:?}");
    }
}

#[test]
fn a_megabyte_query_is_refused_at_once() {
    let huge = "pagination ".repeat(100_000);
    let t = Instant::now();
    let err = index()
        .search(&huge, &SearchOptions::default(), None)
        .unwrap_err();
    println!("1 MB query refused in {:?}", t.elapsed());
    assert_eq!(
        err,
        Error::QueryTooLong {
            len: huge.trim().len(),
            max: MAX_QUERY_BYTES
        }
    );
    // So are completions of a megabyte "word being typed".
    assert!(index().suggest(&huge, 10).unwrap().len() <= 10);
}

#[test]
fn words_past_the_term_cap_are_ignored() {
    // MAX_QUERY_TERMS words found nowhere, then one that is everywhere: the last is past the
    // cap, so nothing matches.
    let filler: Vec<String> = (0..MAX_QUERY_TERMS).map(|i| format!("qqq{i}")).collect();
    let q = format!("{} pagination", filler.join(" "));
    assert!(q.len() <= MAX_QUERY_BYTES);
    let opts = SearchOptions {
        fuzzy: false,
        prefix: false,
        ..SearchOptions::default()
    };
    assert_eq!(index().search(&q, &opts, None).unwrap().total, 0);
    let q = format!("{} pagination", filler[..MAX_QUERY_TERMS - 1].join(" "));
    assert!(index().search(&q, &opts, None).unwrap().total > 0);
}

#[test]
fn worst_case_expansion_stays_fast() {
    // The query that makes the planner work hardest: as many long unknown words as fit, each
    // sent through fuzzy correction, the last one also through prefix completion.
    // Words as long as still get corrections: the longest automata.
    let word = |i: usize| format!("paginationxconfig{i:03}");
    assert_eq!(word(0).len(), MAX_FUZZY_CHARS);
    let words: Vec<String> = (0..MAX_QUERY_TERMS).map(word).collect();
    let q = words.join(" ");
    let t = Instant::now();
    let r = index().search(&q, &SearchOptions::default(), None).unwrap();
    println!(
        "{} unknown {MAX_FUZZY_CHARS}-character words with fuzzy + prefix: {:?} ({} results)",
        MAX_QUERY_TERMS,
        t.elapsed(),
        r.total
    );
    let q: String = "算".repeat(MAX_QUERY_BYTES / 3);
    let t = Instant::now();
    index().search(&q, &SearchOptions::default(), None).unwrap();
    println!("{} CJK characters: {:?}", q.chars().count(), t.elapsed());
}

fn options() -> impl Strategy<Value = SearchOptions> {
    (
        (0usize..1200, 0usize..50, 0usize..50),
        prop_oneof![
            Just(Mode::Auto),
            Just(Mode::Keyword),
            Just(Mode::Semantic),
            Just(Mode::Hybrid)
        ],
        (any::<bool>(), any::<bool>(), any::<bool>()),
        prop::collection::vec(0u8..8, 0..3),
        prop::option::of("[a-z/]{0,8}"),
        prop::option::of(any::<f32>()),
    )
        .prop_map(
            |((limit, offset, preview_lines), mode, (prefix, fuzzy, group), depth, path, min)| {
                SearchOptions {
                    limit,
                    offset,
                    preview_lines,
                    mode,
                    prefix,
                    fuzzy,
                    group,
                    depth,
                    path,
                    min_score: min,
                    ..SearchOptions::default()
                }
            },
        )
}

/// Query text: arbitrary strings, and strings made of the index's own words, typos,
/// Japanese and operators, so that matches and expansions happen.
fn query() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        Just("pagination".to_string()),
        Just("paging".to_string()),
        Just("paginaton".to_string()),
        Just("conf".to_string()),
        Just("offset".to_string()),
        Just("ページング".to_string()),
        Just("算出".to_string()),
        Just("プ".to_string()),
        Just("v-model".to_string()),
        Just("\"".to_string()),
        Just("-".to_string()),
        Just("*".to_string()),
        "[a-z]{1,12}",
        "\\PC{1,4}",
    ];
    prop_oneof![
        any::<String>(),
        prop::collection::vec(word, 0..12).prop_map(|w| w.join(" ")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn queries_never_panic(q in query(), opts in options(), vector in any::<bool>()) {
        let qv = unit_vector(3);
        match index().search(&q, &opts, vector.then_some(&qv[..])) {
            Ok(r) => {
                prop_assert!(r.results.len() <= opts.limit);
                check_hits(&r);
                for h in &r.results {
                    prop_assert!(opts.depth.is_empty() || opts.depth.contains(&h.depth));
                }
            }
            Err(e) => prop_assert!(matches!(
                e,
                Error::QueryTooLong { .. }
                    | Error::InvalidOption { .. }
                    | Error::SemanticUnavailable(_)
            ), "{e:?}"),
        }
        let _ = index().suggest(&q, opts.limit);
        let _ = index().get_document(&q);
    }

    /// Several random bytes changed at once (a burst of corruption, or a bad sector):
    /// never accepted, never a panic.
    #[test]
    fn random_corruption_is_a_typed_error(
        kind in 0usize..4,
        changes in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..8),
    ) {
        let kind = KINDS[kind];
        let mut b = original(kind).to_vec();
        // One change per byte: two XORs of the same byte can cancel out.
        let mut changed = std::collections::BTreeSet::new();
        for (at, x) in changes {
            let i = at.index(b.len());
            if changed.insert(i) {
                b[i] ^= x;
            }
        }
        prop_assert!(open(&with(kind, b)).is_err());
    }

    /// Arbitrary payloads behind a valid header and checksum: an error or an index whose
    /// every read path works.
    #[test]
    fn checksummed_garbage_never_panics(
        kind in 0usize..4,
        payload in prop::collection::vec(any::<u8>(), 0..256),
    ) {
        let kind = KINDS[kind];
        let real = &original(kind)[HEADER_LEN..];
        // Half the time, splice the garbage into the real payload so decoding gets far.
        let mut bytes = real.to_vec();
        let at = payload.len() % (bytes.len() + 1);
        bytes.splice(at..(at + payload.len()).min(bytes.len()), payload.iter().copied());
        for p in [&payload[..], &bytes[..]] {
            if let Ok(idx) = open(&with(kind, frame(kind, p))) {
                exercise(&idx);
            }
        }
    }
}
