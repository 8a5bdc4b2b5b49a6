#!/usr/bin/env bash
# The demo: builds everything, turns a docs folder into a searchable static site and serves it.
#
#   scripts/demo.sh [docs-dir] [--port N] [--no-serve] [--dev]
#
# docs-dir defaults to docs/ (Midashi's own documentation). The site goes to out/demo/ and is
# served on http://127.0.0.1:8080 (or --port). --no-serve stops after the build (tests, CI);
# --dev builds unoptimised (minutes instead of a quarter hour on 2 cores; slower search).
# Every step is idempotent: a second run rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

docs=docs
port=8080
serve=1
dev=0
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port="${2:?--port needs a number}"; shift 2 ;;
    --port=*) port="${1#--port=}"; shift ;;
    --no-serve) serve=0; shift ;;
    --dev) dev=1; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    -*) echo "demo.sh: unknown option $1" >&2; exit 2 ;;
    *) docs="$1"; shift ;;
  esac
done
if [ ! -d "$docs" ]; then
  echo "demo.sh: $docs is not a folder of Markdown" >&2
  exit 2
fi

step() { printf '\n== %s\n' "$*"; }

step "setup (toolchain, npm packages, the embedding model)"
bash scripts/setup.sh --model

if [ "$dev" = 1 ]; then profile=debug; wasm_mode=dev; cargo_flags=(); else profile=release; wasm_mode=release; cargo_flags=(--release); fi
step "build-index ($profile)"
cargo build "${cargo_flags[@]}" -p build-index
bin="${CARGO_TARGET_DIR:-target}/$profile/build-index"

step "wasm module ($wasm_mode)"
bash scripts/build-wasm.sh "$wasm_mode"

# The semantic module (tract + tokenizer): the release build takes 11-14 min cold on 2 cores
# (fat LTO), seconds when nothing changed.
embed_profile=$([ "$dev" = 1 ] && echo wasm-dev || echo wasm-embed-release)
step "semantic wasm module ($embed_profile)"
bash scripts/build-wasm-embed.sh "$embed_profile"

step "JavaScript package and widget"
npm run --silent build:widget

step "index and site: $docs -> out/demo"
"$bin" "$docs" --out out/demo --site --slug github

if [ "$serve" = 0 ]; then
  echo "Built out/demo (open out/demo/index.html, or serve it: node scripts/serve.mjs out/demo)"
  exit 0
fi
step "serving"
echo "Open http://127.0.0.1:$port/ and press / or Ctrl+K (⌘K) to search: keyword results at once; a question (\"how do I use it offline?\") or \"Search by meaning\" loads the model, then results are hybrid (keyword + semantic)."
exec node scripts/serve.mjs out/demo --port "$port"
