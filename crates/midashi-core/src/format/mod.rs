//! The bytes on disk: every index file is a fixed header followed by a postcard payload.
//!
//! ```text
//! offset size
//!   0     4   magic  b"MDSH"
//!   4     1   file kind (entry, terms, sections, vectors)
//!   5     2   format major (LE)   — a reader refuses another major
//!   7     2   format minor (LE)   — a reader accepts any minor of its major
//!   9     8   payload length (LE)
//!  17     4   CRC-32 of bytes 0..17 and the payload (LE)
//!  21     …   postcard payload
//! ```
//!
//! postcard is not self-describing, so the header is what turns a truncated, corrupted or
//! mismatched file into a clear [`crate::Error`] instead of a wrong answer. The CRC-32 covers the
//! header fields and the payload, so it detects every single-byte change anywhere (and every
//! burst up to 32 bits) — even of a minor version, which readers otherwise accept.

pub mod entry;
pub mod frame;
pub mod kind;
pub mod reader;

pub use entry::{FileRef, Manifest};
pub use frame::{
    decode, encode, frame, frame_as_minor, minor_version, verify, ENGINE_VERSION, FORMAT_MAJOR,
    FORMAT_MINOR, HEADER_LEN, MAGIC,
};
pub use kind::{content_hash, FileKind};
