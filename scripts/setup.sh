#!/usr/bin/env bash
# Installs what Midashi's build and tests need, idempotently: each step checks first, so a
# second run takes seconds. Used by scripts/demo.sh and scripts/test.sh.
#
#   scripts/setup.sh [--browser] [--model]
#     --browser  Debian's chromium for the browser tests
#     --model    the embedding models (scripts/fetch-model.sh: all-MiniLM-L6-v2, the default;
#                scripts/fetch-e5.sh: multilingual-e5-small, for docs in other languages)
set -euo pipefail
cd "$(dirname "$0")/.."

want_browser=0
want_model=0
for arg in "$@"; do
  case "$arg" in
    --browser) want_browser=1 ;;
    --model) want_model=1 ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

step() { printf '\n== %s\n' "$*"; }

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup.sh: cargo not found; install Rust with rustup first" >&2
  exit 1
fi

step "git hooks (.githooks: commit-msg keeps subjects to 72 characters)"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git config core.hooksPath .githooks
fi

step "Rust target wasm32-unknown-unknown"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

step "wasm-bindgen CLI (same version as the wasm-bindgen crate)"
wb_version=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wb_version" ]; then
  # Not --locked: the CLI's own lock file pins crates that no longer build on current Rust.
  cargo install wasm-bindgen-cli --version "$wb_version"
fi
wasm-bindgen --version

step "npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
fi

if [ "$want_browser" = 1 ]; then
  step "Chromium for browser tests"
  if ! command -v chromium >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  fi
  chromium --version || true
fi

if [ "$want_model" = 1 ]; then
  step "Embedding models"
  bash scripts/fetch-model.sh
  bash scripts/fetch-e5.sh
fi
