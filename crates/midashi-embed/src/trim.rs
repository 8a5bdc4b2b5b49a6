//! Cutting a model's vocabulary down to what one site can use, before it ships.
//!
//! Why: multilingual-e5-small's word embeddings are 250,037 rows × 384 — 96 MB of its 120 MB
//! in int8 — for a hundred languages, and one docs site uses a few thousand of its pieces
//! (4,199 on the whole Japanese Vue docs). The browser downloads the model on a visitor's
//! first question, so the index ships a copy that keeps only the rows a query on this site
//! can reach: every piece of the site's own text, every single-character piece (any word,
//! however rare, still segments into something the model knows), and the most frequent
//! pieces of the language model (a visitor's words that the site never uses). Token ids are
//! renumbered in the tokenizer and the embedding table alike, so the ids the trimmed
//! tokenizer gives select exactly the rows they selected before: the site's text embeds to
//! the same vectors with either copy.
//!
//! SentencePiece Unigram vocabularies (e5) and WordPiece ones (MiniLM, BERT: 30,522 rows, half
//! of the default model's 23.5 MB) are trimmed. WordPiece segments a word greedily, longest
//! known piece first: every piece the site's text was cut into is kept, and a cut vocabulary
//! only lacks pieces, so at each step of the site's words the longest known piece is the one
//! it was — the site's text segments exactly as before. A visitor's word whose pieces were
//! cut falls back to shorter ones (every single character, with and without `##`, is kept),
//! never to `[UNK]` where it was known. WordPiece has no piece scores; its vocabulary file
//! lists pieces by frequency after the specials and single characters, which stands in.
//! Graphs whose word-embedding rows are initializers gathered by `input_ids` with raw bytes
//! (what scripts/model writes) are trimmed, and encoder files (`bert::trim_words`: the npm
//! model packages'). Anything else ships whole.

use crate::error::EmbedError;
use prost::Message;
use serde_json::Value;
use std::collections::BTreeSet;
use tract_onnx::pb::ModelProto;

/// How many of the language model's most frequent pieces a trimmed copy keeps beside the
/// site's own: enough for common words of the site's languages that its text lacks. Was
/// 8,000, counted from id 0 (so MiniLM's 994 `[unused…]` slots among them); at 4,000 so counted
/// the Rust book kept 8,508 pieces instead of 11,198 (its model 6.78 → 6.50 MB brotli) and its
/// questions and SciFact scored as before (semantic nDCG@10 0.7320 → 0.7331, 0.6942 →
/// 0.6936); at 3,000 SciFact fell to 0.6873 for 0.05 MB more. Placeholders no longer count
/// (the slots were rows no word reaches, and words like "reference" fell outside): 8,086
/// pieces, 6.25 MB brotli. A
/// multilingual vocabulary ([`MULTILINGUAL`] pieces or more) spreads its frequent pieces over
/// a hundred languages and keeps [`FREQUENT_MULTILINGUAL`]: multilingual-e5-small at 4,000
/// moved JSQuAD hybrid 0.9602 → 0.9601.
pub const FREQUENT_PIECES: usize = 4000;

/// Whether a vocabulary entry is a bracketed placeholder (`[unused12]`, `[CLS]`), which the
/// tokenizer never cuts a word into.
fn is_placeholder(name: &str) -> bool {
    name.len() > 2 && name.starts_with('[') && name.ends_with(']')
}

/// Vocabularies of at least this many pieces count as multilingual (BERT's English
/// WordPiece has 30,522, XLM-R's SentencePiece 250,002).
pub const MULTILINGUAL: usize = 100_000;

/// The frequent pieces a multilingual vocabulary keeps (see [`FREQUENT_PIECES`]).
pub const FREQUENT_MULTILINGUAL: usize = 8000;

/// A trimmed copy of a model's graph and tokenizer.
#[derive(Debug, Clone)]
pub struct Trimmed {
    /// The model (its ONNX graph or encoder file) with the kept embedding rows only.
    pub onnx: Vec<u8>,
    /// `tokenizer.json` with the kept pieces only, renumbered.
    pub tokenizer: Vec<u8>,
    /// Pieces kept, of how many.
    pub kept: (usize, usize),
    /// Each piece's id in the copy, by its id in the whole vocabulary (`u32::MAX`: cut).
    pub new_ids: Vec<u32>,
}

/// Trims `onnx` + `tokenizer_json` to the pieces `used` names (token ids of the site's text),
/// single characters, specials and the [`FREQUENT_PIECES`] most frequent. `Ok(None)` when the
/// model is not of a kind this can trim, or trimming would keep most of it anyway.
pub fn trim_vocabulary(
    onnx: &[u8],
    tokenizer_json: &[u8],
    used: &BTreeSet<u32>,
) -> Result<Option<Trimmed>, EmbedError> {
    let bad = |what: String| EmbedError::BadModel(format!("trimming the vocabulary: {what}"));
    let mut tok: Value =
        serde_json::from_slice(tokenizer_json).map_err(|e| bad(format!("tokenizer.json: {e}")))?;
    let Some(pieces) = Pieces::of(&tok) else {
        return Ok(None);
    };
    let total = pieces.names.len();

    // Which pieces to keep: the site's, every single character, the specials, and the
    // most frequent.
    let mut keep: BTreeSet<u32> = used
        .iter()
        .copied()
        .filter(|&i| (i as usize) < total)
        .collect();
    for (i, name) in pieces.names.iter().enumerate() {
        let bare = name.trim_start_matches('\u{2581}');
        let bare = match pieces.continuation {
            "" => bare,
            prefix => bare.strip_prefix(prefix).unwrap_or(bare),
        };
        if bare.chars().count() <= 1 {
            keep.insert(i as u32);
        }
    }
    let frequent = if total >= MULTILINGUAL {
        FREQUENT_MULTILINGUAL
    } else {
        FREQUENT_PIECES
    };
    // Placeholders (BERT's `[unused…]` slots, specials) are never a piece of a word: they do
    // not count among the frequent (they were 994 of the first 4,000 ids of MiniLM's).
    keep.extend(
        pieces
            .by_frequency
            .iter()
            .filter(|&&i| !is_placeholder(&pieces.names[i as usize]))
            .take(frequent)
            .copied(),
    );
    if let Some(unk) = tok["model"]["unk_id"].as_u64() {
        keep.insert(unk as u32);
    }
    for added in tok["added_tokens"].as_array().into_iter().flatten() {
        if let Some(id) = added["id"].as_u64() {
            keep.insert(id as u32);
        }
    }
    // Not worth a copy unless it saves a fifth of the table.
    if keep.len() * 5 > total * 4 {
        return Ok(None);
    }
    let mut new_id = vec![u32::MAX; total];
    for (n, &old) in keep.iter().enumerate() {
        new_id[old as usize] = n as u32;
    }
    let remap = |v: &mut Value| {
        if let Some(old) = v.as_u64() {
            *v = Value::from(new_id[old as usize]);
        }
    };

    // The model first: if its table cannot be found, ship it whole. A prepared encoder file
    // (`build-index prepare-model`'s, the npm model packages') has its own form.
    let model = if crate::bert::is_encoder_file(onnx) {
        let keep: Vec<u32> = keep.iter().copied().collect();
        crate::bert::trim_words(onnx, &keep)?
    } else {
        match trim_graph(onnx, &keep, total)? {
            Some(graph) => graph,
            None => return Ok(None),
        }
    };

    // Then the tokenizer: pieces in their old order, every id that names one renumbered.
    if tok["model"]["type"] == "Unigram" {
        let vocab = tok["model"]["vocab"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let kept_vocab: Vec<Value> = keep.iter().map(|&i| vocab[i as usize].clone()).collect();
        tok["model"]["vocab"] = Value::Array(kept_vocab);
    } else {
        let kept_vocab: serde_json::Map<String, Value> = keep
            .iter()
            .map(|&i| {
                (
                    pieces.names[i as usize].clone(),
                    Value::from(new_id[i as usize]),
                )
            })
            .collect();
        tok["model"]["vocab"] = Value::Object(kept_vocab);
    }
    remap(&mut tok["model"]["unk_id"]);
    for added in tok["added_tokens"].as_array_mut().into_iter().flatten() {
        remap(&mut added["id"]);
    }
    if let Some(specials) = tok["post_processor"]["special_tokens"].as_object_mut() {
        for special in specials.values_mut() {
            for id in special["ids"].as_array_mut().into_iter().flatten() {
                remap(id);
            }
        }
    }
    if let Some(pad) = tok["padding"].as_object_mut() {
        if let Some(id) = pad.get_mut("pad_id") {
            remap(id);
        }
    }
    let tokenizer = serde_json::to_vec(&tok).map_err(|e| bad(e.to_string()))?;
    Ok(Some(Trimmed {
        onnx: model,
        tokenizer,
        kept: (keep.len(), total),
        new_ids: new_id,
    }))
}

/// The ONNX graph `onnx` with only the `keep` rows of the word-embedding tables `input_ids`
/// gathers; `None` when it has none such that can be cut (then the model ships whole).
fn trim_graph(
    onnx: &[u8],
    keep: &BTreeSet<u32>,
    total: usize,
) -> Result<Option<Vec<u8>>, EmbedError> {
    let bad = |what: String| EmbedError::BadModel(format!("trimming the vocabulary: {what}"));
    let mut model =
        ModelProto::decode(onnx).map_err(|e| bad(format!("ONNX does not parse: {e}")))?;
    let Some(graph) = model.graph.as_mut() else {
        return Ok(None);
    };
    let gathered: BTreeSet<String> = graph
        .node
        .iter()
        .filter(|n| n.op_type == "Gather" && n.input.get(1).is_some_and(|i| i == "input_ids"))
        .filter_map(|n| n.input.first().cloned())
        .collect();
    let mut trimmed_tables = 0;
    for init in graph.initializer.iter_mut() {
        if !gathered.contains(&init.name) {
            continue;
        }
        let rows = init.dims.first().copied().unwrap_or(0) as usize;
        if rows < total || init.raw_data.is_empty() || init.raw_data.len() % rows != 0 {
            return Ok(None);
        }
        let row_bytes = init.raw_data.len() / rows;
        let mut data = Vec::with_capacity(keep.len() * row_bytes);
        for &old in keep {
            let at = old as usize * row_bytes;
            data.extend_from_slice(&init.raw_data[at..at + row_bytes]);
        }
        init.raw_data = data;
        init.dims[0] = keep.len() as i64;
        trimmed_tables += 1;
    }
    if trimmed_tables == 0 {
        return Ok(None);
    }
    Ok(Some(model.encode_to_vec()))
}

/// A vocabulary's pieces by id, in the two forms trimmed.
struct Pieces {
    /// Piece of each id.
    names: Vec<String>,
    /// Ids, most frequent first (specials and the like may be anywhere).
    by_frequency: Vec<u32>,
    /// The continuation prefix (`##` for WordPiece; none for Unigram, whose word-start
    /// marker `▁` is stripped apart).
    continuation: &'static str,
}

impl Pieces {
    fn of(tok: &Value) -> Option<Pieces> {
        match tok["model"]["type"].as_str()? {
            "Unigram" => {
                let vocab = tok["model"]["vocab"].as_array()?;
                let names: Vec<String> = vocab
                    .iter()
                    .map(|e| e[0].as_str().unwrap_or_default().to_string())
                    .collect();
                let mut by_score: Vec<(u32, f64)> = vocab
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (i as u32, e[1].as_f64().unwrap_or(f64::MIN)))
                    .collect();
                by_score.sort_by(|a, b| b.1.total_cmp(&a.1));
                Some(Pieces {
                    names,
                    by_frequency: by_score.into_iter().map(|(i, _)| i).collect(),
                    continuation: "",
                })
            }
            "WordPiece" if tok["model"]["continuing_subword_prefix"] == "##" => {
                let vocab = tok["model"]["vocab"].as_object()?;
                let mut names = vec![String::new(); vocab.len()];
                for (piece, id) in vocab {
                    let id = id.as_u64()? as usize;
                    *names.get_mut(id)? = piece.clone();
                }
                // By id: BERT-style vocabulary files list pieces by frequency.
                Some(Pieces {
                    by_frequency: (0..names.len() as u32).collect(),
                    names,
                    continuation: "##",
                })
            }
            _ => None,
        }
    }
}
