#!/usr/bin/env bash
# Instructions a round of keyword queries costs, natively, for one or more builds of the
# `keyword_latency` example: a measure that does not move with the machine's load.
#
#   bench/instructions.sh <index> <queries> "<keyword_latency options>" BIN [BIN…]
#   e.g. bench/instructions.sh /tmp/mix/index /tmp/mix/queries.txt "--group --ids" \
#          /tmp/kl-before target/release/examples/keyword_latency
#
# Why: this 2-core VM is shared, and the same binary's p50 moves by a third from one run to
# the next (mix 0.37–0.61 ms on 2026-12-02), so a 5–10 % change in the engine cannot be seen
# in wall time; the VM exposes no hardware counters to `perf stat` either. Valgrind's
# cachegrind counts every instruction executed. Each BIN runs the queries 2 and 4 rounds;
# half the difference is one round's instructions (loading the index, the same for every
# build, cancels out). Instructions are not time — cache misses and branch mispredictions
# are not in them — so a change is confirmed in wall time (`npm run bench:speed`) as well;
# but a change that adds no instructions and removes none is no speed-up.
#
# Build each BIN with `cargo build --release -p midashi-core --example keyword_latency` at the
# revision to compare and copy target/release/examples/keyword_latency aside. Installs
# valgrind (Debian's package) when it is missing. Prints figures; asserts nothing.
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '5,7p' "$0" >&2
  exit 2
fi
index=$1 queries=$2 options=$3
shift 3
if ! command -v valgrind >/dev/null; then
  apt-get update -q && apt-get install -y -q valgrind
fi
# One run's instruction count ("I refs"), digits only.
count() {
  # shellcheck disable=SC2086 # the options are words
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$1" "$index" "$queries" $options --rounds "$2" 2>&1 >/dev/null |
    sed -n 's/.*I *refs: *//p' | tr -d ,
}
# One round's instructions of BIN: a run that printed no count (the binary failed, or took
# other arguments) stops the script with its name, not with an arithmetic error.
round() {
  local two four
  two=$(count "$1" 2)
  four=$(count "$1" 4)
  if [ -z "$two" ] || [ -z "$four" ]; then
    echo "bench/instructions.sh: $1 printed no instruction count; run it alone: $1 $index $queries $options" >&2
    exit 1
  fi
  echo $(((four - two) / 2))
}
first=
for bin in "$@"; do
  round=$(round "$bin")
  first=${first:-$round}
  printf '%s: %d M instructions a round (%s × the first)\n' "$bin" $((round / 1000000)) \
    "$(awk -v a="$round" -v b="$first" 'BEGIN { printf "%.3f", a / b }')"
done
