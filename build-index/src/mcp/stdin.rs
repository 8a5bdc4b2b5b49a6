//! The server's input, repaired before the protocol reads it: JSON that `JSON.stringify`
//! writes for a string cut inside an emoji holds a lone surrogate escape (`"\ud83d"`), which
//! serde_json refuses, and the MCP SDK then drops the whole request without an answer, so
//! the client waits forever. Each lone surrogate escape becomes `\ufffd` (what a browser
//! shows for it), and the request is answered.
//!
//! A line is also bounded: one over `--max-request-bytes` is not kept in memory (a client
//! could otherwise send gigabytes without a newline). In its place the server reads a
//! request of a method named after the refusal, with the line's id, so the client gets a
//! JSON-RPC error that says why ("method not found: request over … bytes") instead of
//! silence; a notification (no id) is dropped.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};

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

/// What the server reads in place of a line over `max` bytes.
fn refusal(head: &[u8], max: usize) -> Option<Vec<u8>> {
    let id = id_of(head)?;
    let mut out = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
    out.extend_from_slice(id);
    out.extend_from_slice(
        format!(
            ",\"method\":\"request over {max} bytes (the server's --max-request-bytes): send less\"}}\n"
        )
        .as_bytes(),
    );
    Some(out)
}

/// How much of an oversized line is kept to find its id.
const HEAD_BYTES: usize = 4096;

/// Standard input, line by line through [`repair_lone_surrogates`], lines over `max` bytes
/// replaced by a refusal, as a stream the protocol reads. The copy runs on the current
/// runtime until stdin closes.
pub fn repaired_stdin(max: usize) -> impl AsyncRead {
    repaired(tokio::io::stdin(), max)
}

/// [`repaired_stdin`] over any input (the tests feed it bytes).
pub fn repaired<R: AsyncRead + Unpin + Send + 'static>(input: R, max: usize) -> impl AsyncRead {
    let (mut tx, rx) = tokio::io::duplex(1 << 16);
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
                let out = if over {
                    eprintln!("midashi MCP server: refused a request over {max} bytes");
                    refusal(&line, max).map(std::borrow::Cow::Owned)
                } else {
                    Some(repair_lone_surrogates(&line))
                };
                if let Some(out) = out {
                    if tx.write_all(&out).await.is_err() {
                        break;
                    }
                }
                line.clear();
                over = false;
            }
            if eof {
                break;
            }
        }
        let _ = tx.shutdown().await;
    });
    rx
}

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
    use tokio::io::AsyncReadExt;

    async fn through(input: Vec<u8>, max: usize) -> String {
        let mut out = String::new();
        super::repaired(std::io::Cursor::new(input), max)
            .read_to_string(&mut out)
            .await
            .unwrap();
        out
    }

    #[tokio::test]
    async fn a_line_over_the_limit_becomes_a_refusal_with_its_id() {
        let big = format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"q\":\"{}\"}}}}\n", "x".repeat(100_000));
        let small = "{\"jsonrpc\":\"2.0\",\"id\":\"a-1\",\"method\":\"tools/list\"}\n";
        let note = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":\"{}\"}}\n",
            "y".repeat(5000)
        );
        let out = through(format!("{big}{small}{note}{small}").into_bytes(), 1000).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(
            lines[0],
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"request over 1000 bytes (the server's --max-request-bytes): send less\"}"
        );
        assert_eq!(lines[1], small.trim_end());
        assert_eq!(lines[2], small.trim_end());
        // A last line without a newline still arrives.
        assert_eq!(
            through(small.trim_end().as_bytes().to_vec(), 1000).await,
            small.trim_end()
        );
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
