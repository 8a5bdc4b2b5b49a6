#!/usr/bin/env bash
# Every test of Midashi, as CI runs it (.ci/run calls exactly this):
#   Rust unit + integration + quality tests (BEIR sets and the shared corpora from ../shared),
#   the wasm modules, Node tests (JS API, parity with the CLI, errors, semantic module),
#   and browser tests in headless Chromium (widget, static site, accessibility, semantic),
#   scenarios (VitePress, Docusaurus, Starlight, mdBook, Vite, webpack, esbuild from the
#   registries, indexed and searched through the packed npm tarball). The Rust tests replay
#   every committed fuzz input through the fuzz targets (fuzz/tests/replay.rs).
# Installs what it needs first (scripts/setup.sh), idempotently.
#
#   scripts/test.sh                     every test (what CI runs)
#   scripts/test.sh --only rust,node    these steps (set-up always runs)
#   scripts/test.sh --skip scenarios
#
# Steps: format, clippy, structure, rust, neutrality, node (the wasm modules, the package, Node and
# browser tests), scenarios (the npm package's indexer, real generators and bundlers); and,
# only when named (`--only fuzz`), fuzz: a 10-second coverage-guided run of each target with
# cargo-fuzz (`scripts/fuzz.sh 600` is a real one), which needs its own sanitizer build.
# For a developer's loop, scripts/check.sh is faster.
set -euo pipefail
cd "$(dirname "$0")/.."

STEPS="format clippy structure rust neutrality node scenarios fuzz"
only=""
skip=""
while [ $# -gt 0 ]; do
    case "$1" in
        --only) only="${2:?--only needs a list of steps}"; shift 2 ;;
        --only=*) only="${1#--only=}"; shift ;;
        --skip) skip="${2:?--skip needs a list of steps}"; shift 2 ;;
        --skip=*) skip="${1#--skip=}"; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "test.sh: unknown option $1 (steps: $STEPS)" >&2; exit 2 ;;
    esac
done
for name in ${only//,/ } ${skip//,/ }; do
    case " $STEPS " in
        *" $name "*) ;;
        *) echo "test.sh: no step named $name (steps: $STEPS)" >&2; exit 2 ;;
    esac
done
# Whether step $1 runs.
want() {
    case ",$skip," in *",$1,"*) return 1 ;; esac
    [ -z "$only" ] && [ "$1" != fuzz ] && return 0
    case ",$only," in *",$1,"*) return 0 ;; esac
    return 1
}

# One target dir for every build, so native, test and wasm builds share compiled crates.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
# Incremental caches double a debug build's footprint and a clean clone never reuses them.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# Each step says when it starts and how long the one before it took: CI's budget is 30 minutes,
# and the log is where a slow step shows.
STEP_AT=$SECONDS
step() {
    printf '\n== %s  [%s; previous step %d s]\n' "$*" "$(date +%T)" $((SECONDS - STEP_AT))
    STEP_AT=$SECONDS
}

# Say up front how much disk there is: a run that fills it fails mid-build (its footprint is printed at the end).
df -h "$CARGO_TARGET_DIR" 2>/dev/null || df -h .
step "set-up (scripts/setup.sh: toolchains, npm packages, Chromium; the models below)"
bash scripts/setup.sh --browser
# The models are installed below (awaited before any test runs) and the semantic module is
# built: the semantic tests (Rust and Node) must run, not skip.
export MIDASHI_REQUIRE_SEMANTIC=1

# Work that waits mostly on the registries, or that the tests need only later, runs in the
# background from here, niced: it takes the cores the Rust build and tests leave idle (the
# build's long single-crate stretches, tests waiting on processes) instead of minutes of its
# own after them. Each job's log is printed when it is awaited (`await` fails as the job
# did), and a run that stops early stops them.
BG_LOGS="$CARGO_TARGET_DIR/ci-logs"
mkdir -p "$BG_LOGS"
declare -A BG_PID
background() {
    local name=$1 niceness=$2
    shift 2
    set -m # its own process group, so that stopping it stops its compilers too
    nice -n "$niceness" "$@" >"$BG_LOGS/$name.log" 2>&1 &
    BG_PID[$name]=$!
    set +m
}
await() {
    local name=$1 status=0
    wait "${BG_PID[$name]}" || status=$?
    unset "BG_PID[$name]"
    printf -- '-- background job %s (log %s):\n' "$name" "$BG_LOGS/$name.log"
    tail -n 40 "$BG_LOGS/$name.log"
    if [ "$status" != 0 ]; then
        echo "background job $name failed (exit $status); its whole log: $BG_LOGS/$name.log" >&2
    fi
    return "$status"
}
stop_background() {
    for pid in "${BG_PID[@]}"; do
        kill -- "-$pid" 2>/dev/null || true
    done
}
trap stop_background EXIT
# The embedding models (setup.sh --model): downloads and a Python conversion, ~2 of a clean
# clone's minutes, which the Rust build leaves cores for; awaited before the first tests.
if want rust || want node || want scenarios; then
    background models 5 bash -c 'bash scripts/fetch-model.sh && bash scripts/fetch-e5.sh'
fi
await_models() {
    if [ -n "${BG_PID[models]:-}" ]; then
        step "embedding models (installed in the background since the set-up)"
        await models
    fi
}
# The wasm modules in their own target folder: cargo locks a target folder while it runs, and
# the Rust tests hold this one.
# The wasm modules are awaited first (right after the Rust tests): less nice than the others,
# which are needed only at the end. A clean clone's run took 42 min with all three at 19,
# the wasm modules then finishing 7.8 min after the Rust tests.
if want node || want scenarios; then
    # Dev builds (no LTO, no wasm-opt): the tests check what the modules do, and the same
    # code does the same in a release build; fat LTO and wasm-opt's -Oz --converge for three
    # modules were ~8 minutes of CPU on two cores, which a clean clone's run waited on after
    # the Rust tests. `scripts/build-wasm.sh release` (the benchmarks, a release) prints the
    # shipped sizes.
    background wasm 10 env CARGO_TARGET_DIR="$PWD/target-wasm" \
        bash -c 'bash scripts/build-wasm.sh dev && bash scripts/build-wasm-embed.sh wasm-dev'
fi
if want scenarios; then
    # Niced by itself, for mdBook's compiling only (prefetch.mjs says why).
    background scenario-installs 0 node tests/scenarios/prefetch.mjs
fi
if want fuzz; then
    background fuzz-build 19 env -u CARGO_TARGET_DIR bash scripts/fuzz.sh --build
fi

if want format; then
    step "formatting"
    cargo fmt --all -- --check
fi

if want clippy && want rust; then
    # Clippy lints our crates as the Rust tests' build compiles them (clippy-driver in place of
    # rustc for workspace members, as `cargo clippy` itself does), so the dependencies are
    # compiled once, not also checked: `cargo clippy` from a clean clone took 6 of CI's minutes.
    # `cargo test` builds every target `--all-targets` names (lib, bins, tests, examples).
    # Later cargo commands keep the wrapper so that they reuse the build; the scenarios, which
    # install generators with cargo, run without it.
    clippy_driver=$(rustup which clippy-driver)
    export RUSTC_WORKSPACE_WRAPPER="$clippy_driver"
    export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
elif want clippy; then
    step "clippy (warnings are errors)"
    cargo clippy --workspace --all-targets --quiet -- -D warnings
fi

if want structure; then
    step "structure (no import cycle, no file over 600 lines, feature gates on modules)"
    node scripts/check-structure.mjs
    # BENCHMARKS.md and README's cost table are written from bench/results, never by hand.
    node bench/benchmarks.mjs --check
fi

if want rust; then
    step "Rust test build${RUSTC_WORKSPACE_WRAPPER:+ (clippy with warnings as errors)}"
    cargo test --workspace --no-run
    await_models
    step "Rust tests (unit, integration, quality)"
    cargo test --workspace
    if ! want node && ! want scenarios; then
        # The planner as the keyword modules build it (a background job beside the Node
        # tests otherwise).
        cargo test -p midashi-core --no-default-features --lib query::
    fi
fi

# The JS tests drive the same build-index the Rust tests just built (the engine crate is
# optimised even in dev builds), instead of compiling a second, release copy of everything.
export MIDASHI_BUILD_INDEX="$CARGO_TARGET_DIR/debug/build-index"
export BUILD_INDEX="$MIDASHI_BUILD_INDEX"
if (want neutrality || want node || want scenarios) && ! want rust; then
    # After the Rust step this is the binary its tests ran; `cargo build -p build-index`
    # there resolved the dependencies' features for one package, not the workspace, and
    # compiled tract again (2 of a clean clone's minutes).
    cargo build --quiet -p build-index
fi

if want neutrality; then
    step "index bytes unchanged (tests/neutrality/index-files.sha256)"
    bash scripts/neutrality.sh --bin "$MIDASHI_BUILD_INDEX" --check
fi

if want node || want scenarios; then
    await_models
    step "wasm modules (built in the background since the set-up)"
    await wasm

    step "JavaScript package and widget"
    npm run --silent build:widget
fi
if want rust && (want node || want scenarios); then
    # The query planner's tests as the keyword modules build it (without typo corrections),
    # beside the Node tests, which wait on Chromium as much as they compute. In the Rust
    # tests' target folder, where only midashi-core is compiled again (~20 s); in
    # target-wasm, which holds no native dependencies, it compiled 60 crates (105 s).
    background planner 10 cargo test --quiet -p midashi-core --no-default-features --lib query::
fi

if want node; then
    step "Node and browser tests"
    # The spec reporter ends with the failing tests, named, with their messages: the end of a
    # long log is what a CI summary shows.
    # Two files at a time (Node's default on two cores is one): the browser tests wait on
    # Chromium and servers as much as they compute; 3.9 → 3.0 min on 2 cores.
    node --test --test-concurrency=2 --test-reporter=spec tests/node/ tests/browser/
fi

if want scenarios; then
    unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
    step "npm package's indexer (the build-index just tested, stripped)"
    bash scripts/build-npm-native.sh --from "$MIDASHI_BUILD_INDEX"

    step "scenario installs (in the background since the set-up)"
    # A failed install is not fatal here: its scenario installs again and fails with the message.
    await scenario-installs || true

    step "scenarios: real generators and bundlers from the registries, the packed tarball, Chromium"
    # Installs are cached in .cache/scenarios, mdBook in ~/.cache/midashi/crates (kept across
    # clones); cargo is hidden from PATH for npx midashi.
    node --test --test-reporter=spec --test-concurrency=1 tests/scenarios/
fi

if want fuzz; then
    step "fuzz targets (built in the background since the set-up)"
    await fuzz-build

    step "fuzz smoke (10 s per target)"
    bash scripts/fuzz.sh 10
fi

if [ -n "${BG_PID[planner]:-}" ]; then
    step "the keyword modules' query planner (tested in the background since the Node tests)"
    await planner
fi

step "disk used by this run's builds"
du -sh "$CARGO_TARGET_DIR" .cache 2>/dev/null || true
step "all tests passed in $((SECONDS / 60)) min"
