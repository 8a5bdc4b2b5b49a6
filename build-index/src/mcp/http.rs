//! `build-index mcp <dir> --http 127.0.0.1:PORT`: the same server over MCP's Streamable HTTP
//! transport (rmcp's), at `/mcp`, for agents that reach a docs index over the network.
//!
//! In front of rmcp, each request passes its checks cheapest first, so a refused request
//! costs nothing: a per-client rate limit (429 with `Retry-After`), the bearer token when one
//! is set (401), the request size (413, by `Content-Length` and again while reading, for
//! chunked bodies) and a body that is JSON (400 with JSON-RPC's `-32700`). rmcp itself
//! refuses `Host` headers other than loopback names (DNS rebinding) unless the server is
//! bound to another address.
//!
//! Slow or idle clients cannot hold the server: headers must arrive within
//! [`HEADER_TIMEOUT`] (idle keep-alive connections close then too), a body within
//! [`BODY_TIMEOUT`] (else 408), and one client address holds at most
//! [`MAX_CONNECTIONS_PER_CLIENT`] connections at once (more are closed at once), so that it
//! cannot use up the process's file descriptors before any check sees a request.

use super::library::Library;
use super::server::DocsServer;
use crate::error::{CliError, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a client may take to send a request's headers (or, between requests, to start
/// the next one).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client may take to send a request's body once its headers are in.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections one client address may have open at once: an agent needs a few (a request and
/// an event stream); a flood of idle ones would starve everyone else.
pub const MAX_CONNECTIONS_PER_CLIENT: usize = 32;

/// Where and how to serve.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The address to listen on (port 0: any free port, printed at start).
    pub addr: SocketAddr,
    /// The bearer token clients must send (`Authorization: Bearer …`), if any.
    pub token: Option<String>,
    /// The largest request body accepted, in bytes.
    pub max_request_bytes: usize,
    /// Requests per minute one client address may make (bursts up to this many).
    pub requests_per_minute: u32,
}

/// Clients remembered by the rate limiter before the oldest are forgotten: bounds its memory
/// under a flood of addresses.
const MAX_CLIENTS: usize = 10_000;

/// A token bucket per client address.
struct RateLimiter {
    per_minute: f64,
    clients: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl RateLimiter {
    /// Takes one request's token for `ip`; `Err(seconds)` until the next one when none is left.
    fn take(&self, ip: IpAddr) -> std::result::Result<(), u64> {
        let now = Instant::now();
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if clients.len() >= MAX_CLIENTS && !clients.contains_key(&ip) {
            // Full buckets are the same as forgotten ones: drop those first, then everyone.
            let per_minute = self.per_minute;
            clients.retain(|_, (tokens, at)| {
                *tokens + at.elapsed().as_secs_f64() * per_minute / 60.0 < per_minute
            });
            if clients.len() >= MAX_CLIENTS {
                clients.clear();
            }
        }
        let (tokens, at) = clients.entry(ip).or_insert((self.per_minute, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * self.per_minute / 60.0)
            .min(self.per_minute);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(((1.0 - *tokens) * 60.0 / self.per_minute).ceil().max(1.0) as u64)
        }
    }
}

/// Open connections per client address.
#[derive(Default, Clone)]
struct Connections(Arc<Mutex<HashMap<IpAddr, usize>>>);

/// One open connection, counted until it is dropped.
struct Slot {
    connections: Connections,
    ip: IpAddr,
}

impl Connections {
    /// A slot for a new connection from `ip`, or `None` when it has its share open.
    fn enter(&self, ip: IpAddr) -> Option<Slot> {
        let mut open = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(ip).or_insert(0);
        if *n >= MAX_CONNECTIONS_PER_CLIENT {
            return None;
        }
        *n += 1;
        Some(Slot {
            connections: self.clone(),
            ip,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.connections.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// Whether two secrets are equal, in time that does not depend on where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

type Body = http_body_util::combinators::UnsyncBoxBody<Bytes, std::convert::Infallible>;

/// A plain-text refusal. The connection closes after it: the request's body may be unread,
/// and hyper would otherwise wait for the rest of it before the next request, for ever if
/// the client never sends it.
fn refuse(status: StatusCode, message: &str) -> Response<Body> {
    let mut res = Response::new(Full::new(Bytes::from(format!("{message}\n"))).boxed_unsync());
    *res.status_mut() = status;
    res.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    res.headers_mut().insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
    res
}

/// What every request goes through before rmcp sees it.
struct Gate {
    options: HttpOptions,
    limiter: RateLimiter,
    mcp: StreamableHttpService<DocsServer, LocalSessionManager>,
}

impl Gate {
    async fn handle(&self, req: Request<Incoming>, client: IpAddr) -> Response<Body> {
        if let Err(wait) = self.limiter.take(client) {
            let mut res = refuse(
                StatusCode::TOO_MANY_REQUESTS,
                &format!(
                    "too many requests: at most {} a minute per client; retry in {wait} s",
                    self.options.requests_per_minute
                ),
            );
            res.headers_mut()
                .insert(hyper::header::RETRY_AFTER, wait.into());
            return res;
        }
        if let Some(token) = &self.options.token {
            let given = req
                .headers()
                .get(hyper::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .unwrap_or("");
            if !same_secret(given.trim().as_bytes(), token.as_bytes()) {
                let mut res = refuse(
                    StatusCode::UNAUTHORIZED,
                    "this server needs `Authorization: Bearer <token>` (the token it was started with)",
                );
                res.headers_mut().insert(
                    hyper::header::WWW_AUTHENTICATE,
                    hyper::header::HeaderValue::from_static("Bearer realm=\"midashi\""),
                );
                return res;
            }
        }
        if req.uri().path() != "/mcp" {
            return refuse(StatusCode::NOT_FOUND, "not found: the MCP endpoint is /mcp");
        }
        let max = self.options.max_request_bytes;
        let declared = req
            .headers()
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > max as u64) {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("request body over {max} bytes (--max-request-bytes)"),
            );
        }
        // The body is read here, bounded in size and time, so that a chunked body over the
        // limit is 413 and one that is not JSON is a JSON-RPC parse error.
        let (parts, body) = req.into_parts();
        let body = match tokio::time::timeout(BODY_TIMEOUT, Limited::new(body, max).collect()).await
        {
            Err(_) => {
                return refuse(
                    StatusCode::REQUEST_TIMEOUT,
                    &format!(
                        "the request body did not arrive within {} s",
                        BODY_TIMEOUT.as_secs()
                    ),
                )
            }
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
                return refuse(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!("request body over {max} bytes (--max-request-bytes)"),
                )
            }
            Ok(Err(e)) => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    &format!("the request body could not be read: {e}"),
                )
            }
            Ok(Ok(collected)) => collected.to_bytes(),
        };
        let not_json = (parts.method == hyper::Method::POST)
            .then(|| super::stdio::parse_error(&body))
            .flatten();
        if let Some(answer) = not_json {
            let mut res = Response::new(Full::new(Bytes::from(answer)).boxed_unsync());
            *res.status_mut() = StatusCode::BAD_REQUEST;
            res.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                hyper::header::HeaderValue::from_static("application/json"),
            );
            return res;
        }
        let req = Request::from_parts(parts, Full::new(body));
        self.mcp.handle(req).await.map(|b| b.boxed_unsync())
    }
}

/// Serves `library` over HTTP until the process is stopped.
pub fn serve(library: Arc<Library>, options: HttpOptions) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Mcp(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.addr)
            .await
            .map_err(|e| CliError::Mcp(format!("cannot listen on {}: {e}", options.addr)))?;
        let local = listener
            .local_addr()
            .map_err(|e| CliError::Mcp(e.to_string()))?;
        let mut config = StreamableHttpServerConfig::default()
            .with_max_request_body_bytes(options.max_request_bytes);
        if !local.ip().is_loopback() {
            // Bound to a network address on purpose: clients name it in `Host`, which the
            // loopback-only default would refuse.
            config = config.disable_allowed_hosts();
            if options.token.is_none() {
                eprintln!(
                    "warning: serving on {local} without a token: anyone who can reach it can \
                     query this index (pass --token or set MIDASHI_MCP_TOKEN)"
                );
            }
        }
        let mcp = StreamableHttpService::new(
            move || Ok(DocsServer::new(library.clone())),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let gate = Arc::new(Gate {
            limiter: RateLimiter {
                per_minute: f64::from(options.requests_per_minute.max(1)),
                clients: Mutex::new(HashMap::new()),
            },
            options,
            mcp,
        });
        // The line a script or test waits for: the address with the real port.
        eprintln!("midashi MCP server listening on http://{local}/mcp");
        let connections = Connections::default();
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(c) => c,
                // Out of descriptors and the like: wait a moment rather than spin.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            };
            let Some(slot) = connections.enter(peer.ip()) else {
                drop(stream);
                continue;
            };
            let gate = gate.clone();
            tokio::spawn(async move {
                let _slot = slot;
                let service = hyper::service::service_fn(move |req| {
                    let gate = gate.clone();
                    async move {
                        Ok::<_, std::convert::Infallible>(gate.handle(req, peer.ip()).await)
                    }
                });
                // A client that hangs up mid-request ends only its own connection.
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_lets_a_burst_through_then_refuses() {
        let limiter = RateLimiter {
            per_minute: 3.0,
            clients: Mutex::new(HashMap::new()),
        };
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let b: IpAddr = "127.0.0.2".parse().unwrap();
        assert!(limiter.take(a).is_ok());
        assert!(limiter.take(a).is_ok());
        assert!(limiter.take(a).is_ok());
        assert_eq!(limiter.take(a), Err(20));
        // Another client has its own bucket.
        assert!(limiter.take(b).is_ok());
    }

    #[test]
    fn a_client_holds_a_bounded_number_of_connections() {
        let connections = Connections::default();
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let b: IpAddr = "127.0.0.2".parse().unwrap();
        let held: Vec<Slot> = (0..MAX_CONNECTIONS_PER_CLIENT)
            .map(|_| connections.enter(a).unwrap())
            .collect();
        assert!(connections.enter(a).is_none());
        assert!(connections.enter(b).is_some());
        drop(held);
        assert!(connections.enter(a).is_some());
        assert!(connections.0.lock().unwrap().len() <= 1);
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"", b"a"));
    }
}
