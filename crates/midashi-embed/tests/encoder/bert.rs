//! The purpose-written encoder (`midashi_embed::bert`) against tract on the shipped models:
//! with the ONNX's own 8-bit weights it embeds as tract runs the ONNX; with 4-bit weights
//! (6-bit down-projections rounded to nearest; all in 4 bits rounded with calibration text in
//! view, as an index ships them) close to it; the file is deterministic, and damage is an
//! error, never a panic.

use crate::common;

use midashi_embed::{bert, graph, EmbedError, Embedder, ModelDir};

use common::TEXTS;

fn files(name: &str, env: &str, fetch: &str) -> Option<ModelDir> {
    let dir = common::model_dir(env, name);
    if !common::available(&dir, fetch, true) {
        return None;
    }
    Some(ModelDir::read(&dir).expect("the model folder reads"))
}

/// The default model's folder (see [`files`]).
fn minilm() -> Option<ModelDir> {
    files(
        "all-MiniLM-L6-v2",
        "MIDASHI_MODEL",
        "scripts/fetch-model.sh",
    )
}

fn embedder(bytes: &[u8], files: &ModelDir) -> Embedder {
    Embedder::from_bytes(bytes, &files.tokenizer, files.config.clone()).expect("the model loads")
}

/// Every text's query vector and document windows through `a` and `b` at least `least` alike.
fn alike(name: &str, a: &Embedder, b: &Embedder, least: f64) {
    let long = TEXTS[2].repeat(30); // several windows of the model's token limit
    for text in TEXTS.iter().copied().chain([long.as_str()]) {
        let c = common::cosine(&a.embed(text).unwrap(), &b.embed(text).unwrap());
        let short = text.chars().take(40).collect::<String>();
        assert!(c >= least, "{name}: query {short:?}: cosine {c}");
        let (wa, wb) = (
            a.embed_windows(text).unwrap(),
            b.embed_windows(text).unwrap(),
        );
        assert_eq!(wa.len(), wb.len(), "{name}: windows of {short:?}");
        for (x, y) in wa.iter().zip(&wb) {
            let c = common::cosine(x, y);
            assert!(c >= least, "{name}: document {short:?}: cosine {c}");
        }
    }
}

/// e5's folder, its vocabulary trimmed to [`TEXTS`]' pieces (see [`common::site_sized`]).
fn e5() -> Option<ModelDir> {
    let files = files(
        "multilingual-e5-small",
        "MIDASHI_E5_MODEL",
        "scripts/fetch-e5.sh",
    )?;
    Some(common::site_sized(files, &TEXTS))
}

fn check(name: &str, files: Option<ModelDir>, least_four_bit: f64) {
    let Some(files) = files else {
        return;
    };
    let eight = bert::prepare(&files.onnx, graph::WeightBits::Eight).expect("the file writes");
    let four = bert::prepare(&files.onnx, graph::WeightBits::Four).expect("the file writes");
    assert!(bert::is_encoder_file(&four) && !bert::is_encoder_file(&files.onnx));
    let again = bert::prepare(&files.onnx, graph::WeightBits::Four).unwrap();
    common::assert_four_bit_copy(name, &four, &again, &eight);
    // The same weights, tract and this encoder: the same vectors to float rounding.
    let exact = embedder(&files.onnx, &files);
    alike(name, &exact, &embedder(&eight, &files), 0.99999);
    // The copy an index ships: queries (only they are encoded with it; the documents with
    // the exact model) close to the exact model's, as close as tract's 4-bit graph was.
    let shipped = embedder(&four, &files);
    for text in TEXTS.iter().filter(|t| !t.is_empty()) {
        let c = common::cosine(&exact.embed(text).unwrap(), &shipped.embed(text).unwrap());
        assert!(
            c >= least_four_bit,
            "{name}: 4-bit query {text:?}: cosine {c}"
        );
    }
}

#[test]
fn minilm_encoder_file_embeds_as_tract_does() {
    check(
        "all-MiniLM-L6-v2",
        minilm(),
        // The compact copy (word table on 4 levels, attention's query and key on 8: see
        // `packed::q4`) costs queries ~0.02 of cosine (0.97 → 0.95) and retrieval nothing
        // measurable (SciFact semantic 0.6955 → 0.6943, Rust-book questions 0.7361 → 0.7394).
        0.94,
    );
}

#[test]
fn e5_encoder_file_embeds_as_tract_does() {
    check("multilingual-e5-small", e5(), 0.99);
}

/// Calibration text as build-index takes it from a site: passages' first words as queries,
/// and the start of their windows.
const CALIBRATION: [&str; 6] = [
    "Ownership is a set of rules that govern how a Rust program manages memory. Some languages have garbage collection that regularly looks for no-longer-used memory as the program runs.",
    "A reference is like a pointer in that it is an address we can follow to access the data stored at that address; that data is owned by some other variable.",
    "The search index is split into shards that a page fetches as queries need them, so the first result arrives before the whole index has loaded.",
    "Computed properties are cached based on their reactive dependencies and only re-evaluate when some of those dependencies have changed.",
    "To install the package, run npm install in your project folder, then import the widget and point it at the folder the build wrote.",
    "Errors are values: a function that can fail returns a Result, and the caller decides whether to propagate the error with the question mark operator or handle it.",
];

#[test]
fn a_calibrated_copy_is_all_four_bit_and_close() {
    let Some(files) = minilm() else {
        return;
    };
    let exact = embedder(&files.onnx, &files);
    let calibration: Vec<Vec<u32>> = CALIBRATION
        .iter()
        .flat_map(|t| {
            let words: Vec<&str> = t.split_whitespace().take(8).collect();
            [
                exact.token_ids(&words.join(" ")).unwrap(),
                exact.window_token_ids(t).unwrap().remove(0),
            ]
        })
        .collect();
    let four = bert::prepare(&files.onnx, graph::WeightBits::Four).unwrap();
    let calibrated =
        bert::prepare_calibrated(&files.onnx, graph::WeightBits::Four, &calibration).unwrap();
    let again =
        bert::prepare_calibrated(&files.onnx, graph::WeightBits::Four, &calibration).unwrap();
    assert!(
        calibrated == again,
        "the same calibration makes the same file"
    );
    let has = |file: &[u8], magic: &[u8]| file.windows(4).any(|w| w == magic);
    assert!(
        has(&four, b"MQ6G"),
        "rounded to nearest, the down-projections take 6 bits"
    );
    assert!(
        !has(&calibrated, b"MQ6G"),
        "calibrated, every weight takes 4 bits"
    );
    // The compact copy: the word table on 4 of the 16 levels (brotli stores them in ~2 bits).
    assert_eq!(word_table_levels(&calibrated), (6..=9).collect());
    assert!(
        (calibrated.len() as f64) < four.len() as f64 * 0.95,
        "{} bytes calibrated against {} to nearest",
        calibrated.len(),
        four.len()
    );
    // Queries (what the copy encodes) as close to the exact model's as every weight to
    // nearest in 4 bits with the down-projections in 6 — closer on English text like the
    // calibration's, which is the point of rounding with inputs in view.
    let shipped = embedder(&calibrated, &files);
    let nearest = embedder(&four, &files);
    let mut sum = [0f64; 2];
    for text in TEXTS.iter().filter(|t| !t.is_empty()) {
        let want = exact.embed(text).unwrap();
        let c = common::cosine(&want, &shipped.embed(text).unwrap());
        assert!(c >= 0.94, "calibrated 4-bit query {text:?}: cosine {c}");
        if text.is_ascii() {
            sum[0] += c;
            sum[1] += common::cosine(&want, &nearest.embed(text).unwrap());
        }
    }
    assert!(
        sum[0] > sum[1],
        "English queries: calibrated {} against nearest {}",
        sum[0] / 3.0,
        sum[1] / 3.0
    );
}

/// The levels (nibbles) the word table's `MQ4G` entry uses: the one that expands to int8
/// (flag byte 1). Read by hand from the layout `packed::q4` documents.
fn word_table_levels(file: &[u8]) -> std::collections::BTreeSet<u8> {
    let at = file
        .windows(5)
        .position(|w| w == b"MQ4G\x01")
        .expect("a 4-bit word table");
    let u32_at = |i: usize| u32::from_le_bytes(file[i..i + 4].try_into().unwrap()) as usize;
    let rank = u32_at(at + 5);
    let dims: Vec<usize> = (0..rank).map(|k| u32_at(at + 9 + 4 * k)).collect();
    let (columns, rows) = (
        dims[rank - 1],
        dims.iter().product::<usize>() / dims[rank - 1],
    );
    let row_bytes = columns.div_ceil(2);
    let mut levels = std::collections::BTreeSet::new();
    let mut p = at + 9 + 4 * rank;
    for first in (0..rows).step_by(32) {
        p += columns * 2; // the run's scales
        for _ in first..rows.min(first + 32) {
            for (k, &b) in file[p..p + row_bytes].iter().enumerate() {
                levels.insert(b & 15);
                if 2 * k + 1 < columns {
                    levels.insert(b >> 4);
                }
            }
            p += row_bytes;
        }
    }
    levels
}

#[test]
fn a_damaged_encoder_file_is_an_error_not_a_panic() {
    let Some(files) = minilm() else {
        return;
    };
    let file = bert::prepare(&files.onnx, graph::WeightBits::Four).unwrap();
    let mut flipped = file.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    for (what, bytes) in [
        ("truncated", &file[..file.len() / 3]),
        ("header only", &file[..9]),
        ("one bit flipped", &flipped[..]),
    ] {
        match Embedder::from_bytes(bytes, &files.tokenizer, files.config.clone()) {
            Err(EmbedError::BadModel(message)) => {
                assert!(message.contains("damaged"), "{what}: {message}")
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    // A model config whose width is not the encoder's.
    let mut config = files.config.clone();
    config.dims = 768;
    let e = Embedder::from_bytes(&file, &files.tokenizer, config).unwrap_err();
    assert!(e.to_string().contains("768"), "{e}");
}
