#!/usr/bin/env bash
# Instructions a round of keyword queries costs, for one or more builds: natively (builds of
# the `keyword_latency` example), or with --node in Node through the JS API and its wasm
# modules (copies of web/dist): a measure that does not move with the machine's load.
#
#   bench/instructions.sh <index> <queries> "<keyword_latency options>" BIN [BIN…]
#   bench/instructions.sh --node <index> <queries> '<search options as JSON>' DIST [DIST…]
#   e.g. bench/instructions.sh /tmp/mix/index /tmp/mix/queries.txt "--group --ids" \
#          /tmp/kl-before target/release/examples/keyword_latency
#        bench/instructions.sh --node /tmp/mix/index /tmp/mix/slow30.txt '{"limit":5}' /tmp/before web/dist
#
# Why: this 2-core VM is shared, and the same binary's p50 moves by a third from one run to
# the next (mix 0.37–0.61 ms on 2026-12-02), so a 5–10 % change in the engine cannot be seen
# in wall time; the VM exposes no hardware counters to `perf stat` either. Valgrind's
# cachegrind counts every instruction executed — under --node V8's compiled wasm as well
# (--smc-check: code written at run time), so it tells what V8 makes of a module's wasm-opt
# flags or Rust profile; V8 compiles in background threads, so those counts move by 1–2 %
# between runs. Each build answers the queries a few rounds and more; half the difference is
# one round's instructions (loading the module and the index, the same for every build,
# cancels out). Instructions are not time — cache misses and branch mispredictions are not
# in them — so a change is confirmed in wall time (`npm run bench:ab`, `bench:speed`) as
# well; but a change that adds no instructions and removes none is no speed-up.
#
# Build each BIN with `cargo build --release -p midashi-core --example keyword_latency` at the
# revision to compare and copy target/release/examples/keyword_latency aside; each DIST is a
# copy of web/dist (index.js and wasm/) with a build's modules, as for `npm run bench:ab`
# (<queries>: one per line; `supersede` and `cache` are set false). Installs valgrind
# (Debian's package) when it is missing. Prints figures; asserts nothing.
set -euo pipefail
node=
if [ "${1:-}" = --node ]; then
  node=1
  shift
fi
if [ $# -lt 4 ]; then
  sed -n '6,7p' "$0" >&2
  exit 2
fi
index=$1 queries=$2 options=$3
shift 3
if ! command -v valgrind >/dev/null; then
  apt-get update -q && apt-get install -y -q valgrind
fi
# The queries in Node: DIST's JS API opens the index and asks each query `rounds` times.
script=$(mktemp --suffix=.mjs)
trap 'rm -f "$script"' EXIT
cat >"$script" <<'JS'
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const [dist, index, queries, options, rounds] = process.argv.slice(2);
const { Midashi } = await import(pathToFileURL(path.resolve(dist, "index.js")).href);
const idx = await Midashi.load(index);
const list = readFileSync(queries, "utf8").split("\n").filter((l) => l.trim());
const opts = { ...JSON.parse(options), supersede: false, cache: false };
for (let r = 0; r < Number(rounds); r++) for (const q of list) await idx.search(q, opts);
JS
# One run's instruction count ("I refs"), digits only.
count() {
  if [ -n "$node" ]; then
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null --smc-check=all-non-file \
      node "$script" "$1" "$index" "$queries" "$options" "$2" 2>&1 >/dev/null
  else
    # shellcheck disable=SC2086 # the options are words
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
      "$1" "$index" "$queries" $options --rounds "$2" 2>&1 >/dev/null
  fi | sed -n 's/.*I *refs: *//p' | tr -d ,
}
# One round's instructions of a build: a run that printed no count (the build failed, or took
# other arguments) stops the script with its name, not with an arithmetic error. Natively 2
# and 4 rounds, in Node 1 and 3 (each Node round costs more to count).
round() {
  local few many
  if [ -n "$node" ]; then few=1 many=3; else few=2 many=4; fi
  few=$(count "$1" "$few")
  many=$(count "$1" "$many")
  if [ -z "$few" ] || [ -z "$many" ]; then
    echo "bench/instructions.sh: $1 printed no instruction count; run it alone (without valgrind) to see why" >&2
    exit 1
  fi
  echo $(((many - few) / 2))
}
first=
for build in "$@"; do
  round=$(round "$build")
  first=${first:-$round}
  printf '%s: %d M instructions a round (%s × the first)\n' "$build" $((round / 1000000)) \
    "$(awk -v a="$round" -v b="$first" 'BEGIN { printf "%.3f", a / b }')"
done
