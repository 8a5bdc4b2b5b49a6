#!/usr/bin/env bash
# The fast check for a developer's loop (minutes from a warm tree; CI runs scripts/test.sh):
# formatting, clippy with warnings as errors, the structure check, every crate's unit tests,
# and the Node tests against a dev build of the wasm modules and the package.
#
#   scripts/check.sh            everything below
#   scripts/check.sh --no-node  without the wasm build and the Node tests
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

node_tests=1
for arg in "$@"; do
  case "$arg" in
    --no-node) node_tests=0 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "check.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

STEP_AT=$SECONDS
step() {
  printf '\n== %s  [previous step %d s]\n' "$*" $((SECONDS - STEP_AT))
  STEP_AT=$SECONDS
}

step "formatting"
cargo fmt --all -- --check
step "clippy (warnings are errors)"
cargo clippy --workspace --all-targets --quiet -- -D warnings
step "structure"
node scripts/check-structure.mjs
# BENCHMARKS.md and README's cost table are written from bench/results, never by hand.
node bench/benchmarks.mjs --check
step "unit tests of every crate"
cargo test --workspace --lib --bins --quiet
if [ "$node_tests" = 1 ]; then
  step "wasm modules (dev) and the package"
  # Their own target folder, as scripts/test.sh builds them: the native builds above keep theirs.
  CARGO_TARGET_DIR="$PWD/target-wasm" bash scripts/build-wasm.sh dev >/dev/null
  npm run --silent build:widget >/dev/null
  step "Node tests"
  cargo build --quiet -p build-index
  MIDASHI_BUILD_INDEX="$CARGO_TARGET_DIR/debug/build-index" node --test --test-concurrency=2 tests/node/
fi
step "check passed in $SECONDS s"
