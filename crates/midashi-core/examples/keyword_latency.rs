//! Keyword query latency on an index folder, natively: what the engine itself costs, with
//! no JS or wasm boundary. Opens the folder as `build-index search` does (a sharded index
//! reads its files as queries ask; they are all read once before timing), runs every query
//! of a BEIR `queries.jsonl` (or one query per line of a text file) with the benchmark's
//! options (limit 10, whole words, ungrouped unless `--group`), and prints p50 / p95 / p99.
//!
//!   cargo run --release -p midashi-core --example keyword_latency -- <index> <queries> [--group] [--prefix] [--ids] [--facets] [--prefer LANG] [--widget] [--rounds N] [--dump FILE] [--slowest N]
//!
//! `--widget`: what `<midashi-search>` asks on each keystroke (element.ts `pageOptions`): five
//! results, three-line previews, English first, facet counts when they cost nothing, the last
//! word a prefix, grouped — `bench:speed`'s "every keystroke with the widget's own options".
//!
//! `--dump` writes every answer as JSON, one line per query: two builds' dumps are equal
//! when a speed-up kept the results, their order, scores, excerpts and highlights.
//!
//! Prints figures; asserts nothing (speed is measured here, never in tests).

use midashi_core::format::entry::ENTRY_FILE_NAME;
use midashi_core::format::{FileKind, Manifest};
use midashi_core::layout::sharded::FileSource;
use midashi_core::{SearchIndex, SearchOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn open(dir: &Path) -> SearchIndex {
    let entry = std::fs::read(dir.join(ENTRY_FILE_NAME)).expect("an index folder");
    let manifest = Manifest::decode(&entry).expect("an entry file");
    let read =
        |kind: FileKind| std::fs::read(dir.join(&manifest.file(kind).unwrap().name)).unwrap();
    if manifest.file(FileKind::Directory).is_some() {
        let directory = read(FileKind::Directory);
        let folder: PathBuf = dir.to_path_buf();
        let source: FileSource = Box::new(move |name: &str| {
            std::fs::read(folder.join(name)).map_err(|e| midashi_core::Error::Malformed {
                file: name.to_string(),
                detail: e.to_string(),
            })
        });
        let mut index =
            SearchIndex::from_manifest_sharded(manifest, &directory, Some(source)).unwrap();
        // Keep every file a query reads, as a page does for a session's queries.
        index.set_keep_loaded(usize::MAX);
        index
    } else {
        let (terms, sections) = (read(FileKind::Terms), read(FileKind::Sections));
        SearchIndex::from_manifest(manifest, &terms, &sections).unwrap()
    }
}

fn queries(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("a queries file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match l.find("\"text\"") {
            Some(_) => {
                // BEIR: {"_id": …, "text": "…"}; the text is the last string value.
                let v: Vec<&str> = l.split("\"text\"").collect();
                let rest = v[1].trim_start_matches([' ', ':']).trim_start();
                let rest = rest.strip_prefix('"').unwrap_or(rest);
                let mut out = String::new();
                let mut chars = rest.chars();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some(n) = chars.next() {
                                out.push(match n {
                                    'n' => ' ',
                                    _ => n,
                                })
                            }
                        }
                        '"' => break,
                        c => out.push(c),
                    }
                }
                out
            }
            None => l.to_string(),
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: keyword_latency <index> <queries> [--group] [--prefix] [--ids] [--facets] [--prefer LANG] [--widget] [--rounds N] [--dump FILE] [--slowest N]");
        std::process::exit(2);
    }
    let (dir, qfile) = (Path::new(&args[0]), Path::new(&args[1]));
    let flag = |f: &str| args.iter().any(|a| a == f);
    let rounds: usize = args
        .iter()
        .position(|a| a == "--rounds")
        .map_or(3, |i| args[i + 1].parse().unwrap());
    let index = open(dir);
    let opts = if flag("--widget") {
        SearchOptions {
            limit: 5,
            preview_lines: 3,
            prefer_lang: Some("en".into()),
            facets_if_ranked: true,
            ..SearchOptions::default()
        }
    } else {
        SearchOptions {
            limit: 10,
            prefix: flag("--prefix"),
            group: flag("--group"),
            // The ranking alone: no excerpt, no preview (what engines that return ids do).
            excerpts: !flag("--ids"),
            preview_lines: if flag("--ids") { 0 } else { 5 },
            // What the widget asks besides: the filter chips' counts and the page's language first.
            facets: flag("--facets"),
            prefer_lang: args
                .iter()
                .position(|a| a == "--prefer")
                .map(|i| args[i + 1].clone()),
            ..SearchOptions::default()
        }
    };
    let qs = queries(qfile);
    if let Some(i) = args.iter().position(|a| a == "--dump") {
        let mut out = String::new();
        for q in &qs {
            let line = match index.search(q, &opts, None) {
                Ok(r) => serde_json::to_string(&r).unwrap(),
                Err(e) => format!("error: {e}"),
            };
            out.push_str(&line);
            out.push('\n');
        }
        std::fs::write(&args[i + 1], out).unwrap();
    }
    // Warm: every file a query reads is loaded before timing.
    for q in &qs {
        let _ = index.search(q, &opts, None);
    }
    let mut ms = Vec::new();
    let mut per_query = vec![0f64; qs.len()];
    for _ in 0..rounds {
        for (i, q) in qs.iter().enumerate() {
            let t = Instant::now();
            let r = index.search(q, &opts, None);
            let took = t.elapsed().as_secs_f64() * 1000.0;
            ms.push(took);
            per_query[i] += took / rounds as f64;
            std::hint::black_box(r.ok());
        }
    }
    // `--slowest N`: the N queries that took longest on average, to know where p99 goes.
    if let Some(i) = args.iter().position(|a| a == "--slowest") {
        let n: usize = args[i + 1].parse().unwrap();
        let mut order: Vec<usize> = (0..qs.len()).collect();
        order.sort_by(|&a, &b| per_query[b].total_cmp(&per_query[a]));
        for &q in order.iter().take(n) {
            let total = index.search(&qs[q], &opts, None).map_or(0, |r| r.total);
            println!("{:8.3} ms  {total:7} results  {:?}", per_query[q], qs[q]);
        }
    }
    if ms.is_empty() {
        return;
    }
    ms.sort_by(f64::total_cmp);
    let pct = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    println!(
        "{} queries × {rounds}: p50 {:.3} ms, p95 {:.3} ms, p99 {:.3} ms ({})",
        qs.len(),
        pct(0.5),
        pct(0.95),
        pct(0.99),
        if index.is_sharded() {
            "sharded"
        } else {
            "single file"
        }
    );
}
