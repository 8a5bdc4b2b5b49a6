//! A file's frame: the header (magic, kind, version, length, CRC-32) around its payload,
//! written by [`encode`]/[`frame`] and checked by [`verify`]/[`decode`] (see the module
//! docs of [`crate::format`] for the layout).
use super::kind::{FileKind, RETIRED_TAGS};
use super::reader;
use crate::error::{Error, Result};
use serde::Serialize;
/// The four magic bytes at the start of every Midashi file.
pub const MAGIC: [u8; 4] = *b"MDSH";
/// Format major version written and read by this engine.
pub const FORMAT_MAJOR: u16 = 1;
/// Format minor version written by this engine.
/// 1: the entry file may name the model files (`Model`, `Tokenizer`, `ModelConfig`) and an
/// HNSW graph (`Ann`).
/// 2: the model in the entry file names the languages it covers.
/// 3: the sharded layout for large sites (file kinds `Directory`, `Shard`, `Bundle`,
/// `Lexicon`, `Tree`, `Paths`); single-file indexes are unchanged.
/// 4: bundles leave out the section ids a reader can derive and the directory names files
/// by 5-byte hashes, under new kind tags (15, 16), so a 1.3 reader refuses them rather than
/// misreading them; 1.3 bundles and directories (tags 11, 9) are refused with a request to
/// rebuild.
/// 5: cards (kind `Card`, tag 17) for the results shown, and a directory that names them
/// (tag 18); 1.4 directories (tag 16) are refused with a request to rebuild.
/// 6: the directory's per-document facets are written column by column (tag 19; gzip
/// compresses them to a third, and every first query loads the directory); 1.5
/// directories (tag 18) are refused with a request to rebuild.
/// 7: the directory names shards by first term and group hash (tag 20; see
/// `shards::shard_columns`: a third off the directory, which every first query loads); 1.6
/// directories (tag 19) are refused with a request to rebuild.
/// 8: a shard list's scores take one byte each (`shards::write_scores`; a quarter off the
/// score bytes of a common word's list in gzip); 1.7 directories (tag 20), whose shards hold
/// f32 planes, are refused with a request to rebuild (tag 21).
/// 9: the terms file ends with page weights per section (`TermsData::section_weights`; empty
/// unless a page is weighted); a 1.8 reader leaves them unread and ranks as if unweighted.
/// 10: the vectors file ends with its noise floor (`VectorsData::noise_floor`, the best
/// similarity nonsense reaches); a 1.9 reader leaves it unread and keeps semantic results
/// for queries whose words match nothing, as before.
/// 11: the entry file ends with the languages whose analyzer rules made the terms
/// (`Manifest::languages`: French pages stemmed by French Snowball …); a 1.10 reader leaves
/// them unread and reads every query as English.
/// 12: the sharded layout's shards and tree end with the sections that have no text of their
/// own (`scores::write_sections`; grouping lets such a section stand for its chain only until
/// a relative with text ranks); a 1.11 reader leaves them unread and groups as before.
/// 13: the vectors file stores 4-bit rows (`VectorsData::data`, the kind tag 22); 1.12
/// vectors (tag 4, int8 rows) are refused with a request to rebuild, and a 1.12 reader
/// refuses the new ones as a kind it does not know, rather than misreading them.
/// 14: the sharded layout's shards end with their group's hash and cards with the cards'
/// salt, so that a valid shard or card of another build put under this one's name is
/// refused (bundles are checked against the content hash in their names); a 1.13 reader
/// leaves the stamps unread.
/// 15: the heading postings' length and count leave out the site's own words.
/// 16: small kana fold to full size in every term (`analyzer::normalize`: ウォッチャー and
/// ウオッチャー are one word); the entry file's kind tag is 24, so a 1.15 reader refuses the
/// new entry as a kind it does not know rather than missing words, and a 1.16 reader asks
/// for a rebuild of a 1.15 entry (tag 1).
/// 17: a number written against a CJK run is also one bigram with the character it touches
/// (`1945年` adds `5年`); the entry file's kind tag is 25 (1.16's, 24, is retired).
///
/// A minor version only appends fields at the end of a payload, and a reader leaves the
/// fields of a newer minor unread, so any reader of a major reads every minor of it.
/// (Readers of 1.0 and 1.1 still refused leftover bytes: they cannot open a 1.2 index.)
pub const FORMAT_MINOR: u16 = 17;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 21;
/// This engine's version, named in version errors.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
#[cfg(not(target_arch = "wasm32"))]
fn checksum(header: &[u8], payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(header);
    h.update(payload);
    h.finalize()
}

/// The same CRC-32 (IEEE, as zlib), with a 1 KB table instead of crc32fast's 16 KB one: the
/// browser checks each file once, and the module's size is what it waits for first.
#[cfg(target_arch = "wasm32")]
fn checksum(header: &[u8], payload: &[u8]) -> u32 {
    const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
    let mut d = CRC.digest();
    d.update(header);
    d.update(payload);
    d.finalize()
}

/// Serialises `value` as a file of `kind`: header + postcard payload.
pub fn encode<T: Serialize>(kind: FileKind, value: &T) -> Result<Vec<u8>> {
    let payload = postcard::to_allocvec(value).map_err(|e| Error::Malformed {
        file: kind.to_string(),
        detail: format!("cannot encode: {e}"),
    })?;
    Ok(frame(kind, &payload))
}

/// Puts the header (magic, kind, version, length, CRC-32) in front of an already encoded
/// payload. [`encode`] uses it; fuzzers and tests use it to hand the decoders payloads whose
/// checksum is right, so that what lies behind the checksum gets exercised too.
pub fn frame(kind: FileKind, payload: &[u8]) -> Vec<u8> {
    frame_as_minor(kind, payload, FORMAT_MINOR)
}

/// [`frame`] as another minor version of this major would have written it: what tests use to
/// stand in for files of older and newer midashi versions.
pub fn frame_as_minor(kind: FileKind, payload: &[u8], minor: u16) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(&MAGIC);
    out.push(kind.tag());
    out.extend_from_slice(&FORMAT_MAJOR.to_le_bytes());
    out.extend_from_slice(&minor.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let crc = checksum(&out, payload);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The format minor version in a file's header, if the header is there (before verifying it).
pub fn minor_version(bytes: &[u8]) -> Option<u16> {
    bytes.get(7..9).map(|b| u16::from_le_bytes([b[0], b[1]]))
}

/// Checks the header of `bytes` (named `file` in errors) and returns the verified payload.
pub fn verify<'a>(kind: FileKind, file: &str, bytes: &'a [u8]) -> Result<&'a [u8]> {
    let file = file.to_string();
    if bytes.len() < 4 || bytes[..4] != MAGIC {
        // A prefix of the magic is a truncated file, anything else is not ours.
        if bytes.len() < 4 && MAGIC.starts_with(bytes) {
            return Err(Error::Truncated {
                file,
                expected: HEADER_LEN as u64,
                actual: bytes.len() as u64,
            });
        }
        return Err(Error::NotAnIndex { file });
    }
    if bytes.len() < HEADER_LEN {
        return Err(Error::Truncated {
            file,
            expected: HEADER_LEN as u64,
            actual: bytes.len() as u64,
        });
    }
    let found = FileKind::from_tag(bytes[4]).ok_or_else(|| Error::Malformed {
        file: file.clone(),
        detail: match RETIRED_TAGS.iter().find(|(t, _, _)| *t == bytes[4]) {
            Some((_, what, format)) => {
                format!(
                    "a {what} of format {format}, which this engine no longer reads: rebuild the index"
                )
            }
            None => format!("unknown file kind {}", bytes[4]),
        },
    })?;
    let major = u16::from_le_bytes([bytes[5], bytes[6]]);
    let minor = minor_version(bytes).unwrap_or_default();
    if major != FORMAT_MAJOR {
        return Err(Error::UnsupportedVersion {
            file,
            found_major: major,
            found_minor: minor,
            supported_major: FORMAT_MAJOR,
            engine: ENGINE_VERSION.to_string(),
        });
    }
    if found != kind {
        return Err(Error::WrongKind {
            file,
            expected: kind,
            found,
        });
    }
    let mut len8 = [0u8; 8];
    len8.copy_from_slice(&bytes[9..17]);
    let len = u64::from_le_bytes(len8);
    let expected = (HEADER_LEN as u64).saturating_add(len);
    let actual = bytes.len() as u64;
    if actual < expected {
        return Err(Error::Truncated {
            file,
            expected,
            actual,
        });
    }
    if actual > expected {
        return Err(Error::Malformed {
            file,
            detail: format!("{} bytes after the payload", actual - expected),
        });
    }
    let crc = u32::from_le_bytes([bytes[17], bytes[18], bytes[19], bytes[20]]);
    let payload = &bytes[HEADER_LEN..];
    if checksum(&bytes[..17], payload) != crc {
        return Err(Error::Corrupted { file });
    }
    if !kind.content_matches_name(&file, bytes) {
        return Err(Error::Malformed {
            file,
            detail: "its content does not match the hash in its name: another file of the same \
                     kind (from another build?) was put in its place; fetch or copy the index \
                     folder again, or rebuild it"
                .into(),
        });
    }
    Ok(payload)
}

/// Verifies and reads a file of `kind` (named `file` in errors).
pub fn decode<T: reader::Decode>(kind: FileKind, file: &str, bytes: &[u8]) -> Result<T> {
    let payload = verify(kind, file, bytes)?;
    let mut reader = reader::Reader::new(payload);
    match T::decode(&mut reader) {
        Ok(value) => check_unread(file, bytes, reader.remaining()).map(|()| value),
        Err(e) => Err(malformed(file, e)),
    }
}

#[inline(never)]
fn malformed(file: &str, e: reader::ReadError) -> Error {
    Error::Malformed {
        file: file.to_string(),
        detail: e.0.to_string(),
    }
}

/// A newer minor version may append fields (that is what a minor version is allowed to
/// change): what this reader does not know is left unread. Of our own minor or older,
/// bytes left over mean a damaged file.
#[inline(never)]
fn check_unread(file: &str, bytes: &[u8], unread: usize) -> Result<()> {
    if unread > 0 && minor_version(bytes).unwrap_or_default() <= FORMAT_MINOR {
        return Err(Error::Malformed {
            file: file.to_string(),
            detail: format!("{unread} unread bytes in the payload"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_corruption_is_detected() {
        let value: (String, Vec<u32>) = ("hello".into(), vec![1, 2, 3, 400_000]);
        let bytes = encode(FileKind::Terms, &value).unwrap();
        let back: (String, Vec<u32>) = decode(FileKind::Terms, "t", &bytes).unwrap();
        assert_eq!(back, value);

        for cut in 0..bytes.len() {
            let err =
                decode::<(String, Vec<u32>)>(FileKind::Terms, "t", &bytes[..cut]).unwrap_err();
            assert!(
                matches!(err, Error::Truncated { .. }),
                "cut at {cut}: {err:?}"
            );
        }
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                assert!(
                    decode::<(String, Vec<u32>)>(FileKind::Terms, "t", &b).is_err(),
                    "flip {flip:#x} at {i} went unnoticed"
                );
            }
        }
    }

    #[test]
    fn fields_a_newer_minor_appends_are_left_unread() {
        let mut payload = postcard::to_allocvec(&(7u8, "x".to_string())).unwrap();
        payload.extend_from_slice(&[1, 2, 3]); // a field of a future minor
        let newer = frame_as_minor(FileKind::Terms, &payload, FORMAT_MINOR + 1);
        let v: (u8, String) = decode(FileKind::Terms, "t", &newer).unwrap();
        assert_eq!(v, (7, "x".to_string()));
        let own = frame(FileKind::Terms, &payload);
        let err = decode::<(u8, String)>(FileKind::Terms, "t", &own).unwrap_err();
        assert_eq!(err.code(), "MALFORMED", "{err}");
    }

    #[test]
    fn names_give_back_their_hash() {
        let name = FileKind::Bundle.name_for_hash(0x0123_4567_89ab_cdef);
        assert_eq!(
            FileKind::Bundle.hash_of_name(&name),
            Some(0x0123_4567_89ab_cdef)
        );
        assert_eq!(FileKind::Shard.hash_of_name(&name), None);
        assert_eq!(FileKind::Bundle.hash_of_name("bundle.123.bin"), None);
        assert_eq!(
            FileKind::Bundle.hash_of_name("bundle.0123456789abcdefx.bin"),
            None
        );
    }

    #[test]
    fn version_and_kind_errors_say_what_to_do() {
        let mut bytes = encode(FileKind::Entry, &1u8).unwrap();
        let err = decode::<u8>(FileKind::Terms, "x", &bytes).unwrap_err();
        assert_eq!(err.code(), "WRONG_FILE_KIND");
        bytes[5] = 9;
        let err = decode::<u8>(FileKind::Entry, "x", &bytes).unwrap_err();
        assert_eq!(err.code(), "FORMAT_VERSION");
        let found = format!("format 9.{FORMAT_MINOR}");
        assert!(err.to_string().contains(&found), "{err}");
        assert!(err.to_string().contains("rebuild"), "{err}");
        let err = decode::<u8>(FileKind::Entry, "x", b"<html>404</html>").unwrap_err();
        assert_eq!(err.code(), "NOT_AN_INDEX");
        // Every retired kind tag names the file, the format that wrote it and the fix: a
        // 1.3 bundle, the directories of earlier sharded layouts (1.3 to 1.7), 1.12's 8-bit
        // vectors and the entries of 1.15 and before, whose terms kept small kana.
        let cases = [
            (11, FileKind::Bundle, "bundle of format 1.3"),
            (9, FileKind::Directory, "directory of format 1.3"),
            (16, FileKind::Directory, "directory of format 1.4"),
            (18, FileKind::Directory, "directory of format 1.5"),
            (19, FileKind::Directory, "directory of format 1.6"),
            (20, FileKind::Directory, "directory of format 1.7"),
            (
                4,
                FileKind::Vectors,
                "vectors file in 8 bits of format 1.12",
            ),
            (1, FileKind::Entry, "entry file of format 1.15 or older"),
            (24, FileKind::Entry, "entry file of format 1.16"),
        ];
        assert_eq!(cases.len(), RETIRED_TAGS.len());
        for (tag, kind, says) in cases {
            let mut old = encode(kind, &1u8).unwrap();
            old[4] = tag;
            let err = decode::<u8>(kind, "x.bin", &old).unwrap_err();
            assert_eq!(err.code(), "MALFORMED");
            let text = err.to_string();
            assert!(text.contains(says) && text.contains("rebuild"), "{text}");
        }
    }

    #[test]
    fn hashed_names_round_trip_and_only_ours_are_recognised() {
        for kind in FileKind::ALL {
            assert_eq!(FileKind::from_tag(kind.tag()), Some(kind));
            if kind != FileKind::Entry {
                let name = kind.hashed_name(b"abc");
                assert!(FileKind::is_hashed_name(&name), "{name}");
            }
        }
        assert!(FileKind::is_hashed_name("model.0123456789abcdef.bin"));
        // Earlier builds' models (tract's prepared graph, ONNX) are still named by content:
        // checked and cleaned up.
        assert!(FileKind::is_hashed_name("model.0123456789abcdef.tar"));
        assert!(FileKind::is_hashed_name("model.0123456789abcdef.onnx"));
        let legacy = format!(
            "model.{:016x}.onnx",
            super::super::kind::content_hash(b"abc")
        );
        assert!(FileKind::Model.content_matches_name(&legacy, b"abc"));
        assert!(!FileKind::Model.content_matches_name(&legacy, b"abd"));
        assert!(!FileKind::is_hashed_name("model.0123456789abcdef.zip"));
        assert!(!FileKind::is_hashed_name("index.html"));
        assert!(!FileKind::is_hashed_name("terms.xyz.bin"));
        assert!(!FileKind::is_hashed_name("midashi-entry.bin"));
    }
}
