//! Reading one file of an index folder, as every reader of a folder does: only a regular
//! file inside the folder (never a FIFO or a device, which would hang or never end, nor a
//! link out of the folder), no larger than the entry records (or than an index file can
//! be), read with that bound. The checks cost one `stat` per file; a damaged or crafted
//! folder fails at once with a typed error instead of filling memory. A smaller file is
//! read: its frame then says what it is (cut short, another kind, another build).

use midashi_core::Error;
use std::fs;
use std::io::Read;
use std::path::Path;

/// Most bytes a file the entry does not size may have (the entry itself, shards, cards,
/// bundles): far above any real one (a shard is ~16 KB, a bundle ~100 KB, the Rust book's
/// entry 1 KB).
pub const MAX_UNSIZED_BYTES: u64 = 64 << 20;

/// The bytes of `name` in index folder `dir`: `expected` is its size as the entry records
/// it, `None` for files it does not size.
pub fn read_folder_file(dir: &Path, name: &str, expected: Option<u64>) -> Result<Vec<u8>, Error> {
    let not_a_file = |what: &str| Error::NotAFile {
        file: name.to_string(),
        what: what.to_string(),
    };
    let unreadable = |e: std::io::Error| Error::Malformed {
        file: name.to_string(),
        detail: format!("cannot read it from {}: {e}", dir.display()),
    };
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        return Err(not_a_file("a name with a path in it"));
    }
    let path = dir.join(name);
    let link = fs::symlink_metadata(&path).map_err(unreadable)?;
    if link.file_type().is_symlink() {
        let target = fs::canonicalize(&path).map_err(unreadable)?;
        let folder = fs::canonicalize(dir).map_err(unreadable)?;
        if !target.starts_with(&folder) {
            return Err(not_a_file("a link to a file outside the folder"));
        }
    }
    let meta = fs::metadata(&path).map_err(unreadable)?;
    if !meta.is_file() {
        return Err(not_a_file(kind_of(&meta)));
    }
    let size = meta.len();
    let bound = expected.unwrap_or(MAX_UNSIZED_BYTES);
    let mismatch = |actual: u64| Error::SizeMismatch {
        file: name.to_string(),
        actual,
        expected: match expected {
            Some(n) => format!("{n} bytes"),
            None => format!("at most {} MiB", MAX_UNSIZED_BYTES >> 20),
        },
    };
    if size > bound {
        return Err(mismatch(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    fs::File::open(&path)
        .map_err(unreadable)?
        // One byte more than the size: a file that grew since the stat is caught, not read on.
        .take(size + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > bound {
        return Err(mismatch(bytes.len() as u64));
    }
    Ok(bytes)
}

/// What a file that is not a regular one is, for messages.
fn kind_of(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    "not a regular file"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.bin"), b"abcd").unwrap();
        dir
    }

    #[test]
    fn a_regular_file_of_the_recorded_size_is_read() {
        let dir = folder();
        assert_eq!(
            read_folder_file(dir.path(), "a.bin", Some(4)).unwrap(),
            b"abcd"
        );
        assert_eq!(
            read_folder_file(dir.path(), "a.bin", None).unwrap(),
            b"abcd"
        );
    }

    #[test]
    fn a_larger_size_is_refused_before_reading() {
        let dir = folder();
        let e = read_folder_file(dir.path(), "a.bin", Some(3)).unwrap_err();
        assert_eq!(e.code(), "SIZE_MISMATCH");
        assert!(
            e.to_string()
                .contains("4 bytes where the index expects 3 bytes"),
            "{e}"
        );
        // Smaller is read: the frame says whether it was cut short or is another file.
        assert_eq!(
            read_folder_file(dir.path(), "a.bin", Some(5)).unwrap(),
            b"abcd"
        );
    }

    #[test]
    fn names_with_paths_and_links_out_are_refused() {
        let dir = folder();
        for name in ["../a.bin", "x/a.bin", "..", "", "/etc/passwd"] {
            let e = read_folder_file(dir.path(), name, None).unwrap_err();
            assert_eq!(e.code(), "NOT_A_FILE", "{name}");
        }
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), b"s").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("out.bin"))
                .unwrap();
            std::os::unix::fs::symlink(dir.path().join("a.bin"), dir.path().join("in.bin"))
                .unwrap();
            let e = read_folder_file(dir.path(), "out.bin", None).unwrap_err();
            assert_eq!(e.code(), "NOT_A_FILE");
            assert!(e.to_string().contains("outside the folder"), "{e}");
            // A link that stays inside is read.
            assert_eq!(
                read_folder_file(dir.path(), "in.bin", Some(4)).unwrap(),
                b"abcd"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_devices_are_refused_without_opening_them() {
        let dir = folder();
        let fifo = dir.path().join("fifo.bin");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(
            made.is_ok_and(|s| s.success()),
            "mkfifo (coreutils) is needed"
        );
        let e = read_folder_file(dir.path(), "fifo.bin", None).unwrap_err();
        assert_eq!(e.code(), "NOT_A_FILE");
        assert!(e.to_string().contains("a FIFO"), "{e}");
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.bin")).unwrap();
        let e = read_folder_file(dir.path(), "zero.bin", None).unwrap_err();
        assert_eq!(e.code(), "NOT_A_FILE");
        fs::create_dir(dir.path().join("sub.bin")).unwrap();
        assert_eq!(
            read_folder_file(dir.path(), "sub.bin", None)
                .unwrap_err()
                .code(),
            "NOT_A_FILE"
        );
    }

    #[test]
    fn a_sparse_giant_is_refused_by_its_size() {
        let dir = folder();
        let f = fs::File::create(dir.path().join("big.bin")).unwrap();
        f.set_len(MAX_UNSIZED_BYTES + 1).unwrap();
        let e = read_folder_file(dir.path(), "big.bin", None).unwrap_err();
        assert_eq!(e.code(), "SIZE_MISMATCH");
    }
}
