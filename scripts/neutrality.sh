#!/usr/bin/env bash
# Index bytes as a fingerprint: builds every shared corpus in both layouts with one
# build-index binary and prints, per build, the sha256 of its sorted file listing (every
# file's name and sha256), its file count and bytes: one line a build. `--files` prints the
# per-file listing instead, to find which file differs.
#
# Why: a change meant to be behaviour-neutral (a refactor, a move between modules) must
# leave every index file byte-identical. Two ways to use it:
#
#   # against another commit's binary (the proof a refactor lands with):
#   scripts/neutrality.sh --bin /path/to/old/build-index > before.txt
#   scripts/neutrality.sh --bin target/release/build-index > after.txt && diff before.txt after.txt
#
#   # against the fingerprint recorded in tests/neutrality/index-files.sha256 (test.sh runs this):
#   scripts/neutrality.sh --bin target/debug/build-index --check
#   scripts/neutrality.sh --bin target/release/build-index --record   # after an intended change
#
# Options:
#   --bin PATH     the build-index binary (default target/release/build-index)
#   --with-model   also build part of the Rust book with the embedding model (vectors, HNSW graph, the model
#                  files): float maths may differ between CPUs, so the recorded fingerprint
#                  leaves these out and only --bin comparisons on one machine use them.
#   --files        print every file's sha256 (the listing each build's line hashes)
#   --check        compare with the recorded fingerprint; exit 1 with a diff if they differ
#   --record       write the recorded fingerprint
set -euo pipefail
cd "$(dirname "$0")/.."

bin=target/release/build-index
with_model=0
mode=print
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift ;;
    --with-model) with_model=1 ;;
    --files) mode=files ;;
    --check) mode=check ;;
    --record) mode=record ;;
    *) echo "neutrality.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
recorded=tests/neutrality/index-files.sha256
shared=../shared/corpora
for c in rust-book vue-docs-en vue-docs-ja powershell-docs; do
  [ -d "$shared/$c" ] || { echo "neutrality.sh: $shared/$c is missing (../shared must sit beside the checkout)" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "neutrality.sh: no build-index binary at $bin" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name | input | layout | extra flags
builds=(
  "rust-book-single|$shared/rust-book|single|--slug mdbook"
  "rust-book-sharded|$shared/rust-book|sharded|--slug mdbook"
  "vue-docs-en-single|$shared/vue-docs-en|single|--slug vitepress"
  "vue-docs-en-sharded|$shared/vue-docs-en|sharded|--slug vitepress"
  "vue-docs-ja-single|$shared/vue-docs-ja|single|--slug vitepress"
  "vue-docs-ja-sharded|$shared/vue-docs-ja|sharded|--slug vitepress"
  "powershell-docs-auto|$shared/powershell-docs|auto|"
)

# Every file of build $1 with its sha256, in byte order of names.
listing() {
  # The build's lock file (build-index/src/output.rs) is not an index file.
  (cd "$work/$1" && find . -type f ! -name .midashi-build.lock | LC_ALL=C sort | xargs sha256sum | sed "s|  \./|  $1/|")
}

{
  for b in "${builds[@]}"; do
    IFS='|' read -r name input layout extra <<<"$b"
    # shellcheck disable=SC2086
    "$bin" "$input" --out "$work/$name" --layout "$layout" --keyword-only --quiet \
      --cache-dir "$work/cache" $extra >/dev/null
    listing "$name"
  done
  if [ "$with_model" = 1 ]; then
    "$bin" "$shared/rust-book" --out "$work/rust-book-model" --slug mdbook --include 'ch0[1-4]*.md' \
      --ann-min-rows 1 --quiet --cache-dir "$work/cache" >/dev/null
    listing rust-book-model
  fi
} >"$work/files"
# One line a build: the hash of its listing, its file count and bytes, its name.
for name in $(awk '{print $2}' "$work/files" | cut -d/ -f1 | uniq); do
  files=$(grep -c "  $name/" "$work/files")
  bytes=$(find "$work/$name" -type f ! -name .midashi-build.lock -printf '%s\n' | awk '{n += $1} END {print n}')
  printf '%s %6d %10d %s\n' "$(grep "  $name/" "$work/files" | sha256sum | cut -c1-64)" "$files" "$bytes" "$name"
done >"$work/fingerprint"

case "$mode" in
  print) cat "$work/fingerprint" ;;
  files) cat "$work/files" ;;
  record)
    mkdir -p "$(dirname "$recorded")"
    cp "$work/fingerprint" "$recorded"
    echo "recorded $(wc -l <"$recorded") builds in $recorded"
    ;;
  check)
    if ! diff -u "$recorded" "$work/fingerprint" >"$work/diff"; then
      cat "$work/diff" >&2
      echo "index bytes differ from $recorded: a change meant to be neutral changed what the builder writes." >&2
      echo "If the change is meant to change index files, record the new fingerprint with" >&2
      echo "  scripts/neutrality.sh --bin target/release/build-index --record" >&2
      echo "and say why in the commit message." >&2
      exit 1
    fi
    echo "index files unchanged: $(awk '{n += $2} END {print n}' "$recorded") files in $(wc -l <"$recorded") builds match $recorded"
    ;;
esac
