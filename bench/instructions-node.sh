#!/usr/bin/env bash
# Instructions a round of keyword queries costs in Node, through the JS API and its wasm
# modules, for one or more builds of web/dist: bench/instructions.sh's measure for what
# V8 makes of a module (its wasm-opt flags, its Rust profile), where that script counts
# the native engine.
#
#   bench/instructions-node.sh <index> <queries> '<search options as JSON>' DIST [DIST…]
#   e.g. bench/instructions-node.sh /tmp/mix/index /tmp/mix/slow30.txt \
#          '{"limit":5,"previewLines":3,"preferLang":"en","facetsIfRanked":true}' /tmp/before web/dist
#
# DIST is a copy of web/dist (index.js and wasm/) with a build's modules in it, as for
# `npm run bench:ab`. <queries>: one query per line. `supersede` and `cache` are set false
# (every query is answered, none from the result cache).
#
# Why: on this shared 2-core VM the same build's wall time moves by a third between runs, so
# a 5 % change in a module is lost in it; valgrind counts every instruction executed,
# V8's compiled wasm included (--smc-check: code written at run time). Each DIST answers
# the queries 1 and 3 rounds; half the difference is one round (loading the module and the
# index cancel out). V8 compiles in background threads, so counts move between
# runs by 1–2 %; tiering is counted alike for every build. Instructions are not time: confirm with
# `npm run bench:ab` or `bench:speed`. Installs valgrind when missing; prints, asserts nothing.
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '7,9p' "$0" >&2
  exit 2
fi
index=$1 queries=$2 options=$3
shift 3
if ! command -v valgrind >/dev/null; then
  apt-get update -q && apt-get install -y -q valgrind
fi
script=$(mktemp --suffix=.mjs)
trap 'rm -f "$script"' EXIT
cat >"$script" <<'EOF'
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const [dist, index, queries, options, rounds] = process.argv.slice(2);
const { Midashi } = await import(pathToFileURL(path.resolve(dist, "index.js")).href);
const idx = await Midashi.load(index);
const list = readFileSync(queries, "utf8").split("\n").filter((l) => l.trim());
const opts = { ...JSON.parse(options), supersede: false, cache: false };
for (let r = 0; r < Number(rounds); r++) for (const q of list) await idx.search(q, opts);
EOF
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null --smc-check=all-non-file \
    node "$script" "$1" "$index" "$queries" "$options" "$2" 2>&1 >/dev/null |
    sed -n 's/.*I *refs: *//p' | tr -d ,
}
first=
for dist in "$@"; do
  one=$(count "$dist" 1)
  three=$(count "$dist" 3)
  if [ -z "$one" ] || [ -z "$three" ]; then
    echo "bench/instructions-node.sh: no instruction count for $dist (does $dist/index.js load, and the index and options?)" >&2
    exit 1
  fi
  round=$(((three - one) / 2))
  first=${first:-$round}
  printf '%s: %d M instructions a round (%s × the first)\n' "$dist" $((round / 1000000)) \
    "$(awk -v a="$round" -v b="$first" 'BEGIN { printf "%.3f", a / b }')"
done
