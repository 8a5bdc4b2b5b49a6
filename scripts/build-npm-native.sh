#!/usr/bin/env bash
# Builds the indexer (build-index) that the `midashi` npm package runs for `npx midashi …`.
#
#   scripts/build-npm-native.sh                 this machine's platform: into web/native/<platform>/,
#                                               which `npm pack --workspace midashi` includes
#   scripts/build-npm-native.sh --from BIN      copy (and strip) a build-index already built, e.g. the
#                                               debug one the tests use, instead of a release build
#   scripts/build-npm-native.sh --target T      a Rust target triple (cross toolchain required): writes
#                                               the optional package @midashi/cli-<platform> into
#                                               target/npm/cli-<platform>/, to publish with `npm publish`
#
# Platforms (Node's process.platform-process.arch ↔ Rust target):
#   linux-x64 x86_64-unknown-linux-gnu · linux-arm64 aarch64-unknown-linux-gnu
#   darwin-x64 x86_64-apple-darwin · darwin-arm64 aarch64-apple-darwin · win32-x64 x86_64-pc-windows-msvc
# A release builds each on its own runner (macOS and Windows binaries need their SDKs) and
# publishes the per-platform packages before `midashi` itself; see docs/npm.md.
# Idempotent: cargo rebuilds only what changed; the copy is replaced.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

target=""
from=""
case "${1:-}" in
  --target) target="${2:?--target needs a triple}" ;;
  --from) from="${2:?--from needs a build-index binary}" ;;
  "") ;;
  *) echo "build-npm-native.sh: unknown option $1" >&2; exit 2 ;;
esac

if [ -n "$from" ]; then
  platform=$(node -p 'process.platform + "-" + process.arch')
  mkdir -p "web/native/$platform"
  strip -o "web/native/$platform/build-index.tmp" "$from"
  mv "web/native/$platform/build-index.tmp" "web/native/$platform/build-index"
  echo "build-npm-native: web/native/$platform/build-index from $from ($(du -h "web/native/$platform/build-index" | cut -f1))"
  exit 0
fi

platform_of() {
  case "$1" in
    x86_64-unknown-linux-gnu) echo linux-x64 ;;
    aarch64-unknown-linux-gnu) echo linux-arm64 ;;
    x86_64-apple-darwin) echo darwin-x64 ;;
    aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-pc-windows-msvc) echo win32-x64 ;;
    *) echo "build-npm-native.sh: no npm platform for target $1" >&2; exit 2 ;;
  esac
}

if [ -z "$target" ]; then
  platform=$(node -p 'process.platform + "-" + process.arch')
  cargo build --profile npm -p build-index
  mkdir -p "web/native/$platform"
  cp "$CARGO_TARGET_DIR/npm/build-index" "web/native/$platform/build-index.tmp"
  mv "web/native/$platform/build-index.tmp" "web/native/$platform/build-index"
  echo "build-npm-native: web/native/$platform/build-index ($(du -h "web/native/$platform/build-index" | cut -f1))"
  exit 0
fi

platform=$(platform_of "$target")
rustup target add "$target"
cargo build --profile npm -p build-index --target "$target"
exe=build-index; case "$target" in *windows*) exe=build-index.exe ;; esac
dir="$CARGO_TARGET_DIR/npm/cli-$platform"
mkdir -p "$dir"
cp "$CARGO_TARGET_DIR/$target/npm/$exe" "$dir/$exe"
version=$(node -p 'require("./web/package.json").version')
os=${platform%-*}; cpu=${platform#*-}
cat > "$dir/package.json" <<JSON
{
  "name": "@midashi/cli-$platform",
  "version": "$version",
  "description": "The Midashi indexer (build-index) for $platform; installed by the midashi package.",
  "license": "MIT OR Apache-2.0",
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["$exe"]
}
JSON
echo "build-npm-native: $dir (publish with: npm publish $dir --access public)"
