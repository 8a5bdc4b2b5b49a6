//! Where loading the shipped model goes (native): the tokenizer, the encoder file, both.
//!
//!   cargo run --release -p midashi-embed --example load_phases -- <folder with model.bin, tokenizer.json, midashi-model.json>

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::path::PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: load_phases <folder>")?,
    );
    let model = std::fs::read(dir.join("model.bin"))?;
    let tokenizer = std::fs::read(dir.join("tokenizer.json"))?;
    let config = std::fs::read_to_string(dir.join("midashi-model.json"))?;
    for _ in 0..3 {
        let t = Instant::now();
        let _ = tokenizers::Tokenizer::from_bytes(&tokenizer).map_err(|e| e.to_string())?;
        let tok = t.elapsed();
        let t = Instant::now();
        let _ = midashi_embed::bert::BertEncoder::read(&model)?;
        let enc = t.elapsed();
        let t = Instant::now();
        let _ = midashi_embed::Embedder::from_bytes(
            &model,
            &tokenizer,
            midashi_embed::ModelConfig::from_json(&config)?,
        )?;
        let all = t.elapsed();
        println!(
            "tokenizer {:?}, encoder file {:?}, embedder {:?}",
            tok, enc, all
        );
    }
    Ok(())
}
