//! The copy of the embedding model an index ships for the browser's queries: trimmed to the
//! vocabulary a query on this site can use (`midashi_embed::trim` says what is kept and why;
//! the model ships whole when that would not save a fifth of its word table), and either way
//! with its encoder as the file the purpose-written encoder reads (`midashi_embed::bert`: no
//! tract in the browser, 4-bit weights where they agree with the exact model).

use crate::embedding::{model_info, noise_floor, EmbedReport};
use crate::error::{CliError, Result};
use midashi_core::build::ModelFiles;
use midashi_core::format::entry::ModelInfo;
use midashi_core::vectors::VectorsData;
use midashi_embed::{Embedder, ModelConfig, WeightBits};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The copy of the model an index ships for `passages` (trimmed, prepared, 4-bit where
/// that holds) and its [`ModelInfo`]. Vectors and their cache come from the whole model (the
/// site's text embeds the same with either); queries use the shipped copy, in every surface
/// and in `eval` (`report.query_embedder`), and the noise floor of `vectors` is measured with
/// it.
///
/// The prepared copy is kept in `cache_dir`, one file per model and docs folder: preparing
/// it (the 4-bit rounding against the calibration text) was most of a rebuild's time — 15 of
/// the 15.4 s of this repository's docs with every vector cached.
pub fn ship_model(
    passages: &[Vec<String>],
    embedder: &Embedder,
    files: ModelFiles,
    vectors: &mut VectorsData,
    report: &mut EmbedReport,
    cache_dir: &Path,
    site: &Path,
) -> Result<(ModelFiles, ModelInfo)> {
    let whole = files.onnx.len();
    let (files, new_ids) = match trim_for_site(passages, embedder, &files)? {
        Some(t) => {
            report.trimmed = Some(t.kept);
            (t.files, Some(t.new_ids))
        }
        None => (files, None),
    };
    let calibration = calibration(passages, embedder, new_ids.as_deref());
    let cache = PreparedCache::new(cache_dir, embedder, site);
    let (shipped, from_cache) =
        prepared_for_browser(files, WeightBits::default(), &calibration, Some(&cache))?;
    report.prepared_from_cache = from_cache;
    let four = midashi_embed::bert::weight_bits(&shipped.onnx) == WeightBits::Four;
    report.shipped = Some((whole, shipped.onnx.len(), four));
    let query_embedder = shipped_embedder(&shipped)?;
    vectors.noise_floor = noise_floor(&query_embedder, vectors)?;
    report.noise_floor = vectors.noise_floor;
    let info = model_info(&query_embedder);
    report.query_embedder = Some(query_embedder);
    Ok((shipped, info))
}

/// A trimmed copy, ready to ship.
pub struct Trimmed {
    /// Its files (the configuration names the copy's own sha256).
    pub files: ModelFiles,
    /// Pieces kept, of how many.
    pub kept: (usize, usize),
    /// Each whole-model id's id in the copy.
    pub new_ids: Vec<u32>,
}

/// Tokens of the site's text the shipped copy's 4-bit weights are rounded against
/// (`midashi_embed::bert::prepare_calibrated`: each layer's weights chosen so that its
/// outputs on such text move least).
const CALIBRATION_TOKENS: usize = 2048;
/// Passages the calibration text is spread over, at most.
const CALIBRATION_PASSAGES: usize = 64;

/// The calibration text, from passages spread evenly over the site: for each, its first
/// few words as a query is encoded (the weights are there to encode queries: short
/// sequences, the query prefix), and the start of its first window as a document is, up to
/// [`CALIBRATION_TOKENS`] in all, as the shipped copy tokenises them (`new_ids` maps a
/// trimmed copy's ids). Deterministic for the same site.
fn calibration(
    passages: &[Vec<String>],
    embedder: &Embedder,
    new_ids: Option<&[u32]>,
) -> Vec<Vec<u32>> {
    let texts: Vec<&String> = passages.iter().flatten().collect();
    let step = (texts.len() / CALIBRATION_PASSAGES).max(1);
    let prefix = &embedder.config().query_prefix;
    let mut out = Vec::new();
    let mut total = 0;
    for text in texts.iter().step_by(step) {
        let words: Vec<&str> = text.split_whitespace().take(QUERY_WORDS).collect();
        let query = embedder.token_ids(&format!("{prefix}{}", words.join(" ")));
        let window = embedder
            .window_token_ids(text)
            .ok()
            .and_then(|w| w.into_iter().next());
        for mut ids in [query.ok(), window].into_iter().flatten() {
            if let Some(map) = new_ids {
                let Some(mapped) = ids.iter().map(|&i| map.get(i as usize).copied()).collect()
                else {
                    continue;
                };
                ids = mapped;
            }
            ids.truncate(WINDOW_TOKENS.min(CALIBRATION_TOKENS - total));
            total += ids.len();
            out.push(ids);
            if total >= CALIBRATION_TOKENS {
                return out;
            }
        }
    }
    out
}

/// Words of a passage taken as a query for calibration.
const QUERY_WORDS: usize = 8;
/// Tokens of a passage's window taken for calibration.
const WINDOW_TOKENS: usize = 128;

/// The least cosine similarity between a query's vector from a trimmed encoder file and from
/// the whole one, for the trimmed copy to ship. MiniLM's package file cut to the Rust book:
/// 0.99+ (a 4-bit copy agrees with the exact model at 0.99+ on text).
const TRIMMED_AGREEMENT: f32 = 0.98;
/// Passages whose first words are embedded as queries for [`query_agreement`].
const AGREEMENT_QUERIES: usize = 64;

/// The least cosine similarity between `whole`'s and `cut`'s query vectors, over the first
/// [`QUERY_WORDS`] words of up to [`AGREEMENT_QUERIES`] passages spread over `texts`.
fn query_agreement(whole: &Embedder, cut: &Embedder, texts: &[&String]) -> f32 {
    let step = texts.len().div_ceil(AGREEMENT_QUERIES).max(1);
    let queries: Vec<String> = texts
        .iter()
        .step_by(step)
        .map(|t| {
            t.split_whitespace()
                .take(QUERY_WORDS)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|q| !q.is_empty())
        .collect();
    queries
        .par_iter()
        .map(|q| match (whole.embed(q), cut.embed(q)) {
            (Ok(a), Ok(b)) => midashi_embed::cosine(&a, &b),
            _ => 0.0,
        })
        .reduce(|| 1.0, f32::min)
}

/// The trimmed copy of `files` for a site whose sections are embedded as `passages`
/// (`crate::embedding::site_passages`), or `None` when the model is not worth trimming (a
/// small vocabulary, or one this site uses most of, ships whole).
pub fn trim_for_site(
    passages: &[Vec<String>],
    embedder: &Embedder,
    files: &ModelFiles,
) -> Result<Option<Trimmed>> {
    let model = |e: midashi_embed::EmbedError| CliError::Model(e.to_string());
    // Every id the site's sections tokenise to (with the document prefix and specials), and
    // the query prefix's.
    let texts: Vec<&String> = passages.iter().flatten().collect();
    let mut used: BTreeSet<u32> = texts
        .par_iter()
        .map(|t| {
            embedder
                .window_token_ids(t)
                .unwrap_or_default()
                .into_iter()
                .flatten()
                .collect::<BTreeSet<u32>>()
        })
        .reduce(BTreeSet::new, |mut a, b| {
            a.extend(b);
            a
        });
    used.extend(
        embedder
            .token_ids(&embedder.config().query_prefix)
            .map_err(model)?,
    );
    let Some(t) = midashi_embed::trim::trim_vocabulary(&files.onnx, &files.tokenizer, &used)
        .map_err(model)?
    else {
        return Ok(None);
    };
    let sha = Sha256::digest(&t.onnx)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    let mut config: ModelConfig = ModelConfig::from_json(&files.config_json).map_err(model)?;
    config.sha256 = Some(sha);
    let trimmed = Embedder::from_bytes(&t.onnx, &t.tokenizer, config.clone()).map_err(model)?;
    // The site's text must segment exactly as with the whole model, into the same pieces
    // under their new ids (`midashi_embed::trim` says why it does; the rows are the same), so
    // its vectors are the whole model's. Checked on every section, else the model ships whole.
    let same_pieces = texts.par_iter().all(|text| {
        match (
            embedder.window_token_ids(text),
            trimmed.window_token_ids(text),
        ) {
            (Ok(whole), Ok(cut)) => {
                whole.len() == cut.len()
                    && whole.iter().zip(&cut).all(|(w, c)| {
                        w.len() == c.len()
                            && w.iter()
                                .zip(c)
                                .all(|(&a, &b)| t.new_ids.get(a as usize) == Some(&b))
                    })
            }
            _ => false,
        }
    });
    if !same_pieces {
        return Ok(None);
    }
    // An encoder file's 4-bit word rows are rounded again in runs of their own
    // (`midashi_embed::bert::trim_words`): the cut copy ships only if queries embed as with
    // the whole file.
    if midashi_embed::bert::is_encoder_file(&files.onnx)
        && query_agreement(embedder, &trimmed, &texts) < TRIMMED_AGREEMENT
    {
        return Ok(None);
    }
    let config_json = serde_json::to_string_pretty(&config).unwrap_or_default();
    Ok(Some(Trimmed {
        files: ModelFiles {
            onnx: t.onnx,
            tokenizer: t.tokenizer,
            config_json,
        },
        kept: t.kept,
        new_ids: t.new_ids,
    }))
}

/// `files` as every surface loads them to encode queries: the ONNX replaced by the encoder
/// file (`midashi_embed::bert::prepare`: checked to compute what the ONNX does; its weights in
/// 4 bits where that agrees with the exact model, `midashi_embed::WeightBits`), and the
/// configuration naming that file's sha256 (`graph_sha256`) beside the model's own; and
/// whether the encoder file came from `cache`.
pub fn prepared_for_browser(
    files: ModelFiles,
    bits: WeightBits,
    calibration: &[Vec<u32>],
    cache: Option<&PreparedCache>,
) -> Result<(ModelFiles, bool)> {
    let model = |e: midashi_embed::EmbedError| CliError::Model(e.to_string());
    // A folder `prepare-model` wrote (the npm model packages) holds the encoder file
    // already: it ships as it is, its weights rounded once for any site.
    let prepared = midashi_embed::bert::is_encoder_file(&files.onnx);
    // The key hashes the whole ONNX: made only when there is a cache to look in.
    let keyed = cache
        .filter(|_| !prepared)
        .map(|c| (c, prepared_key(&files.onnx, bits, calibration)));
    let cached = keyed.as_ref().and_then(|(c, key)| c.get(key));
    let from_cache = cached.is_some();
    let graph = match cached {
        Some(graph) => graph,
        None if prepared => files.onnx.clone(),
        None => {
            let graph = midashi_embed::bert::prepare_calibrated(&files.onnx, bits, calibration)
                .map_err(model)?;
            if let Some((c, key)) = &keyed {
                c.put(key, &graph);
            }
            graph
        }
    };
    let mut config = ModelConfig::from_json(&files.config_json).map_err(model)?;
    config.graph_sha256 = Some(
        Sha256::digest(&graph)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    );
    let files = ModelFiles {
        onnx: graph,
        tokenizer: files.tokenizer,
        config_json: serde_json::to_string_pretty(&config).unwrap_or_default(),
    };
    Ok((files, from_cache))
}

/// The shipped copy loaded, as every surface loads it to encode queries.
pub fn shipped_embedder(files: &ModelFiles) -> Result<Embedder> {
    let model = |e: midashi_embed::EmbedError| CliError::Model(e.to_string());
    let config = ModelConfig::from_json(&files.config_json).map_err(model)?;
    Embedder::from_bytes(&files.onnx, &files.tokenizer, config).map_err(model)
}

/// What a prepared encoder file is made from, exactly: the ONNX, the bits, the calibration
/// text, and the code that prepares it (this binary: its version, size and modification
/// time, so a rebuilt `build-index` prepares afresh instead of trusting an older rounding).
fn prepared_key(onnx: &[u8], bits: WeightBits, calibration: &[Vec<u32>]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"midashi prepared encoder 1\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    if let Ok(m) = std::env::current_exe().and_then(std::fs::metadata) {
        h.update(m.len().to_le_bytes());
        let at = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        h.update(at.map_or(0, |d| d.as_nanos()).to_le_bytes());
    }
    h.update([bits as u8]);
    h.update((onnx.len() as u64).to_le_bytes());
    h.update(onnx);
    for ids in calibration {
        h.update((ids.len() as u64).to_le_bytes());
        for id in ids {
            h.update(id.to_le_bytes());
        }
    }
    h.finalize().into()
}

/// The last prepared encoder file of one model and docs folder, in the cache folder. One
/// file per pair (overwritten by the next build), so the cache holds at most one copy per
/// site, as it does for vectors. A file that is damaged, truncated or made from other inputs
/// is only a miss: its header names its key and its payload's sha256, both checked.
pub struct PreparedCache {
    path: PathBuf,
}

impl PreparedCache {
    /// The cache file for `embedder`'s model and the docs folder `site` in `cache_dir`.
    pub fn new(cache_dir: &Path, embedder: &Embedder, site: &Path) -> Self {
        let info = model_info(embedder);
        let name = format!(
            "prepared-{}-{:016x}.bin",
            crate::embedding::model_key(&info),
            crate::embedding::site_key(site)
        );
        PreparedCache::at(cache_dir.join(name))
    }

    fn at(path: PathBuf) -> Self {
        PreparedCache { path }
    }

    fn get(&self, key: &[u8; 32]) -> Option<Vec<u8>> {
        let bytes = std::fs::read(&self.path).ok()?;
        let (head, payload) = bytes.split_at_checked(64)?;
        let digest: [u8; 32] = Sha256::digest(payload).into();
        (head[..32] == key[..] && head[32..] == digest[..]).then(|| payload.to_vec())
    }

    /// Best effort: a cache that cannot be written costs the next build time, nothing else.
    fn put(&self, key: &[u8; 32], graph: &[u8]) {
        let mut bytes = Vec::with_capacity(64 + graph.len());
        bytes.extend_from_slice(key);
        bytes.extend_from_slice(&Sha256::digest(graph));
        bytes.extend_from_slice(graph);
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = crate::output::write_atomic(&self.path, &bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prepared_copy_is_found_again_only_under_its_own_key_and_intact() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PreparedCache::at(dir.path().join("sub/prepared.bin"));
        let onnx = b"not really a model".to_vec();
        let key = prepared_key(&onnx, WeightBits::Four, &[vec![1, 2, 3]]);
        assert_eq!(cache.get(&key), None, "an empty cache");
        cache.put(&key, b"the prepared bytes");
        assert_eq!(cache.get(&key).as_deref(), Some(&b"the prepared bytes"[..]));
        // Other inputs make another key: other calibration text, other bits.
        for other in [
            prepared_key(&onnx, WeightBits::Four, &[vec![1, 2], vec![3]]),
            prepared_key(&onnx, WeightBits::Eight, &[vec![1, 2, 3]]),
            prepared_key(b"another model", WeightBits::Four, &[vec![1, 2, 3]]),
        ] {
            assert_ne!(other, key);
            assert_eq!(cache.get(&other), None);
        }
        // A damaged or truncated file is a miss, not wrong weights.
        let mut bytes = std::fs::read(&cache.path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&cache.path, &bytes).unwrap();
        assert_eq!(cache.get(&key), None, "a flipped bit");
        std::fs::write(&cache.path, &bytes[..40]).unwrap();
        assert_eq!(cache.get(&key), None, "a truncated file");
    }
}
