//! `build-index vectors <dir> --out <file>`: an index's vectors as JSON lines, so another
//! engine can be given exactly the vectors Midashi searches (the peer benchmark gives them to
//! Orama's vector and hybrid search).
//!
//! Without `--queries`: one line per section with vectors, `{"id", "vector"}`, the id being the
//! document path (`path#anchor` for a heading) and the vector its first window, dequantised.
//! With `--queries <queries.jsonl>` (lines with `_id` and `text`, BEIR's format): one line per
//! query, embedded with the model the index ships (or `--model`).

use crate::error::{CliError, Result};
use crate::folder::{open_index, resolve_embedder};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

/// Runs the command.
pub fn run(dir: &Path, out: &Path, queries: Option<&Path>, model: Option<&Path>) -> Result<()> {
    let index = open_index(dir, true)?;
    let file = File::create(out).map_err(CliError::io(out))?;
    let mut w = BufWriter::new(file);
    let mut line = |id: &str, v: &[f32]| -> Result<()> {
        let json = serde_json::json!({ "id": id, "vector": v });
        writeln!(w, "{json}").map_err(CliError::io(out))
    };
    match queries {
        None => {
            let vectors = index.vectors().ok_or_else(|| {
                CliError::Model(format!(
                    "{} has no vectors: build it with a model (see scripts/fetch-model.sh)",
                    dir.display()
                ))
            })?;
            let mut last = None;
            for r in 0..vectors.count() {
                let s = vectors.row_section[r];
                // A section's first window stands for it (the others follow it directly).
                if last == Some(s) {
                    continue;
                }
                last = Some(s);
                let Some((path, anchor)) = index.section_place(s) else {
                    continue;
                };
                let id = match anchor {
                    Some(a) => format!("{path}#{a}"),
                    None => path.to_string(),
                };
                line(&id, &vectors.dequantized(r))?;
            }
        }
        Some(queries) => {
            let embedder = resolve_embedder(dir, &index, model)?.ok_or_else(|| {
                CliError::Model(
                    format!("no model: the index ships none and no default model was found (pass --model; looked in {})", crate::embedding::default_model_places()),
                )
            })?;
            let f = File::open(queries).map_err(CliError::io(queries))?;
            for (n, l) in BufReader::new(f).lines().enumerate() {
                let l = l.map_err(CliError::io(queries))?;
                if l.trim().is_empty() {
                    continue;
                }
                let v: serde_json::Value = serde_json::from_str(&l).map_err(|e| {
                    CliError::Usage(format!("{}:{}: not JSON: {e}", queries.display(), n + 1))
                })?;
                let (Some(id), Some(text)) = (v["_id"].as_str(), v["text"].as_str()) else {
                    return Err(CliError::Usage(format!(
                        "{}:{}: a query line needs \"_id\" and \"text\"",
                        queries.display(),
                        n + 1
                    )));
                };
                let vector = embedder
                    .embed(text)
                    .map_err(|e| CliError::Model(e.to_string()))?;
                line(id, &vector)?;
            }
        }
    }
    w.flush().map_err(CliError::io(out))
}
