//! `build-index vectors <dir> --out <file>`: an index's vectors as JSON lines, so another
//! engine can be given Midashi's vectors (the peer benchmark gives them to Orama's vector and
//! hybrid search).
//!
//! Without `--queries`: one line per section with vectors, `{"id", "vector"}`, the id being the
//! document path (`path#anchor` for a heading) and the mean of its passages' vectors,
//! dequantised, at unit length.
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
            // One vector per section for an engine that holds one: the mean of its passages'
            // vectors (rows of a section follow each other), at unit length — closer to what
            // the whole section says than its first passage alone.
            let mut r = 0;
            while r < vectors.count() {
                let s = vectors.row_section[r];
                let mut mean = vectors.dequantized(r);
                let mut end = r + 1;
                while end < vectors.count() && vectors.row_section[end] == s {
                    for (m, v) in mean.iter_mut().zip(vectors.dequantized(end)) {
                        *m += v;
                    }
                    end += 1;
                }
                r = end;
                let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt();
                if norm > 0.0 {
                    mean.iter_mut().for_each(|v| *v /= norm);
                }
                let Some((path, anchor)) = index.section_place(s) else {
                    continue;
                };
                let id = match anchor {
                    Some(a) => format!("{path}#{a}"),
                    None => path.to_string(),
                };
                line(&id, &mean)?;
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
