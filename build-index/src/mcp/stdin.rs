//! The server's input, repaired before the protocol reads it: JSON that `JSON.stringify`
//! writes for a string cut inside an emoji holds a lone surrogate escape (`"\ud83d"`), which
//! serde_json refuses, and the MCP SDK then drops the whole request without an answer, so
//! the client waits forever. Each lone surrogate escape becomes `\ufffd` (what a browser
//! shows for it), and the request is answered.

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

/// Standard input, line by line through [`repair_lone_surrogates`], as a stream the protocol
/// reads. The copy runs on the current runtime until stdin closes.
pub fn repaired_stdin() -> impl AsyncRead {
    let (mut tx, rx) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut input = BufReader::new(tokio::io::stdin());
        let mut line = Vec::new();
        loop {
            line.clear();
            match input.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.write_all(&repair_lone_surrogates(&line)).await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = tx.shutdown().await;
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::repair_lone_surrogates as r;

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
