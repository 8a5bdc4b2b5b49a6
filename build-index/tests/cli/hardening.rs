//! The CLI under hostile input and hostile conditions: pathological Markdown, binary and huge
//! files in the docs folder, thread counts, a build killed mid-write, an output folder that
//! cannot be written. Nothing may panic, and the previous index must survive.

use crate::common;

use common::{bin, run};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/docs")
}

/// A keyword-only build (no model: fast, and the same whatever is installed).
fn build(input: &Path, out: &Path) -> Output {
    run(bin()
        .arg(input)
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--keyword-only"]))
}

fn search_total(dir: &Path, q: &str) -> u64 {
    let o = run(bin().arg("search").arg(dir).arg(q).arg("--json"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["total"].as_u64().unwrap()
}

/// The files of a folder, sorted, with their bytes.
fn contents(d: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = fs::read_dir(d)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn hostile_files_are_indexed_or_skipped_with_a_warning_naming_them() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    fs::create_dir(&docs).unwrap();
    let n = 10_000;
    let w = |name: &str, bytes: &[u8]| fs::write(docs.join(name), bytes).unwrap();
    w("good.md", b"# Good page\n\nPlain searchable zebra text.\n");
    w(
        "deep-list.md",
        format!("# Deep list\n\n{}walrus\n", "- ".repeat(n)).as_bytes(),
    );
    w(
        "deep-quote.md",
        format!("# Deep quote\n\n{}narwhal\n", "> ".repeat(n)).as_bytes(),
    );
    let headings: String = (0..n + 20)
        .map(|i| format!("## Heading {i}\n\nbody {i}\n\n"))
        .collect();
    w("many-headings.md", headings.as_bytes());
    w(
        "long-heading.md",
        format!("# {}\n\nplatypus\n", "a".repeat(1 << 20)).as_bytes(),
    );
    w("latin1.md", b"# Caf\xe9 cr\xe8me\n\nokapi \xff\xfe text\n");
    w("image.md", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01");
    // 100 MB, sparse: the size check must refuse it before reading a byte.
    fs::File::create(docs.join("huge.md"))
        .unwrap()
        .set_len(100 << 20)
        .unwrap();

    let out = tmp.path().join("idx");
    let t = Instant::now();
    let o = build(&docs, &out);
    println!("hostile folder indexed in {:?}", t.elapsed());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    for (file, what) in [
        ("huge.md", "skipped: 100 MB is over the 16 MB limit"),
        ("image.md", "skipped: binary file"),
        ("latin1.md", "invalid UTF-8 replaced"),
        ("long-heading.md:1", "heading longer than 1024 bytes"),
        ("many-headings.md:40001", "20 headings past the first 10000"),
    ] {
        assert!(
            report.contains(&format!("  {file}: {what}")),
            "no warning {file}: {what} in\n{report}"
        );
    }
    // Everything that could be read is searchable.
    for q in [
        "zebra",
        "walrus",
        "narwhal",
        "platypus",
        "okapi",
        "body 10019",
    ] {
        assert!(search_total(&out, q) > 0, "{q}");
    }
}

#[test]
fn a_folder_with_nothing_readable_keeps_the_previous_index() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    assert!(build(&fixture(), &out).status.success());
    let before = contents(&out);
    let docs = tmp.path().join("docs");
    fs::create_dir(&docs).unwrap();
    fs::write(docs.join("a.md"), b"\0\0binary").unwrap();
    let o = build(&docs, &out);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("none of the Markdown files could be indexed"),
        "{err}"
    );
    assert!(err.contains("a.md: skipped: binary"), "{err}");
    assert_eq!(contents(&out), before);
}

/// A docs folder big enough that parsing runs on several threads.
fn generated_docs(dir: &Path, files: usize, paragraphs: usize) {
    let words = [
        "pagination",
        "cursor",
        "offset",
        "computed",
        "property",
        "cache",
        "render",
        "ページング",
        "算出",
        "component",
        "reactive",
        "watcher",
        "router",
        "store",
    ];
    for f in 0..files {
        let sub = dir.join(format!("part{}", f % 7));
        fs::create_dir_all(&sub).unwrap();
        let mut s = format!(
            "---\ntitle: Page {f}\ntags: [t{}]\n---\n\n# Page {f}\n\n",
            f % 5
        );
        for p in 0..paragraphs {
            if p % 4 == 0 {
                s.push_str(&format!("## Section {p} of {f}\n\n"));
            }
            for k in 0..60 {
                s.push_str(words[(f * 31 + p * 7 + k * 3) % words.len()]);
                s.push(if k % 12 == 11 { '\n' } else { ' ' });
            }
            s.push_str(&format!("word{f}x{p}\n\n"));
        }
        fs::write(sub.join(format!("page{f}.md")), s).unwrap();
    }
}

#[test]
fn builds_are_identical_whatever_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    generated_docs(&docs, 120, 8);
    let mut outs = Vec::new();
    for threads in ["1", "2", "2", "4"] {
        let out = tmp.path().join(format!("idx{}", outs.len()));
        let o = run(bin()
            .env("RAYON_NUM_THREADS", threads)
            .arg(&docs)
            .arg("--out")
            .arg(&out)
            .args(["--quiet", "--keyword-only"]));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        outs.push(contents(&out));
    }
    assert!(outs.iter().all(|o| *o == outs[0]), "builds differ");
}

#[test]
fn an_unwritable_output_folder_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("not-a-folder");
    fs::write(&file, "x").unwrap();
    for out in [file.join("idx"), file.clone()] {
        let o = build(&fixture(), &out);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("cannot write the index there") && err.contains("choose another --out"),
            "{err}"
        );
        assert!(err.contains(&*file.to_string_lossy()), "{err}");
    }
    assert_eq!(fs::read(&file).unwrap(), b"x");
}

/// Kills a build while it writes (as soon as one of its temporary files appears) and checks
/// that the previous index is intact and loadable, and that the next build cleans up.
#[test]
fn a_build_killed_mid_write_leaves_the_previous_index_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    assert!(build(&fixture(), &out).status.success());
    let before = contents(&out);
    let old_hits = search_total(&out, "pagination");

    // Big enough that writing its files takes a while (several MB, fsynced).
    let docs = tmp.path().join("big");
    generated_docs(&docs, 300, 40);

    let mut killed_mid_write = 0;
    for attempt in 0..6 {
        let mut child = bin()
            .arg(&docs)
            .arg("--out")
            .arg(&out)
            .args(["--quiet", "--keyword-only"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let mut saw_temp = false;
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            let temp = fs::read_dir(&out)
                .unwrap()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().contains(".tmp"));
            if temp {
                saw_temp = true;
                child.kill().unwrap();
                child.wait().unwrap();
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(600), "build hangs");
            std::thread::sleep(Duration::from_micros(200));
        }
        let entry_after = fs::read(out.join("midashi-entry.bin")).unwrap();
        if saw_temp {
            killed_mid_write += 1;
            // Killed before the entry was renamed into place: the old index, untouched, is
            // what readers get (the new entry is never half-written).
            let entry_before = &before
                .iter()
                .find(|(n, _)| n == "midashi-entry.bin")
                .unwrap()
                .1;
            if &entry_after == entry_before {
                assert_eq!(
                    search_total(&out, "pagination"),
                    old_hits,
                    "attempt {attempt}"
                );
                for (name, bytes) in &before {
                    assert_eq!(&fs::read(out.join(name)).unwrap(), bytes, "{name} changed");
                }
            } else {
                // Killed after the rename: the new index is complete.
                assert!(search_total(&out, "word299x39") > 0, "attempt {attempt}");
            }
        }
        // Whatever happened, the folder holds a loadable index.
        let o = run(bin().arg("search").arg(&out).arg("cursor"));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        if killed_mid_write >= 2 {
            break;
        }
        // Start over from the old index, so the next kill again lands on a real write.
        fs::remove_dir_all(&out).unwrap();
        fs::create_dir_all(&out).unwrap();
        for (name, bytes) in &before {
            fs::File::create(out.join(name))
                .unwrap()
                .write_all(bytes)
                .unwrap();
        }
    }
    assert!(
        killed_mid_write > 0,
        "no attempt caught the build while it was writing"
    );
    // The next build succeeds and removes the killed build's temporary files.
    assert!(build(&docs, &out).status.success());
    let leftovers: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(search_total(&out, "word299x39") > 0);
}

#[test]
fn nan_and_infinite_numbers_are_refused_with_the_option_named() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    assert!(build(&fixture(), &out).status.success());
    for (args, named) in [
        (&["--min-score", "NaN"][..], "min_score"),
        (&["--min-score", "inf"][..], "min_score"),
        (&["--rrf-k", "NaN"][..], "rrf-k"),
        // `=`: clap reads a lone "-inf" as a flag.
        (
            &["--fusion", "linear", "--keyword-weight=-inf"][..],
            "keyword-weight",
        ),
    ] {
        let o = run(bin().arg("search").arg(&out).arg("borrow").args(args));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} was accepted");
        assert!(err.contains(named), "{args:?}: {err}");
    }
}

#[cfg(unix)]
#[test]
fn special_files_in_an_index_folder_are_refused_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idx");
    assert!(build(&fixture(), &out).status.success());
    let names: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let shards: Vec<&String> = names.iter().filter(|n| n.starts_with("shard.")).collect();
    let secret = tmp.path().join("secret.bin");
    fs::copy(out.join(shards[0]), &secret).unwrap();
    // The entry a FIFO, every shard a link to /dev/zero, a link out of the folder, a sparse
    // giant: each a typed error at once (a hang or an endless read before).
    /// Which files are replaced, by what, and what the error says.
    type Case<'a> = (&'a str, Box<dyn Fn(&Path) + 'a>, &'a str);
    let cases: Vec<Case> = vec![
        ("entry", Box::new(|p: &Path| mkfifo(p)), "a FIFO"),
        ("shards", Box::new(|p: &Path| mkfifo(p)), "a FIFO"),
        (
            "shards",
            Box::new(|p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap()),
            "outside the folder",
        ),
        (
            "shards",
            Box::new(|p: &Path| std::os::unix::fs::symlink(&secret, p).unwrap()),
            "outside the folder",
        ),
        (
            "shards",
            Box::new(|p: &Path| fs::File::create(p).unwrap().set_len(1 << 30).unwrap()),
            "where the index expects at most",
        ),
    ];
    for (i, (which, make, says)) in cases.into_iter().enumerate() {
        let copy = tmp.path().join(format!("copy-{i}"));
        fs::create_dir(&copy).unwrap();
        for n in &names {
            let target = copy.join(n);
            let replaced = match which {
                "entry" => n == "midashi-entry.bin",
                _ => n.starts_with("shard."),
            };
            if replaced {
                make(&target);
            } else {
                fs::copy(out.join(n), &target).unwrap();
            }
        }
        let o = run(bin().arg("search").arg(&copy).arg("installation"));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{which}/{says}: accepted");
        assert!(err.contains(says), "{which}/{says}: {err}");
    }
}

#[cfg(unix)]
fn mkfifo(p: &Path) {
    let made = std::process::Command::new("mkfifo").arg(p).status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "mkfifo (coreutils) is needed"
    );
}
