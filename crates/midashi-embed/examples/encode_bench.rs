//! Encode latency and load time of the embedding model (native).
//!
//!   cargo run --release -p midashi-embed --example encode_bench [-- <model dir>]
//!
//! Prints the model load time of the ONNX (tract: read + parse + optimise), of tract's
//! prepared graph (`midashi_embed::graph`) and of the encoder file an index ships
//! (`midashi_embed::bert`), their sizes, and whether they embed alike; then the median and p90
//! encode latency of one query for a 27-token text and a 256-token (truncated) text through
//! tract and through the purpose-written encoder (one thread each), after a warm-up.

use std::time::{Duration, Instant};

use midashi_embed::Embedder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/all-MiniLM-L6-v2").to_string()
    });
    let dir = std::path::Path::new(&dir);

    let start = Instant::now();
    let embedder = Embedder::load_dir(dir)?;
    let load = start.elapsed();
    let size = std::fs::metadata(dir.join("model.onnx"))
        .map(|m| m.len())
        .unwrap_or(0);
    println!(
        "model {} ({:.1} MB): load {:.0} ms",
        dir.display(),
        size as f64 / 1e6,
        ms(load)
    );

    // The prepared form: what build-index ships and a browser loads (4-bit weights by
    // default; 8-bit for comparison).
    let files = midashi_embed::ModelDir::read(dir)?;
    let text = "How do I borrow a value without taking ownership of it?";
    let mut shipped = None;
    for (form, bits) in [
        ("prepared graph", midashi_embed::WeightBits::Eight),
        ("prepared graph", midashi_embed::WeightBits::Four),
        ("encoder file", midashi_embed::WeightBits::Eight),
        ("encoder file", midashi_embed::WeightBits::Four),
    ] {
        let started = Instant::now();
        let prepared = if form == "encoder file" {
            midashi_embed::bert::prepare(&files.onnx, bits)?
        } else {
            midashi_embed::graph::prepare(&files.onnx, bits)?
        };
        let prepare = started.elapsed();
        let mut loads = Vec::new();
        let mut from_prepared = None;
        for _ in 0..3 {
            let started = Instant::now();
            from_prepared = Some(Embedder::from_bytes(
                &prepared,
                &files.tokenizer,
                files.config.clone(),
            )?);
            loads.push(ms(started.elapsed()));
        }
        let e = from_prepared.as_ref().expect("loaded");
        let (a, b) = (embedder.embed(text)?, e.embed(text)?);
        let cosine: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        println!(
            "{form}, {bits:?} bits: {:.1} MB, made in {:.0} ms; load {:.0} / {:.0} / {:.0} ms; cosine to the ONNX's vector {cosine:.5}",
            prepared.len() as f64 / 1e6,
            ms(prepare),
            loads[0],
            loads[1],
            loads[2]
        );
        if form == "encoder file" && bits == midashi_embed::WeightBits::Four {
            shipped = from_prepared;
        }
    }
    let shipped = shipped.expect("the encoder file loaded");

    // Texts whose token counts (with [CLS]/[SEP]) are exactly 27 and 256.
    let short = fit("Midashi finds the section of the documentation that answers a question, in the browser, offline, and from the command line too", 27, &embedder);
    let long_source = "Section-level search splits every Markdown file into a tree of headings and indexes each node with its breadcrumbs, so that a result points at the paragraph that answers the query rather than at a whole page. ".repeat(20);
    // Longer than the limit: embed() truncates it to exactly max_tokens (256).
    let long = long_source;

    for ((label, text), (encoder, embedder)) in [("27 tokens", &short), ("256 tokens", &long)]
        .into_iter()
        .flat_map(|t| {
            [
                (t, ("tract, ONNX", &embedder)),
                (t, ("encoder file, 4-bit", &shipped)),
            ]
        })
    {
        let n = embedder.token_ids(text)?.len();
        let iterations = if n > 100 { 30 } else { 100 };
        for _ in 0..3 {
            embedder.embed(text)?;
        }
        let mut times: Vec<Duration> = (0..iterations)
            .map(|_| {
                let t = Instant::now();
                embedder.embed(text).expect("embed");
                t.elapsed()
            })
            .collect();
        times.sort();
        println!(
            "{encoder:>20} {label:>10} ({n} tokens): median {:.1} ms, p90 {:.1} ms, min {:.1} ms over {iterations} runs",
            ms(times[times.len() / 2]),
            ms(times[times.len() * 9 / 10]),
            ms(times[0])
        );
    }
    let t = Instant::now();
    let _ = embedder.token_ids(&short)?;
    println!(
        "tokenize 27 tokens: {:.0} µs",
        t.elapsed().as_secs_f64() * 1e6
    );
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The longest whitespace-delimited prefix of `text` with at most `tokens` tokens.
fn fit(text: &str, tokens: usize, embedder: &Embedder) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut best = String::new();
    for n in 1..=words.len() {
        let candidate = words[..n].join(" ");
        if embedder.count_tokens(&candidate) > tokens {
            break;
        }
        best = candidate;
    }
    best
}
