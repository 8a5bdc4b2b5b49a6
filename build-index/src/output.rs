//! Writing an index folder so that readers never see a half-written index.
//!
//! Content-hashed files are written first (each to a temporary name, then renamed), the
//! entry file last: until the entry is renamed into place, the previous index — its entry
//! and the files it names — stays intact and loadable. Files no longer named by the new
//! entry are removed afterwards.

use crate::error::{CliError, Result};
use midashi_core::format::entry::ENTRY_FILE_NAME;
use midashi_core::format::FileKind;
use rayon::prelude::*;
use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically (temporary file in the same folder, fsync, rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(|source| CliError::Output {
        path: path.to_path_buf(),
        source,
    })
}

/// The file earlier versions held locked inside the output folder: removed when found, since
/// everything in the folder is deployed with the site.
pub const LEGACY_LOCK_FILE_NAME: &str = ".midashi-build.lock";

/// A build's hold on its output folder, released when dropped (or when the process ends,
/// however it ends: the lock is the operating system's, not the file's existence).
#[derive(Debug)]
pub struct OutputLock {
    _file: fs::File,
}

/// The lock file of output folder `dir`: in the system's temporary folder, named by a hash
/// of the folder's canonical path, so that the folder holds only what is served and every
/// build into the same folder (by any path to it) takes the same lock. An empty file, left
/// in place: removing it would let a waiting build lock a file nobody else sees.
pub fn lock_path(dir: &Path) -> std::io::Result<std::path::PathBuf> {
    let canonical = fs::canonicalize(dir)?;
    let hash = xxhash_rust::xxh3::xxh3_64(canonical.as_os_str().as_encoded_bytes());
    Ok(std::env::temp_dir().join(format!("midashi-build-{hash:016x}.lock")))
}

/// Takes the output folder for this build: one writer per folder at a time. Two builds
/// into one folder would each delete the other's files as stale and leave an entry naming
/// files that are gone; the second build is refused instead, before it reads anything.
pub fn lock_output(dir: &Path) -> Result<OutputLock> {
    let output = |source| CliError::Output {
        path: dir.to_path_buf(),
        source,
    };
    fs::create_dir_all(dir).map_err(output)?;
    let path = lock_path(dir).map_err(output)?;
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(output)?;
    match file.try_lock() {
        Ok(()) => {
            let _ = fs::remove_file(dir.join(LEGACY_LOCK_FILE_NAME));
            Ok(OutputLock { _file: file })
        }
        Err(fs::TryLockError::WouldBlock) => Err(CliError::OutputBusy(dir.to_path_buf())),
        Err(fs::TryLockError::Error(e)) => Err(output(e)),
    }
}

/// Threads writing an index's files (see [`write_index`]).
const WRITERS: usize = 16;

/// Writes an index's files into `dir` (entry last) and removes stale index files.
pub fn write_index(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<()> {
    fs::create_dir_all(dir).map_err(|source| CliError::Output {
        path: dir.to_path_buf(),
        source,
    })?;
    let entry = files
        .iter()
        .find(|(name, _)| name == ENTRY_FILE_NAME)
        .map(|(_, bytes)| bytes);
    // Many at once: a large site writes ~20,000 files, and each waits for its fsync, which
    // the file system commits together when they overlap (powershell-docs: 17 s of writes
    // one by one on this machine's disk). More threads than cores, because they wait on
    // the disk, not the CPU. Only the entry's place in the order matters, and it comes last.
    let write = || {
        files
            .par_iter()
            .filter(|(name, _)| name != ENTRY_FILE_NAME)
            .try_for_each(|(name, bytes)| {
                let path = dir.join(name);
                // Content-hashed: an existing file of that name should already have these
                // bytes, and is kept when it does. Compared, not trusted: a file damaged on
                // disk (whose error tells the user to rebuild) must be rewritten by the rebuild.
                let same = fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64)
                    && fs::read(&path).is_ok_and(|old| old == *bytes);
                if same {
                    return Ok(());
                }
                write_atomic(&path, bytes)
            })
    };
    match rayon::ThreadPoolBuilder::new().num_threads(WRITERS).build() {
        Ok(pool) => pool.install(write)?,
        Err(_) => write()?,
    }
    if let Some(bytes) = entry {
        write_atomic(&dir.join(ENTRY_FILE_NAME), bytes)?;
    }
    // Remove files of earlier builds (only ours: `<kind>.<16 hex>.<ext>`), and temporary
    // files left by a build that was killed mid-write.
    let keep: HashSet<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let stale = FileKind::is_hashed_name(&name) && !keep.contains(name.as_str());
            if stale || is_leftover_temp_file(&name) {
                let _ = fs::remove_file(e.path());
            }
        }
    }
    Ok(())
}

/// `<kind>.<16 hex>.tmp<pid>` or `midashi-entry.tmp<pid>`: what [`write_atomic`] writes
/// before its rename.
fn is_leftover_temp_file(name: &str) -> bool {
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    let pid_ext = ext
        .strip_prefix("tmp")
        .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
    pid_ext
        && (stem == ENTRY_FILE_NAME.trim_end_matches(".bin")
            || FileKind::ALL
                .iter()
                .any(|k| FileKind::is_hashed_name(&format!("{stem}.{}", k.extension()))))
}

/// A `--site` being written beside its output folder (`.<name>.midashi-new`), made live in
/// one step when every page and the index are written: a build that stops half-way leaves
/// the previous site whole, and pages of deleted documents do not survive a rebuild.
#[derive(Debug)]
pub struct Staging {
    out: std::path::PathBuf,
    new: std::path::PathBuf,
    old: std::path::PathBuf,
}

impl Staging {
    /// Starts a fresh staging folder for `out`, clearing what an interrupted build left (and
    /// putting back a site that one interrupted build moved aside but did not replace).
    pub fn begin(out: &Path) -> Result<Staging> {
        let name = out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| CliError::Usage(format!("--out {} names no folder", out.display())))?;
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        };
        let s = Staging {
            out: out.to_path_buf(),
            new: parent.join(format!(".{name}.midashi-new")),
            old: parent.join(format!(".{name}.midashi-old")),
        };
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CliError::Output { path, source }
        };
        if s.old.exists() {
            // An earlier build stopped between its two moves: the live site is the one moved
            // aside. What stands at `out` now is the empty folder this build locked (or an
            // earlier version's lock file): put the site back; a real site there means `.old`
            // is a leftover.
            let only_lock = fs::read_dir(&s.out).map_or(true, |entries| {
                entries
                    .filter_map(|e| e.ok())
                    .all(|e| e.file_name() == LEGACY_LOCK_FILE_NAME)
            });
            if only_lock {
                if s.out.exists() {
                    fs::remove_dir_all(&s.out).map_err(io(&s.out))?;
                }
                fs::rename(&s.old, &s.out).map_err(io(&s.out))?;
            } else {
                fs::remove_dir_all(&s.old).map_err(io(&s.old))?;
            }
        }
        if s.new.exists() {
            fs::remove_dir_all(&s.new).map_err(io(&s.new))?;
        }
        fs::create_dir_all(&s.new).map_err(io(&s.new))?;
        Ok(s)
    }

    /// Where the new site is written.
    pub fn path(&self) -> &Path {
        &self.new
    }

    /// Makes the new site live: the old one is moved aside, the new one into its place, the
    /// old one removed.
    pub fn commit(self) -> Result<()> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CliError::Output { path, source }
        };
        // The lock is named by the folder's path, not kept in it: it holds across the swap.
        if self.out.exists() {
            fs::rename(&self.out, &self.old).map_err(io(&self.out))?;
        }
        fs::rename(&self.new, &self.out).map_err(io(&self.out))?;
        if self.old.exists() {
            fs::remove_dir_all(&self.old).map_err(io(&self.old))?;
        }
        Ok(())
    }
}
