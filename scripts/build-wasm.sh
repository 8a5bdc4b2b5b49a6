#!/usr/bin/env bash
# Builds the search engine's wasm modules (crates/midashi-wasm) that web/wasm-modules.json
# lists into web/dist/wasm/ for the `midashi` npm package: the keyword module (sharded
# indexes, English stemming: every page's first module), the same with every language's
# stemmer, and the full engine. The semantic module is scripts/build-wasm-embed.sh's.
#
#   scripts/build-wasm.sh [dev|release]     (default: release)
#
# release: `size` modules: cargo profile `wasm-release` (size-optimised, fat LTO; ~minutes on
#          2 cores), then wasm-opt -Oz from the npm `binaryen` package; the full engine, which
#          no first query loads, `wasm-release-fast` (opt-level 2) and wasm-opt -O3: twice as
#          fast.
# dev:     cargo profile `wasm-dev` (no LTO, incremental), no wasm-opt: for the edit-test loop.
#
# Idempotent: every tool is checked before it is installed, and cargo/wasm-bindgen rewrite
# their outputs in place. Uses $CARGO_TARGET_DIR if set, else target-wasm/ (kept apart from
# the native target dir so wasm and native builds do not evict each other's artifacts).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-release}"
# fast_profile: the modules no served site's first query loads (the keyword module of the
# npm package's JS API, the full engine) are built for speed (Cargo.toml says why).
case "$mode" in
  release) profile=wasm-release; fast_profile=wasm-release-fast ;;
  dev) profile=wasm-dev; fast_profile=wasm-dev ;;
  *) echo "build-wasm.sh: unknown mode '$mode' (use dev or release)" >&2; exit 2 ;;
esac

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target-wasm}"
out_dir=web/dist/wasm

# The target is a rustup component; `target add` is a no-op when it is there already.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

# wasm-bindgen's CLI and crate must be the same version, or the glue it writes does not
# match the module (a load-time error). The pin lives in the root Cargo.toml only.
wb_version=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
if [ -z "$wb_version" ]; then
  echo "build-wasm.sh: no exact wasm-bindgen pin (wasm-bindgen = \"=X.Y.Z\") in Cargo.toml" >&2
  exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wb_version" ]; then
  # Not --locked: the CLI's own lock file pins crates that no longer build on current Rust.
  cargo install wasm-bindgen-cli --version "$wb_version"
fi

# The modules come from one crate, by features (crates/midashi-wasm/Cargo.toml). Cargo
# writes each to the same artifact path, so each is taken through wasm-bindgen before the
# next build.
# Panic locations name their source file, and every file's path is a string in the module:
# long ones (a dependency's path in the local registry, the engine's folders) cost the
# first query bytes for nothing a reader of a panic message needs. They are shortened to
# the path inside the crate's source (`layout/sharded/read.rs:123`, `fst-0.4.7/src/…`).
remap="--remap-path-prefix=$PWD/= --remap-path-prefix=crates/midashi-core/src/= --remap-path-prefix=crates/midashi-wasm/src/=wasm/"
for registry in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  [ -d "$registry" ] && remap="$remap --remap-path-prefix=$registry="
done
wasm_rustflags="${RUSTFLAGS:+$RUSTFLAGS }$remap"

# std's source, to compile std with a size module (build_module). Installed once; where rustup
# cannot fetch it the module is built against the precompiled std, ~13 KB gzip larger.
have_rust_src() {
  rustup component list --installed 2>/dev/null | grep -q '^rust-src' && return 0
  rustup component add rust-src >&2 && return 0
  echo "build-wasm.sh: rustup could not add rust-src; the size modules are built against the precompiled std (~13 KB gzip larger)" >&2
  return 1
}

build_module() {
  local name="$1"
  shift
  # `--fast`: built with $fast_profile, and wasm-opt optimising for speed.
  local profile="$profile" opt_flags="--flatten --rereloop -Oz -Oz --converge" rustflags="$wasm_rustflags"
  if [ "${1:-}" = --fast ]; then
    shift
    profile="$fast_profile"
    opt_flags="-O3"
  fi
  # `--inline`: a size-first module whose keystrokes walk long lists (a large site's). At
  # opt-level "z" LLVM inlines almost nothing, so each posting of a walk called Vec's
  # indexing, Option's == and Peekable::peek as functions; its inliner at threshold 40
  # runs the mix's slowest keystrokes in 0.66x the instructions in Node for +0.4 KB gzip
  # (60: 0.60x, +3.0 KB; 100: 0.59x, +6.9 KB; bench/instructions.sh --node, 2026-12-03).
  local build_std=()
  if [ "${1:-}" = --inline ]; then
    shift
    rustflags="$rustflags -C llvm-args=-inline-threshold=40"
    # A release of a size module compiles std with it (opt-level "z", and a panic traps at
    # once instead of formatting its message): 156.3 → 142.8 KB gzip for the keyword module,
    # the first query's largest file. Both are -Z options, accepted by the stable compiler
    # under RUSTC_BOOTSTRAP=1 (as scripts/fuzz.sh does); they need rustup's rust-src.
    if [ "$mode" = release ] && have_rust_src; then
      rustflags="$rustflags -Zunstable-options -Cpanic=immediate-abort"
      build_std=(-Z build-std=std,panic_abort)
    fi
  fi
  # A module may go to its own folder under its keyword-module name (`dir:name`): the wasm
  # imports its glue by that name, so one glue (the file:// bundle's) can start either.
  local out_dir="$out_dir"
  if [[ "$name" == */* ]]; then
    out_dir="$out_dir/${name%/*}"
    name="${name#*/}"
  fi
  echo "== cargo build -p midashi-wasm $* --profile $profile (wasm32-unknown-unknown) -> $name"
  local bootstrap=()
  [ ${#build_std[@]} -gt 0 ] && bootstrap=(RUSTC_BOOTSTRAP=1)
  env ${bootstrap[@]+"${bootstrap[@]}"} RUSTFLAGS="$rustflags" \
    cargo build -p midashi-wasm --target wasm32-unknown-unknown --profile "$profile" \
    ${build_std[@]+"${build_std[@]}"} "$@"

  local raw="$CARGO_TARGET_DIR/wasm32-unknown-unknown/$profile/midashi_wasm.wasm"
  mkdir -p "$out_dir"
  # --target web: an ES module whose init() takes bytes, a URL or a compiled module, so the
  # same glue runs in a page, a Web Worker and Node (which hands it bytes read from disk).
  echo "== wasm-bindgen $wb_version --target web"
  # --experimental-reset-state-function: after a trap the host asks the same glue for a
  # fresh instance (__wbg_reset_state) instead of importing another copy of it; imported
  # ES modules are never collected, and each copy kept its dead instance's memory alive.
  wasm-bindgen "$raw" --out-dir "$out_dir" --out-name "$name" --target web --experimental-reset-state-function \
    $([ "$mode" = dev ] && echo --debug || true)

  if [ "$mode" = release ]; then
    local wasm_opt=node_modules/.bin/wasm-opt
    if [ ! -x "$wasm_opt" ]; then
      # binaryen is a pinned devDependency of the root package: install what the lockfile says.
      npm ci --no-audit --no-fund
    fi
    # The features rustc enables by default for wasm32-unknown-unknown; wasm-opt refuses a
    # module that uses a feature it was not told about.
    # --low-memory-unused: Rust places data and the stack's base at 1 MB, so the first
    # 1 KB is never read or written and wasm-opt may fold offsets into addresses.
    # --flatten --rereloop before -Oz lets it rebuild control flow more compactly. Both
    # measured on the keyword module: 119.3 → 117.8 KB gzip; ~20 s more per module.
    # --strip-producers --strip-target-features: two custom sections (toolchain names, the
    # features the linker saw; ~260 bytes) that no runtime reads.
    # -O3 for the fast modules: -Oz's passes made the same code 7 % slower for ~2 KB, and
    # -O3 runs the mix's slowest keystrokes in Node in 0.94x the instructions of -Os
    # (valgrind over node, 2026-12-03) for 0.2 KB gzip less; -O2 0.94x, +1.6 KB.
    echo "== wasm-opt --low-memory-unused $opt_flags --strip-producers --strip-target-features"
    "$wasm_opt" --low-memory-unused $opt_flags \
      --strip-producers --strip-target-features \
      --enable-bulk-memory --enable-multivalue --enable-mutable-globals \
      --enable-nontrapping-float-to-int --enable-reference-types --enable-sign-ext \
      "$out_dir/${name}_bg.wasm" -o "$out_dir/${name}_bg.wasm.opt"
    mv "$out_dir/${name}_bg.wasm.opt" "$out_dir/${name}_bg.wasm"
    # The glue is fetched with the module by every first query: minified it is 5.6 → ~3 KB
    # gzip. Its exports and the wasm import names (strings) are unchanged.
    echo "== esbuild --minify $name.js"
    node_modules/.bin/esbuild "$out_dir/$name.js" --minify --format=esm \
      --log-level=warning --outfile="$out_dir/$name.min.js"
    mv "$out_dir/$name.min.js" "$out_dir/$name.js"
  fi

  local bytes gz
  bytes=$(wc -c <"$out_dir/${name}_bg.wasm")
  gz=$(gzip -9c "$out_dir/${name}_bg.wasm" | wc -c)
  echo "== $out_dir/${name}_bg.wasm: $bytes bytes ($gz gzip -9) [$mode]"
}

# The modules are web/wasm-modules.json's (one line each: name, out, features, build); the
# semantic one is scripts/build-wasm-embed.sh's. Built in the manifest's order: the two `size`
# modules share --inline's RUSTFLAGS, and every change of RUSTFLAGS rebuilds all crates.
# MIDASHI_WASM_ONLY="keyword full …": build only these (measuring one change).
wanted() { [ -z "${MIDASHI_WASM_ONLY:-}" ] || [[ " $MIDASHI_WASM_ONLY " == *" $1 "* ]]; }
modules=$(node -e '
  const { modules } = JSON.parse(require("fs").readFileSync("web/wasm-modules.json", "utf8"));
  for (const m of modules.filter((m) => m.crate === "midashi-wasm")) {
    console.log([m.name, m.out, m.features.join(","), m.build].join(" "));
  }')
while read -r name out features build; do
  wanted "$name" || continue
  case "$build" in
    size) how=--inline ;;
    speed) how=--fast ;;
    *) echo "build-wasm.sh: web/wasm-modules.json: $name has build '$build' (size or speed)" >&2; exit 1 ;;
  esac
  if [ "$features" = default ]; then
    build_module "${out#wasm/}" "$how" </dev/null
  else
    build_module "${out#wasm/}" "$how" --no-default-features --features "$features" </dev/null
  fi
done <<<"$modules"
