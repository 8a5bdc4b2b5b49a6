#!/usr/bin/env bash
# Runs Midashi's coverage-guided fuzz targets (fuzz/, cargo-fuzz + libFuzzer) for a time
# budget each and reports executions, executions per second and crashes.
#
#   scripts/fuzz.sh <seconds> [target ...]      targets: load_index load_sharded query markdown (default: all)
#
# Exits non-zero if any target crashed (a panic, an AddressSanitizer report, a hang past
# 10 s on one input, or memory past 2 GB); the crashing input is kept in
# fuzz/artifacts/<target>/ — reproduce it with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run <target> --features libfuzzer fuzz/artifacts/<target>/<file>   (in fuzz/)
# and commit it to fuzz/regressions/<target>-<what>.bin: `cargo test` replays every seed,
# regression and corpus input through the targets (fuzz/tests/replay.rs).
#
# Only the stable toolchain is installed: RUSTC_BOOTSTRAP=1 lets it accept the -Z flags that
# cargo-fuzz passes. AddressSanitizer is used when it builds; otherwise the targets are built
# without a sanitizer (panics and overflow checks still count as crashes; the engine has no
# unsafe code of its own). The fuzz builds use their own target folder ($FUZZ_TARGET_DIR,
# default target/fuzz) because their flags differ from normal builds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

BUILD_ONLY=0
if [[ ${1:-} == --build ]]; then
    BUILD_ONLY=1
    set -- 0 "${@:2}"
fi
if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz.sh <seconds per target> [load_index|load_sharded|query|markdown ...]" >&2
    echo "       scripts/fuzz.sh --build   (build the targets only; scripts/test.sh does it in the background)" >&2
    exit 64
fi
SECONDS_EACH=$1
shift
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then
    TARGETS=(load_index load_sharded query markdown)
fi

export RUSTC_BOOTSTRAP=1
FUZZ_TARGET_DIR=${FUZZ_TARGET_DIR:-$ROOT/target/fuzz}
# Line tables in crash reports (the workspace's release profile has none).
export CARGO_PROFILE_RELEASE_DEBUG=1

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

cd fuzz
# The sanitizer the last build could use, so that a run after `--build` does not try (and
# fail) AddressSanitizer again.
SANITIZER_FILE="$FUZZ_TARGET_DIR/sanitizer"
SANITIZER=$(cat "$SANITIZER_FILE" 2>/dev/null || echo address)
echo "== building fuzz targets (sanitizer: $SANITIZER)"
if ! cargo fuzz build --features libfuzzer --sanitizer "$SANITIZER" --target-dir "$FUZZ_TARGET_DIR"; then
    SANITIZER=none
    echo "== AddressSanitizer build failed: building without a sanitizer"
    cargo fuzz build --features libfuzzer --sanitizer none --target-dir "$FUZZ_TARGET_DIR"
fi
mkdir -p "$FUZZ_TARGET_DIR"
echo "$SANITIZER" > "$SANITIZER_FILE"
if [[ $BUILD_ONLY == 1 ]]; then
    exit 0
fi

# Inputs longer than this are not generated: index files of the tiny fixture index are a
# few KB, queries past the engine's 4 KB cap must be tried, Markdown files are small.
max_len() {
    case $1 in
        load_index) echo 65536 ;;
        query) echo 8192 ;;
        *) echo 16384 ;;
    esac
}

failed=()
report=()
for t in "${TARGETS[@]}"; do
    work="$FUZZ_TARGET_DIR/corpus/$t"   # grows as the fuzzer learns; not committed
    art="$ROOT/fuzz/artifacts/$t"
    mkdir -p "$work" "$art"
    log="$FUZZ_TARGET_DIR/$t.log"
    echo "== fuzzing $t for ${SECONDS_EACH}s"
    set +e
    cargo fuzz run "$t" --features libfuzzer --sanitizer "$SANITIZER" --target-dir "$FUZZ_TARGET_DIR" \
        "$work" "$ROOT/fuzz/seeds/$t" $([[ -d "$ROOT/fuzz/corpus/$t" ]] && echo "$ROOT/fuzz/corpus/$t") -- \
        -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$(max_len "$t")" -artifact_prefix="$art/" -print_final_stats=1 \
        >"$log" 2>&1
    status=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    corpus=$(find "$work" -type f | wc -l)
    if [[ $status -ne 0 ]]; then
        failed+=("$t")
        grep -E "panicked|ERROR: |SUMMARY|Test unit written" "$log" | head -20 || true
        echo "   full log: $log"
        result=CRASH
    else
        result=ok
    fi
    report+=("$(printf '%-11s %-6s %12s execs %8s exec/s  corpus %5s  peak %5s MB' \
        "$t" "$result" "${execs:-?}" "${rate:-?}" "$corpus" "${rss:-?}")")
done

echo
echo "== fuzz summary (${SECONDS_EACH}s per target, sanitizer: $SANITIZER)"
printf '%s\n' "${report[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "crashed: ${failed[*]} (inputs in fuzz/artifacts/)"
    exit 1
fi
