//! The server's stdin and stdout, between the process and the protocol (rmcp).
//!
//! Every line a client sends is answered, as JSON-RPC requires: rmcp ignores a line that is not
//! JSON (a truncated request, invalid UTF-8, nesting past serde_json's depth limit), so a
//! client would wait forever. Such a line is answered here with `-32700` (parse error), and a
//! line over `--max-request-bytes` with `-32600` naming the limit, without keeping the line
//! in memory (a client could send gigabytes without a newline). These answers and rmcp's
//! share stdout one whole line at a time, so they never interleave.
//!
//! The input is also repaired: JSON that `JSON.stringify` writes for a string cut inside an
//! emoji holds a lone surrogate escape (`"\ud83d"`), which serde_json refuses; each becomes
//! `\ufffd` (what a browser shows for it), and the request is answered.

use std::borrow::Cow;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// `\uXXXX` at `i` (after its backslash), as a code unit.
fn escape_at(line: &[u8], i: usize) -> Option<u16> {
    let hex = line.get(i + 1..i + 6)?;
    if hex[0] != b'u' {
        return None;
    }
    let text = std::str::from_utf8(&hex[1..]).ok()?;
    u16::from_str_radix(text, 16).ok()
}

/// `line` with every lone surrogate escape replaced by `\ufffd`; unchanged when it has none.
pub fn repair_lone_surrogates(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !line
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && (w[2] | 0x20) == b'd')
    {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        if line[i] != b'\\' {
            out.push(line[i]);
            i += 1;
            continue;
        }
        // An escape: `\\` and the like are copied whole, so `\\ud83d` stays text.
        match escape_at(line, i) {
            Some(hi @ 0xD800..=0xDBFF) => {
                let pair = (line.get(i + 6) == Some(&b'\\'))
                    .then(|| escape_at(line, i + 6))
                    .flatten()
                    .is_some_and(|lo| (0xDC00..=0xDFFF).contains(&lo));
                if pair {
                    out.extend_from_slice(&line[i..i + 12]);
                    i += 12;
                } else {
                    let _ = hi;
                    out.extend_from_slice(b"\\ufffd");
                    i += 6;
                }
            }
            Some(0xDC00..=0xDFFF) => {
                out.extend_from_slice(b"\\ufffd");
                i += 6;
            }
            _ => {
                out.extend_from_slice(&line[i..(i + 2).min(line.len())]);
                i += 2;
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The JSON-RPC id of a request, from the start of its line (an id is a number or a string).
fn id_of(head: &[u8]) -> Option<&[u8]> {
    let at = head.windows(5).position(|w| w == b"\"id\":")? + 5;
    let rest = &head[at..];
    let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = &rest[start..];
    let len = if rest.first() == Some(&b'"') {
        // A string id: up to its closing quote (ids with escaped quotes are not worth more).
        rest[1..].iter().position(|&b| b == b'"')? + 2
    } else {
        rest.iter()
            .position(|b| !(b.is_ascii_digit() || *b == b'-'))
            .unwrap_or(rest.len())
    };
    (len > 0 && len <= 64).then_some(&rest[..len])
}

/// The JSON-RPC parse error (`-32700`) for `text` as one line, or `None` when `text` is one
/// JSON value in UTF-8 (checked apart: serde_json skips strings' bytes unchecked when it
/// ignores them).
pub fn parse_error(text: &[u8]) -> Option<Vec<u8>> {
    let why = match std::str::from_utf8(text) {
        Err(e) => format!("invalid UTF-8 after byte {}", e.valid_up_to()),
        Ok(text) => serde_json::from_str::<serde::de::IgnoredAny>(text)
            .err()?
            .to_string(),
    };
    Some(error_line(
        b"null",
        -32700,
        &format!("parse error: the request is not JSON ({why})"),
    ))
}

/// A JSON-RPC error answer, one line. `id` is raw JSON (`null` when the request's is unknown).
fn error_line(id: &[u8], code: i32, message: &str) -> Vec<u8> {
    let mut out = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
    out.extend_from_slice(id);
    let error = serde_json::json!({ "code": code, "message": message });
    out.extend_from_slice(format!(",\"error\":{error}}}\n").as_bytes());
    out
}

/// What becomes of one line of input.
#[derive(Debug, PartialEq)]
enum Line<'a> {
    /// For the protocol (repaired).
    Pass(Cow<'a, [u8]>),
    /// Answered here: the error line to write.
    Answer(Vec<u8>),
    /// Nothing to do (a blank line).
    Skip,
}

/// Decides what becomes of a whole line (`over`: it passed `max` bytes and only its head was
/// kept).
fn triage(line: &[u8], over: bool, max: usize) -> Line<'_> {
    if over {
        eprintln!("midashi MCP server: refused a request over {max} bytes");
        let id = id_of(line).unwrap_or(b"null");
        let message =
            format!("request over {max} bytes (the server's --max-request-bytes): send less");
        return Line::Answer(error_line(id, -32600, &message));
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Skip;
    }
    let line = repair_lone_surrogates(line);
    let text = line
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(&line);
    match parse_error(text) {
        None => Line::Pass(line),
        Some(answer) => Line::Answer(answer),
    }
}

/// Stdin and stdout for the protocol, requests bounded to `max` bytes: see [`connect`].
pub fn stdio(max: usize) -> (impl AsyncRead, impl AsyncWrite, tokio::task::JoinHandle<()>) {
    connect(tokio::io::stdin(), tokio::io::stdout(), max)
}

/// The protocol's side of `input` and `output` (see the module's doc), with requests bounded
/// to `max` bytes. Returns the
/// protocol's input and output, and the task that writes the output: await it after the
/// protocol ends, so that the last answer is flushed.
pub fn connect<R, W>(
    input: R,
    output: W,
    max: usize,
) -> (impl AsyncRead, impl AsyncWrite, tokio::task::JoinHandle<()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let output = Arc::new(Mutex::new(output));
    let (mut to_protocol, protocol_in) = tokio::io::duplex(1 << 16);
    let (protocol_out, from_protocol) = tokio::io::duplex(1 << 16);

    let answers = Arc::clone(&output);
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut line = Vec::new();
        let mut over = false;
        loop {
            let (done, used, eof) = match input.fill_buf().await {
                Ok([]) | Err(_) => (!line.is_empty() || over, 0, true),
                Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        keep(&mut line, &mut over, &buf[..=i], max);
                        (true, i + 1, false)
                    }
                    None => {
                        keep(&mut line, &mut over, buf, max);
                        (false, buf.len(), false)
                    }
                },
            };
            input.consume(used);
            if done {
                let body = line.strip_suffix(b"\n").unwrap_or(&line);
                let body = body.strip_suffix(b"\r").unwrap_or(body);
                let sent = match triage(body, over, max) {
                    Line::Pass(text) => {
                        let mut text = text.into_owned();
                        text.push(b'\n');
                        to_protocol.write_all(&text).await
                    }
                    Line::Answer(text) => write_line(&answers, &text).await,
                    Line::Skip => Ok(()),
                };
                if sent.is_err() {
                    break;
                }
                line.clear();
                over = false;
            }
            if eof {
                break;
            }
        }
        let _ = to_protocol.shutdown().await;
    });

    let writer = tokio::spawn(async move {
        let mut from_protocol = BufReader::new(from_protocol);
        let mut line = Vec::new();
        loop {
            line.clear();
            match from_protocol.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if write_line(&output, &line).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    (protocol_in, protocol_out, writer)
}

/// Writes one whole line to the shared output and flushes it.
async fn write_line<W: AsyncWrite + Unpin>(output: &Mutex<W>, line: &[u8]) -> std::io::Result<()> {
    let mut out = output.lock().await;
    out.write_all(line).await?;
    out.flush().await
}

/// How much of an oversized line is kept to find its id.
const HEAD_BYTES: usize = 4096;

/// Adds `part` to the line being read, or once it is over `max`, only what finding its id
/// needs.
fn keep(line: &mut Vec<u8>, over: &mut bool, part: &[u8], max: usize) {
    if !*over && line.len() + part.len() > max {
        *over = true;
        line.truncate(HEAD_BYTES);
    }
    if *over {
        let room = HEAD_BYTES.saturating_sub(line.len());
        line.extend_from_slice(&part[..room.min(part.len())]);
    } else {
        line.extend_from_slice(part);
    }
}

#[cfg(test)]
mod tests {
    use super::repair_lone_surrogates as r;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// What the protocol reads and what the client gets back, for `input` (the protocol
    /// answering nothing).
    async fn through(input: Vec<u8>, max: usize) -> (String, String) {
        let (client, server_out) = tokio::io::duplex(1 << 20);
        let (mut protocol_in, protocol_out, writer) =
            super::connect(std::io::Cursor::new(input), server_out, max);
        let mut read = String::new();
        protocol_in.read_to_string(&mut read).await.unwrap();
        drop(protocol_out);
        writer.await.unwrap();
        let mut answered = String::new();
        let mut client = client;
        client.shutdown().await.unwrap();
        client.read_to_string(&mut answered).await.unwrap();
        (read, answered)
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_answered_with_its_id() {
        let big = format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"q\":\"{}\"}}}}\n", "x".repeat(100_000));
        let small = "{\"jsonrpc\":\"2.0\",\"id\":\"a-1\",\"method\":\"tools/list\"}\n";
        let (read, answered) = through(format!("{big}{small}{small}").into_bytes(), 1000).await;
        assert_eq!(read, format!("{small}{small}"));
        assert_eq!(
            answered,
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32600,\"message\":\"request over 1000 bytes (the server's --max-request-bytes): send less\"}}\n"
        );
        // A last line without a newline still arrives.
        let (read, _) = through(small.trim_end().as_bytes().to_vec(), 1000).await;
        assert_eq!(read, small);
    }

    #[tokio::test]
    async fn a_line_that_is_not_json_gets_a_parse_error() {
        let small = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n";
        let deep = format!("{}\n", "[".repeat(100_000));
        let mut input = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"meth\n".to_vec();
        input.extend_from_slice(b"{\"q\":\"\xff\xfe\"}\n");
        input.extend_from_slice(deep.as_bytes());
        input.extend_from_slice(b"\r\n   \n");
        input.extend_from_slice(small.as_bytes());
        let (read, answered) = through(input, 1 << 20).await;
        assert_eq!(read, small, "only the JSON line reaches the protocol");
        let answers: Vec<serde_json::Value> = answered
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(answers.len(), 3, "{answered}");
        for a in &answers {
            assert_eq!(a["id"], serde_json::Value::Null);
            assert_eq!(a["error"]["code"], -32700);
            assert!(a["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("parse error"));
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let s = |b: &[u8]| String::from_utf8(r(b).into_owned()).unwrap();
        assert_eq!(s(br#"{"q":"abc\ud83d"}"#), r#"{"q":"abc\ufffd"}"#);
        assert_eq!(s(br#"{"q":"\udc00x"}"#), r#"{"q":"\ufffdx"}"#);
        // A whole pair, an escaped backslash and other escapes are kept.
        assert_eq!(s(br#"{"q":"\ud83d\ude00"}"#), r#"{"q":"\ud83d\ude00"}"#);
        assert_eq!(s(br#"{"q":"\\ud83d"}"#), r#"{"q":"\\ud83d"}"#);
        assert_eq!(s(br#"{"q":"\n\u00e9\"\\"}"#), r#"{"q":"\n\u00e9\"\\"}"#);
        let repaired = s(br#"{"q":"x\ud83d"}"#);
        assert!(serde_json::from_str::<serde_json::Value>(&repaired).is_ok());
    }
}
