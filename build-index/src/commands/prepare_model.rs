//! `build-index prepare-model <model folder> --out <folder>`: a model folder as a browser
//! loads it, for a site that serves one model apart from its indexes (built with
//! `--no-ship-model`; the page passes `modelUrl`). The browser's semantic module reads only
//! the encoder file (`midashi_embed::bert`), not ONNX: running ONNX put tract in every
//! visitor's download.

use crate::error::{CliError, Result};
use crate::shipped_model::{prepared_for_browser, shipped_embedder};
use midashi_core::build::ModelFiles;
use midashi_embed::{ModelConfig, ModelDir, WeightBits, MODEL_CONFIG_FILE};
use std::path::Path;

/// The encoder file's name in a model folder (`midashi-model.json` names it).
pub const PREPARED_GRAPH_FILE: &str = "model.bin";

/// Writes `out/model.bin` (the whole model's encoder file, as an index ships it: with `bits`
/// Four, 4-bit weights where they agree with the exact model), `out/tokenizer.json` and
/// `out/midashi-model.json` (the ONNX's sha256 stays the model's identity; `graph_sha256`
/// names the encoder file), after loading them back as every surface will.
pub fn run(model: &Path, out: &Path, bits: WeightBits) -> Result<()> {
    let bad = |e: midashi_embed::EmbedError| CliError::Model(e.to_string());
    let dir = ModelDir::read(model).map_err(bad)?;
    let config_json = dir.config_json();
    let onnx_bytes = dir.onnx.len();
    let (prepared, _) = prepared_for_browser(
        ModelFiles {
            onnx: dir.onnx,
            tokenizer: dir.tokenizer,
            config_json,
        },
        bits,
        // No site here: each weight rounded to its nearest levels (the down-projections in 6
        // bits), as an index built without text to calibrate on ships it.
        &[],
        None,
    )?;
    shipped_embedder(&prepared)?;
    let mut config = ModelConfig::from_json(&prepared.config_json).map_err(bad)?;
    config.onnx = Some(PREPARED_GRAPH_FILE.into());
    let config_json = serde_json::to_string_pretty(&config)
        .map_err(|e| CliError::Model(format!("cannot write the model configuration: {e}")))?;
    let write = |name: &str, bytes: &[u8]| {
        let path = out.join(name);
        std::fs::write(&path, bytes).map_err(CliError::io(path))
    };
    std::fs::create_dir_all(out).map_err(CliError::io(out))?;
    write(PREPARED_GRAPH_FILE, &prepared.onnx)?;
    write("tokenizer.json", &prepared.tokenizer)?;
    write(MODEL_CONFIG_FILE, config_json.as_bytes())?;
    eprintln!(
        "wrote {} ({:.1} MB, from {:.1} MB of ONNX), tokenizer.json and {MODEL_CONFIG_FILE} to {}",
        PREPARED_GRAPH_FILE,
        prepared.onnx.len() as f64 / 1e6,
        onnx_bytes as f64 / 1e6,
        out.display()
    );
    Ok(())
}
