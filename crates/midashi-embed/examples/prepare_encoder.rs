//! Writes the encoder file of an ONNX encoder (what build-index ships; see
//! `midashi_embed::bert`), for benchmarks that load it the way a browser does.
//!
//!   cargo run --release -p midashi-embed --example prepare_encoder -- <model.onnx> <out.bin>

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(onnx), Some(out)) = (args.next(), args.next()) else {
        return Err("usage: prepare_encoder <model.onnx> <out.bin>".into());
    };
    let file =
        midashi_embed::bert::prepare(&std::fs::read(&onnx)?, midashi_embed::WeightBits::default())?;
    std::fs::write(&out, &file)?;
    println!("{out}: {} bytes", file.len());
    Ok(())
}
