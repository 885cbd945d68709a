#!/usr/bin/env bash
# Compiles GPU plans for test/gpu/check.sh and bench/gpu/compare.py. Runs where
# fusec is built (it needs LLVM/MLIR and NVRTC, which the GPU machine need not
# have); copy the output folder to the GPU machine.
#
#   test/gpu/make-plans.sh OUT_DIR [MODEL ...]
#
# Writes OUT_DIR/<name>.plan for every shared test model
# (test/data/models/<name>/model.onnx) and for each extra MODEL (.onnx or
# fusec-graph .json; <name> is its file name without the extension), e.g. the
# resnet50.onnx that `bench/gpu/compare.py export` writes. Each ONNX model is
# copied beside its plan (OUT_DIR/<name>.onnx) for bench/gpu/compare.py.
# Environment: FUSEC (default build/bin/fusec), FUSEC_TARGET (default sm_90:
# the GPU's architecture, for which CUBINs are built; other GPUs JIT the PTX),
# FUSEC_KERNEL_VARIANTS (default 3: the configs of each conv/GEMM kernel the
# plans carry, for check.sh's tuned runs).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [[ $# -lt 1 ]]; then
  sed -n '5,14p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
out=$1
shift
fusec=${FUSEC:-$root/build/bin/fusec}
target=${FUSEC_TARGET:-sm_90}
variants=${FUSEC_KERNEL_VARIANTS:-3}
[[ -x $fusec ]] || { echo "make-plans.sh: no fusec at $fusec (set FUSEC)" >&2; exit 1; }
mkdir -p "$out"

compile() { # MODEL NAME
  echo "fusec $1 --target=$target --kernel-variants=$variants -> $out/$2.plan"
  "$fusec" "$1" --target="$target" --kernel-variants="$variants" -o "$out/$2.plan"
  if [[ $1 == *.onnx ]]; then
    cp "$1" "$out/$2.onnx"
  fi
}
for model in "$root"/test/data/models/*/model.onnx; do
  compile "$model" "$(basename "$(dirname "$model")")"
done
for model in "$@"; do
  name=$(basename "$model")
  compile "$model" "${name%.*}"
done
