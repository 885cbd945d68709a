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
# Also a transformer encoder layer with heads of 64 (examples/encoder_layer.py,
# E = 256, 4 heads, S = 256, written to OUT_DIR/src): encoder_d64.plan in f32
# (the 3xTF32 attention loop) and encoder_d64_fp16.plan / encoder_d64_bf16.plan
# (--precision=fp16/bf16: the f16/bf16 attention loop); and one with heads of
# 60 (E = 240), encoder_d60.plan: the SIMT attention loop; and
# encoder_d64_seqs.plan, the d64 layer with a named sequence length compiled
# at S = 128 and 256 (shape variants, which check.sh runs each).
# Environment: FUSEC (default build/bin/fusec), FUSEC_TARGET (default sm_90:
# the GPU's architecture, for which CUBINs are built; other GPUs JIT the PTX),
# FUSEC_KERNEL_VARIANTS (default 3: the configs of each conv/GEMM kernel the
# plans carry, for check.sh's tuned runs), PYTHON (default /usr/bin/python3,
# with numpy).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [[ $# -lt 1 ]]; then
  sed -n '5,24p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
out=$1
shift
fusec=${FUSEC:-$root/build/bin/fusec}
target=${FUSEC_TARGET:-sm_90}
variants=${FUSEC_KERNEL_VARIANTS:-3}
[[ -x $fusec ]] || { echo "make-plans.sh: no fusec at $fusec (set FUSEC)" >&2; exit 1; }
mkdir -p "$out"

compile() { # MODEL NAME [FUSEC OPTION ...]
  echo "fusec $1 --target=$target --kernel-variants=$variants ${*:3} -> $out/$2.plan"
  "$fusec" "$1" --target="$target" --kernel-variants="$variants" "${@:3}" -o "$out/$2.plan"
  if [[ $1 == *.onnx ]]; then
    cp "$1" "$out/$2.onnx"
  fi
}
for model in "$root"/test/data/models/*/model.onnx; do
  compile "$model" "$(basename "$(dirname "$model")")"
done
"${PYTHON:-/usr/bin/python3}" "$root/examples/encoder_layer.py" --embed 256 --heads 4 --ffn 1024 --seq 256 \
  --out "$out/src" --name encoder_d64
compile "$out/src/encoder_d64.json" encoder_d64
for precision in fp16 bf16; do
  compile "$out/src/encoder_d64.json" "encoder_d64_$precision" --precision="$precision"
done
"${PYTHON:-/usr/bin/python3}" "$root/examples/encoder_layer.py" --embed 240 --heads 4 --ffn 960 --seq 256 \
  --out "$out/src" --name encoder_d60
compile "$out/src/encoder_d60.json" encoder_d60
"${PYTHON:-/usr/bin/python3}" "$root/examples/encoder_layer.py" --embed 256 --heads 4 --ffn 1024 --seq seq \
  --out "$out/src" --name encoder_d64_seqs
compile "$out/src/encoder_d64_seqs.json" encoder_d64_seqs --dim seq=128,256
for model in "$@"; do
  name=$(basename "$model")
  compile "$model" "${name%.*}"
done
