//! Writes the prepared form of an ONNX encoder (what build-index ships; see
//! `midashi_embed::graph`), for benchmarks that load it the way a browser does.
//!
//!   cargo run --release -p midashi-embed --example prepare_graph -- <model.onnx> <out.tar>

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(onnx), Some(out)) = (args.next(), args.next()) else {
        return Err("usage: prepare_graph <model.onnx> <out.tar>".into());
    };
    let prepared = midashi_embed::graph::prepare(
        &std::fs::read(&onnx)?,
        midashi_embed::graph::WeightBits::default(),
    )?;
    std::fs::write(&out, &prepared)?;
    println!("{out}: {} bytes", prepared.len());
    Ok(())
}
