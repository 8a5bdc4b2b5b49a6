#!/usr/bin/env bash
# Builds the semantic wasm module (crates/midashi-wasm-embed: tokenizer + the purpose-written
# BERT encoder of midashi-embed/src/bert), in two
# flavours of wasm-bindgen glue (both ignored by git):
#
#   web/dist/embed/        --target web     (ES module: what the `midashi` package loads lazily
#                                            in a page, a Web Worker or Node; --site copies it)
#   web/pkg/embed/node/    --target nodejs  (CommonJS; tests/node/embed-parity.test.mjs)
#
#   scripts/build-wasm-embed.sh [wasm-dev|wasm-embed-release]     (default: wasm-dev)
#
# wasm-dev:            no LTO, incremental: minutes, for the edit-test loop.
# wasm-embed-release:  fat LTO, opt-level 3: 11-14 min cold on 2 cores; what ships.
#
# Always built with wasm SIMD (+simd128): the encoder's dense layers are written for the
# compiler to vectorise, and every browser that can run a 10 MB model has it. Uses $CARGO_TARGET_DIR if set, else
# target-wasm/ (shared with scripts/build-wasm.sh; apart from the native target dir).
set -euo pipefail
cd "$(dirname "$0")/.."

profile="${1:-wasm-dev}"
case "$profile" in
  wasm-dev | wasm-embed-release) ;;
  dev) profile=wasm-dev ;;
  release) profile=wasm-embed-release ;;
  *) echo "build-wasm-embed.sh: unknown profile '$profile' (use wasm-dev or wasm-embed-release)" >&2; exit 2 ;;
esac

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target-wasm}"
web_dir=web/dist/embed
node_dir=web/pkg/embed/node

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

# The CLI must match the crate version exactly, or the glue does not match the module.
wb_version=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
if [ -z "$wb_version" ]; then
  echo "build-wasm-embed.sh: no exact wasm-bindgen pin (wasm-bindgen = \"=X.Y.Z\") in Cargo.toml" >&2
  exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wb_version" ]; then
  echo "build-wasm-embed.sh: wasm-bindgen CLI $wb_version is required; install it with" >&2
  echo "  cargo install wasm-bindgen-cli --version $wb_version   (or run scripts/setup.sh)" >&2
  exit 1
fi

# RUSTFLAGS is appended to, not replaced, so a caller's flags survive. It also keys cargo's
# cache: keep it identical between runs or everything rebuilds.
export RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128"
echo "== cargo build -p midashi-wasm-embed --profile $profile (wasm32-unknown-unknown, simd128)"
cargo build -p midashi-wasm-embed --target wasm32-unknown-unknown --profile "$profile"

raw="$CARGO_TARGET_DIR/wasm32-unknown-unknown/$profile/midashi_wasm_embed.wasm"
for target in web nodejs; do
  dir="$([ "$target" = nodejs ] && echo "$node_dir" || echo "$web_dir")"
  mkdir -p "$dir"
  echo "== wasm-bindgen $wb_version --target $target -> $dir"
  wasm-bindgen "$raw" --out-dir "$dir" --out-name midashi_wasm_embed --target "$target"
done
# The nodejs glue is CommonJS, but web/package.json says "type": "module": without a nearer
# package.json, Node would parse it as an ES module and fail on `exports`.
echo '{ "type": "commonjs" }' >"$node_dir/package.json"

if [ "$profile" = wasm-embed-release ]; then
  wasm_opt=node_modules/.bin/wasm-opt
  [ -x "$wasm_opt" ] || npm ci --no-audit --no-fund
  # -O3, not -Oz: this module is judged by encode latency. Same feature flags as rustc's
  # defaults plus SIMD, or wasm-opt refuses the module.
  echo "== wasm-opt -O3"
  "$wasm_opt" -O3 --enable-simd \
    --enable-bulk-memory --enable-multivalue --enable-mutable-globals \
    --enable-nontrapping-float-to-int --enable-reference-types --enable-sign-ext \
    "$web_dir/midashi_wasm_embed_bg.wasm" -o "$web_dir/midashi_wasm_embed_bg.wasm.opt"
  mv "$web_dir/midashi_wasm_embed_bg.wasm.opt" "$web_dir/midashi_wasm_embed_bg.wasm"
fi

bytes=$(wc -c <"$web_dir/midashi_wasm_embed_bg.wasm")
if command -v brotli >/dev/null 2>&1; then
  packed="$(brotli -c -q 11 "$web_dir/midashi_wasm_embed_bg.wasm" | wc -c) brotli"
else
  packed="$(gzip -9c "$web_dir/midashi_wasm_embed_bg.wasm" | wc -c) gzip -9"
fi
echo "== $web_dir/midashi_wasm_embed_bg.wasm: $bytes bytes ($packed) [$profile]"
