//! The answer and option types are written once, in Rust: midashi-core's structs and their
//! serde names. Everything else follows from them and is checked here against them, so a
//! field added, renamed or dropped on one side fails this test:
//! - the JS values the module writes (`midashi_wasm::values`) — checked equal to serde's JSON
//!   for real answers by `tests/values.rs`, and here for every type the package declares;
//! - the option names the module reads (`midashi_wasm::options::NAMES`) — the serde names of
//!   `SearchOptions`;
//! - the TypeScript declarations of the npm package (`web/src/types.ts`, and the `Step`
//!   that requests answer in `web/src/engine.ts`) — every interface field for field, with
//!   `| null` exactly where the value can be `null`, and the string unions of `Mode`,
//!   `FileKind` and `Fusion`.
//!
//! Fields the JS side adds of its own (timing, caching, which index a hit came from) are
//! listed in `JS_ONLY` with the reason.

use midashi_core::answer::{DocumentView, SectionView, VersionLink};
use midashi_core::format::entry::{ModelInfo, Stats};
use midashi_core::format::{FileKind, FileRef, Manifest};
use midashi_core::rank::fusion::Fusion;
use midashi_core::search::needs::{Needs, Step};
use midashi_core::{Mode, SearchHit, SearchOptions, SearchResponse};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Fields of the TypeScript declarations that the JS side adds, not the engine.
const JS_ONLY: &[(&str, &str, &str)] = &[
    (
        "SearchResponse",
        "tookMs",
        "timed by the JS API around the call",
    ),
    (
        "SearchResponse",
        "superseded",
        "the scheduler's: a newer call replaced this one",
    ),
    ("SearchResponse", "cached", "the LRU cache's"),
    (
        "SearchResponse",
        "semanticPending",
        "the JS API's: the semantic module was loading",
    ),
    (
        "SearchResponse",
        "semanticReason",
        "the JS API's: why it started loading the semantic leg (core search::policy)",
    ),
    (
        "SearchHit",
        "index",
        "multi.ts: which loaded index a hit came from",
    ),
    ("SectionView", "index", "multi.ts, as for a SearchHit"),
    (
        "DocumentView",
        "index",
        "multi.ts: which loaded index a document came from",
    ),
];

mod json;
use json::js;

fn ts_file(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../web/src")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A declared field: its TypeScript type and whether it is optional (`?:`).
#[derive(Debug, Clone)]
struct Field {
    ty: String,
    optional: bool,
}

/// The members of `export interface <name>` (with those of the interface it extends).
fn interface(src: &str, name: &str) -> BTreeMap<String, Field> {
    let head = src
        .lines()
        .position(|l| {
            l.starts_with(&format!("export interface {name} "))
                || l.starts_with(&format!("export interface {name}<"))
        })
        .unwrap_or_else(|| panic!("web/src declares no interface {name}"));
    let first = src.lines().nth(head).unwrap();
    let mut out = BTreeMap::new();
    if let Some(parent) = first
        .split(" extends ")
        .nth(1)
        .and_then(|p| p.split_whitespace().next())
    {
        out.extend(interface(src, parent));
    }
    for line in src.lines().skip(head + 1) {
        if line.starts_with('}') {
            break;
        }
        // Members sit at two spaces; doc comments and nested lines deeper, or start with `/`.
        let Some(member) = line
            .strip_prefix("  ")
            .filter(|m| !m.starts_with([' ', '/', '*']))
        else {
            continue;
        };
        let (lhs, ty) = member.split_once(':').expect("a member line `name: type;`");
        let optional = lhs.ends_with('?');
        out.insert(
            lhs.trim_end_matches('?').to_string(),
            Field {
                ty: ty.trim().trim_end_matches(';').to_string(),
                optional,
            },
        );
    }
    out
}

/// The keys of an inline object type such as `{ a: string; b: number }[] | null`.
/// (Sorted: compared with the keys of a JSON object.)
fn inline_keys(ty: &str) -> Vec<String> {
    let inner = &ty[ty.find('{').expect("an inline object type") + 1..ty.rfind('}').unwrap()];
    let mut keys: Vec<String> = inner
        .split(';')
        .filter_map(|m| m.split_once(':').map(|(k, _)| k.trim().to_string()))
        .filter(|k| !k.is_empty())
        .collect();
    keys.sort();
    keys
}

/// The string literals of `export type <name> = "a" | "b" …;`.
fn string_union(src: &str, name: &str) -> Vec<String> {
    let start = src
        .find(&format!("export type {name} ="))
        .unwrap_or_else(|| panic!("web/src declares no type {name}"));
    // Comment lines inside the union may hold `;` and quotes of their own.
    let body: String = src[start..]
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let body = &body[..body.find(';').unwrap()];
    body.split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// Compares a declared interface with the object the module writes for `values` (several
/// values, so that every `Option` is seen both `null` and set).
fn check(src: &str, name: &str, values: &[Value]) {
    let declared = interface(src, name);
    let js_only: Vec<&str> = JS_ONLY
        .iter()
        .filter(|(i, _, _)| *i == name)
        .map(|(_, f, _)| *f)
        .collect();
    let written: Vec<&String> = values[0].as_object().expect("an object").keys().collect();
    for key in &written {
        assert!(
            declared.contains_key(key.as_str()),
            "{name}.{key} is written by the engine but not declared in web/src/types.ts"
        );
    }
    for (field, decl) in &declared {
        if js_only.contains(&field.as_str()) {
            assert!(
                decl.optional || field == "tookMs",
                "{name}.{field}: the JS side's own fields are optional"
            );
            continue;
        }
        assert!(
            written.iter().any(|k| k.as_str() == field),
            "{name}.{field} is declared in web/src but the engine writes no such field"
        );
        let nullable = values.iter().any(|v| v[field].is_null());
        assert_eq!(
            decl.ty.contains("null"),
            nullable,
            "{name}.{field}: declared `{}`, but the engine {} null there",
            decl.ty,
            if nullable { "writes" } else { "never writes" }
        );
    }
}

fn hit(set: bool) -> SearchHit {
    let some = |s: &str| set.then(|| s.to_string());
    SearchHit {
        id: "0123456789abcdef".into(),
        path: "guide/a.md".into(),
        url: "/guide/a#b".into(),
        anchor: some("b"),
        heading: "B".into(),
        heading_path: vec!["A".into(), "B".into()],
        depth: 2,
        section_number: 1,
        start_line: 3,
        end_line: 9,
        score: 1.5,
        preview: "## B".into(),
        more_lines: 4,
        highlights: vec![[3, 4]],
        excerpt: if set {
            "…the excerpt…".into()
        } else {
            String::new()
        },
        excerpt_highlights: if set { vec![[1, 4]] } else { Vec::new() },
        excerpt_line: u32::from(set) * 7,
        title: "A".into(),
        description: some("about A"),
        token_estimate: 12,
        version: some("7.4"),
        other_versions: vec![VersionLink::new("7.5".into(), 1, "/7.5/guide/a", Some("b"))],
    }
}

fn manifest(model: bool) -> Manifest {
    Manifest {
        generator: "0.1.0".into(),
        files: vec![FileRef {
            kind: FileKind::Terms,
            name: "terms.0123456789abcdef.bin".into(),
            bytes: 10,
            needed_for_keyword: true,
        }],
        stats: Stats {
            documents: 1,
            sections: 2,
            terms: 3,
            vectors: 0,
        },
        slug: "github".into(),
        base_url: "/".into(),
        model: model.then(|| ModelInfo {
            name: "m".into(),
            dims: 384,
            sha256: "00".into(),
            languages: vec!["en".into()],
        }),
        languages: Vec::new(),
    }
}

#[test]
fn typescript_declarations_follow_the_rust_types() {
    let types = ts_file("types.ts");
    let hits = [js(&hit(true)), js(&hit(false))];
    check(&types, "SearchHit", &hits);
    let response = |set| SearchResponse {
        total: 1,
        total_exact: set,
        results: vec![hit(set)],
        suggestions: vec!["x".into()],
        mode: Mode::Keyword,
        facets: set.then(|| midashi_core::answer::Facets {
            category: vec![midashi_core::answer::FacetCount {
                value: "guide".into(),
                count: 2,
            }],
            ..Default::default()
        }),
    };
    check(
        &types,
        "SearchResponse",
        &[js(&response(true)), js(&response(false))],
    );
    let section = |set| SectionView {
        hit: hit(set),
        text: "## B".into(),
    };
    check(
        &types,
        "SectionView",
        &[js(&section(true)), js(&section(false))],
    );
    let document = DocumentView {
        path: "a.md".into(),
        url: "/a".into(),
        title: "A".into(),
        source: "# A".into(),
        sections: vec![hit(true)],
    };
    check(&types, "DocumentView", &[js(&document)]);
    let manifests = [js(&manifest(true)), js(&manifest(false))];
    check(&types, "Manifest", &manifests);
    check(&types, "FileRef", &[js(&manifest(true).files[0])]);

    // Inline object types: a hit's other versions, a manifest's stats and model.
    let declared = interface(&types, "SearchHit");
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        inline_keys(&declared["other_versions"].ty),
        keys(&hits[0]["other_versions"][0]),
        "SearchHit.other_versions"
    );
    let declared = interface(&types, "Manifest");
    assert_eq!(
        inline_keys(&declared["stats"].ty),
        keys(&manifests[0]["stats"]),
        "Manifest.stats"
    );
    assert_eq!(
        inline_keys(&declared["model"].ty),
        keys(&manifests[0]["model"]),
        "Manifest.model"
    );

    // String unions.
    let mode_names: Vec<String> = [Mode::Auto, Mode::Keyword, Mode::Semantic, Mode::Hybrid]
        .iter()
        .map(|m| js(m).as_str().unwrap().to_string())
        .collect();
    assert_eq!(string_union(&types, "Mode"), mode_names, "Mode");
    let kinds: Vec<String> = FileKind::ALL
        .iter()
        .map(|k| {
            serde_json::to_value(k)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(string_union(&types, "FileKind"), kinds, "FileKind");
    // Fusion: each variant's fields as serde writes them, one alternative each.
    let fusion_src = &types[types.find("export type Fusion =").unwrap()..];
    let fusion_src = &fusion_src[..fusion_src.find(";\n").unwrap()];
    let alternatives: Vec<Vec<String>> = fusion_src
        .split("| {")
        .skip(1)
        .map(|alt| inline_keys(&format!("{{{alt}")))
        .collect();
    for f in [
        Fusion::default(),
        Fusion::Rrf {
            k: 60.0,
            keyword_weight: 1.0,
            semantic_weight: 1.0,
        },
        Fusion::Linear {
            keyword_weight: 1.0,
            semantic_weight: 1.0,
        },
    ] {
        let v = serde_json::to_value(f).unwrap();
        let ks: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        let mut sorted = ks.clone();
        sorted.sort();
        assert!(
            alternatives.iter().any(|a| {
                let mut a = a.clone();
                a.sort();
                a == sorted
            }),
            "Fusion {ks:?} is not declared in web/src/types.ts ({alternatives:?})"
        );
    }
}

#[test]
fn option_names_follow_the_rust_type() {
    let mut serde_names: Vec<String> = serde_json::to_value(SearchOptions::default())
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    serde_names.sort();
    let mut read: Vec<String> = midashi_wasm::options::NAMES
        .iter()
        .map(|s| s.to_string())
        .collect();
    read.sort();
    assert_eq!(
        read, serde_names,
        "options.rs NAMES against SearchOptions' serde names"
    );
    let declared: Vec<String> = interface(&ts_file("types.ts"), "EngineSearchOptions")
        .into_keys()
        .collect();
    assert_eq!(
        declared, serde_names,
        "EngineSearchOptions in web/src/types.ts"
    );
}

#[test]
fn the_step_a_request_answers_is_declared_as_written() {
    let engine = ts_file("engine.ts");
    let ready: Step<Vec<String>> = Step::Ready(vec!["a".into()]);
    let needs: Step<Vec<String>> = Step::Needs(Needs {
        files: vec!["shard.0123456789abcdef.bin".into()],
        full_engine: false,
    });
    check(&engine, "Step", &[js(&ready), js(&needs)]);
    let declared = interface(&engine, "Step");
    let mut written: Vec<String> = js(&needs)["needs"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    written.sort();
    assert_eq!(inline_keys(&declared["needs"].ty), written, "Step.needs");
}
