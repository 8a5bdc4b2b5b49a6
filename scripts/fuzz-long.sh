#!/usr/bin/env bash
# The long fuzz run: a fixed number of executions per target (10 million in all by default),
# two targets at a time (one per core), growing the committed corpora in fuzz/corpus/, then
# minimising them and printing a report (fuzz/README.md carries the figures).
#
#   scripts/fuzz-long.sh                       # the default budget, about an hour on 2 cores
#   scripts/fuzz-long.sh load_sharded=200000   # chosen targets and executions
#
# Sanitizer: none by default (MIDASHI_FUZZ_SANITIZER=address to change). The engine has no
# unsafe code of its own, so what a long run looks for — panics, overflow and debug
# assertions (all on in fuzz builds), hangs, memory past 2 GB — needs no AddressSanitizer,
# which costs 3-4x the executions; scripts/fuzz.sh's short runs keep it.
#
# Exits non-zero if a target crashed; the input is kept in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export RUSTC_BOOTSTRAP=1
SANITIZER=${MIDASHI_FUZZ_SANITIZER:-none}
FUZZ_TARGET_DIR=${FUZZ_TARGET_DIR:-$ROOT/target/fuzz-$SANITIZER}
JOBS=${MIDASHI_FUZZ_JOBS:-2}

# Executions per target: the fast targets take more of the 10 million.
PLAN=("$@")
if [[ ${#PLAN[@]} -eq 0 ]]; then
    PLAN=(load_sharded=2500000 markdown=5000000 load_index=2000000 query=500000)
fi

max_len() {
    case $1 in
        load_index) echo 65536 ;;
        query) echo 8192 ;;
        *) echo 16384 ;;
    esac
}

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi
echo "== building fuzz targets (sanitizer: $SANITIZER)"
(cd fuzz && cargo fuzz build --features libfuzzer --sanitizer "$SANITIZER" --target-dir "$FUZZ_TARGET_DIR")
BIN_DIR=$(dirname "$(find "$FUZZ_TARGET_DIR" -path '*/release/load_index' -type f | head -1)")

run_one() {
    local t=$1 runs=$2
    local corpus="$ROOT/fuzz/corpus/$t" art="$ROOT/fuzz/artifacts/$t" log="$FUZZ_TARGET_DIR/long-$t.log"
    mkdir -p "$corpus" "$art"
    local started=$SECONDS status=0
    "$BIN_DIR/$t" "$corpus" "$ROOT/fuzz/seeds/$t" -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$(max_len "$t")" -artifact_prefix="$art/" -print_final_stats=1 >"$log" 2>&1 || status=$?
    echo "$t $status $((SECONDS - started))" >"$FUZZ_TARGET_DIR/long-$t.status"
}

echo "== running ${PLAN[*]} ($JOBS at a time)"
for entry in "${PLAN[@]}"; do
    t=${entry%%=*}
    runs=${entry#*=}
    while [[ $(jobs -rp | wc -l) -ge $JOBS ]]; do
        wait -n || true
    done
    echo "   $t: $runs executions"
    run_one "$t" "$runs" &
done
wait

echo "== minimising the corpora (fuzz/corpus/<target>, committed)"
for entry in "${PLAN[@]}"; do
    t=${entry%%=*}
    corpus="$ROOT/fuzz/corpus/$t"
    merged="$FUZZ_TARGET_DIR/merged-$t"
    rm -rf "$merged" && mkdir -p "$merged"
    "$BIN_DIR/$t" -merge=1 -max_len="$(max_len "$t")" "$merged" "$corpus" >"$FUZZ_TARGET_DIR/merge-$t.log" 2>&1
    rm -rf "$corpus" && mv "$merged" "$corpus"
done

failed=()
total=0
echo
echo "| target | executions | seconds | exec/s | coverage (edges) | corpus (files) | peak RSS (MB) | result |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
for entry in "${PLAN[@]}"; do
    t=${entry%%=*}
    log="$FUZZ_TARGET_DIR/long-$t.log"
    read -r _ status secs <"$FUZZ_TARGET_DIR/long-$t.status"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    files=$(find "$ROOT/fuzz/corpus/$t" -type f | wc -l)
    result=ok
    if [[ $status -ne 0 ]]; then
        result=CRASH
        failed+=("$t")
        grep -E "panicked|ERROR: |SUMMARY|Test unit written" "$log" | head -20 >&2 || true
    fi
    total=$((total + ${execs:-0}))
    echo "| $t | ${execs:-?} | $secs | $(( ${execs:-0} / (secs > 0 ? secs : 1) )) | ${cov:-?} | $files | ${rss:-?} | $result |"
done
echo
echo "$total executions in all (sanitizer: $SANITIZER, $(nproc) cores, $(date -u +%Y-%m-%d))"
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "crashed: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
    exit 1
fi
