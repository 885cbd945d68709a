#!/usr/bin/env bash
# Compiles GPU plans for test/gpu/check.sh and bench/gpu/compare.py. Runs where
# fusec is built (it needs LLVM/MLIR and NVRTC, which the GPU machine need not
# have); copy the output folder to the GPU machine.
#
#   test/gpu/make-plans.sh OUT_DIR [MODEL[:PRECISION] ...]
#   test/gpu/make-plans.sh --sizes OUT_DIR     (only the sizes and the limit)
#
# Writes into OUT_DIR, which must hold nothing else that it does not write:
#  - <name>.plan for every shared test model (test/data/models/<name>/
#    model.onnx), in f32, and its ONNX copy <name>.onnx (for compare.py's
#    onnxruntime runs); residual_block_tf32.plan (--precision=tf32: plain
#    TF32 convs);
#  - resnet18_fp16.plan: ResNet-18 (examples/resnet.py, torchvision's layout,
#    224x224) with --precision=fp16: the f16 conv kernels at full size;
#  - a transformer encoder layer with heads of 64 (examples/encoder_layer.py,
#    E = 256, 4 heads, S = 256): encoder_d64.plan in f32 (3xTF32 GEMMs and
#    attention), encoder_d64_fp16.plan / encoder_d64_bf16.plan
#    (--precision=fp16/bf16: the f16/bf16 GEMM and attention loops);
#    encoder_d60.plan,
#    heads of 60 (E = 120, 2 heads): the SIMT attention loop; and
#    encoder_d64_seqs.plan, the d64 layer with a named sequence length
#    compiled at S = 128 and 256 (shape variants, which check.sh runs each);
#  - pytorch_{gpt_block,encoder_pre,encoder_post,vit_tiny}.plan: transformers
#    exported by PyTorch with a dynamic batch (test/data/pytorch), in f32
#    (encoder_post: sequence first, its attention reading views whose row
#    strides grow with the batch), and pytorch_convnext_tiny_nhwc.plan
#    (--layout=nhwc: LayerNorms computing their depthwise convs);
#  - pytorch_{encoder_post,gpt_block}_seq_range.plan: the dynamo exports with
#    the sequence length dynamic too (test/data/pytorch_ranges), one plan over
#    --dim seq=1:64:256;
#  - for the Hopper templates (--target=sm_90a, docs/hopper.md):
#    gemm4096_sm90a.plan (a 4096^3 f16 product at batch 4096, its operands
#    graph inputs), pytorch_gpt_block_bf16_sm90a.plan and
#    bottleneck_nhwc_fp16_sm90a.plan (pointwise convs on the wgmma GEMM,
#    3x3 convs, one of stride 2, on the wgmma implicit GEMM);
#  - <name>.plan (or <name>_<precision>.plan) for each extra MODEL (.onnx or
#    fusec-graph .json; <name> is its file name without the extension),
#    compiled with --precision=PRECISION when given (fp32, tf32, fp16, bf16):
#    e.g. resnet50.onnx:fp16 for the resnet50.onnx `bench/gpu/compare.py
#    export` writes (its f32 plan, about 100 MB, is too large to carry).
# The models' sources (JSON graphs and weights) go to a temporary folder,
# removed at the end, or to SRC_DIR when set.
#
# Everything must fit the GPU machine's allowance for carried files: the
# script ends with the size of every plan and their total, and fails if the
# total (plans and ONNX copies) reaches PLANS_LIMIT_MIB (default 50) MiB.
# Environment: FUSEC (default build/bin/fusec), FUSEC_TARGET (default sm_90:
# the GPU's architecture, for which CUBINs are built; other GPUs JIT the PTX),
# FUSEC_KERNEL_VARIANTS (default 3: the configs of each conv/GEMM kernel that
# resnet18_fp16, encoder_d64{,_fp16,_bf16} and the extra models carry, for
# check.sh's tuned runs; the other plans carry one, as kernel images are most
# of a small model's plan), PYTHON (default /usr/bin/python3,
# with numpy), SRC_DIR, PLANS_LIMIT_MIB.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sizes_only=
if [[ ${1:-} == --sizes ]]; then
  sizes_only=1
  shift
fi
if [[ $# -lt 1 ]]; then
  sed -n '5,46p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
out=$1
shift
fusec=${FUSEC:-$root/build/bin/fusec}
target=${FUSEC_TARGET:-sm_90}
variants=${FUSEC_KERNEL_VARIANTS:-3}
python=${PYTHON:-/usr/bin/python3}
limit_mib=${PLANS_LIMIT_MIB:-50}
started=$SECONDS

# The sizes: what the GPU machine is sent.
sizes() {
  local total=0 bytes file limit mib
  for file in "$out"/*.plan "$out"/*.onnx; do
    [[ -f $file ]] || continue
    bytes=$(stat -c %s "$file")
    total=$((total + bytes))
    printf '%10s  %s\n' "$bytes" "$(basename "$file")"
  done
  limit=$((limit_mib * 1024 * 1024))
  mib=$(awk -v b="$total" 'BEGIN { printf "%.1f", b / 1048576 }')
  echo "make-plans.sh: plans and ONNX copies: $total bytes ($mib MiB; limit $limit_mib MiB) in $((SECONDS - started)) s"
  if [[ $total -ge $limit ]]; then
    echo "make-plans.sh: $mib MiB is too much to carry to the GPU machine (limit $limit_mib MiB): drop a model or" \
      "compile it in fp16" >&2
    return 1
  fi
}
if [[ -n $sizes_only ]]; then
  sizes
  exit
fi
[[ -x $fusec ]] || {
  echo "make-plans.sh: no fusec at $fusec (set FUSEC)" >&2
  exit 1
}
mkdir -p "$out"
if [[ -n ${SRC_DIR:-} ]]; then
  src=$SRC_DIR
  mkdir -p "$src"
else
  src=$(mktemp -d)
  trap 'rm -rf "$src"' EXIT
fi

compile() { # MODEL NAME VARIANTS [FUSEC OPTION ...]
  echo "fusec $1 --target=$target --kernel-variants=$3 ${*:4} -> $out/$2.plan"
  "$fusec" "$1" --target="$target" --kernel-variants="$3" "${@:4}" -o "$out/$2.plan"
  if [[ $1 == *.onnx && -z ${4:-} ]]; then
    cp "$1" "$out/$2.onnx"
  fi
}
encoder() { # NAME ENCODER_LAYER.PY OPTION...
  "$python" "$root/examples/encoder_layer.py" "${@:2}" --out "$src" --name "$1"
}

for model in "$root"/test/data/models/*/model.onnx; do
  compile "$model" "$(basename "$(dirname "$model")")" 1
done
compile "$root/test/data/models/residual_block/model.onnx" residual_block_tf32 1 --precision=tf32
"$python" "$root/examples/resnet.py" --depth 18 --out "$src" --name resnet18
compile "$src/resnet18.json" resnet18_fp16 "$variants" --precision=fp16
encoder encoder_d64 --embed 256 --heads 4 --ffn 1024 --seq 256
compile "$src/encoder_d64.json" encoder_d64 "$variants"
for precision in fp16 bf16; do
  compile "$src/encoder_d64.json" "encoder_d64_$precision" "$variants" --precision="$precision"
done
encoder encoder_d60 --embed 120 --heads 2 --ffn 480 --seq 256
compile "$src/encoder_d60.json" encoder_d60 1
encoder encoder_d64_seqs --embed 256 --heads 4 --ffn 1024 --seq seq
compile "$src/encoder_d64_seqs.json" encoder_d64_seqs 1 --dim seq=128,256
# Transformers from PyTorch's exporters with a dynamic batch, whose attention
# runs on the batch and the heads kept split (docs/shapes.md). Their weights
# are external data, so no ONNX copy goes along (--precision=fp32 says so).
for model in gpt_block encoder_pre encoder_post vit_tiny; do
  compile "$root/test/data/pytorch/$model/model.onnx" "pytorch_$model" 1 --precision=fp32
done
compile "$root/test/data/pytorch/convnext_tiny/model.onnx" pytorch_convnext_tiny_nhwc 1 --precision=fp32 --layout=nhwc
# One plan for every sequence length of a range (docs/shapes.md#ranges): the
# kernels read the length from their arguments; check.sh runs it at the
# range's ends and its opt.
for model in encoder_post gpt_block; do
  compile "$root/test/data/pytorch_ranges/$model/model.onnx" "pytorch_${model}_seq_range" 1 --precision=fp32 \
    --dim seq=1:64:256
done
# Hopper plans (--target=sm_90a, whatever FUSEC_TARGET says: docs/hopper.md):
# the GPT-2 block in bf16, whose four projections run the wgmma GEMM, and
# gemm4096_sm90a: Y = A B with A [batch, 4096] and B [4096, 4096] f16 graph
# inputs (no weights to carry), a 4096^3 product at batch 4096, beside its
# cuBLASLt variant.
cat > "$src/gemm4096.json" <<'JSON'
{"format": "fusec-graph", "version": 1,
 "inputs": [{"name": "a", "dtype": "f16", "shape": ["batch", 4096]},
            {"name": "b", "dtype": "f16", "shape": [4096, 4096]}],
 "outputs": ["y"],
 "nodes": [{"name": "product", "op": "MatMul", "inputs": ["a", "b"], "outputs": ["y"]}]}
JSON
target=sm_90a compile "$src/gemm4096.json" gemm4096_sm90a "$variants" --batch-buckets=1,4,4096 --cost-batch=4096
target=sm_90a compile "$root/test/data/pytorch/gpt_block/model.onnx" pytorch_gpt_block_bf16_sm90a "$variants" \
  --precision=bf16
# bottleneck_nhwc_fp16_sm90a: a ResNet bottleneck of 64 channels (1x1, 3x3
# padded, 1x1, bias, ReLU, the residual add) on 28 x 28 images, then a
# stride-2 3x3 (to 14 x 14), in fp16 channels-last:
# the pointwise convs on the Hopper GEMM, the 3x3s on the Hopper implicit
# GEMM; small weights, inline.
"$python" - "$src/bottleneck.json" <<'PY'
import json
import random
import sys

random.seed(7)


def tensor(shape, scale):
    count = 1
    for extent in shape:
        count *= extent
    return {"shape": shape, "data": [round(random.uniform(-scale, scale), 4) for _ in range(count)]}


def conv(name, source, weight, bias, out, pads=(0, 0, 0, 0), strides=(1, 1)):
    return {"name": name, "op": "Conv", "inputs": [source, weight, bias], "outputs": [out],
            "attrs": {"pads": list(pads), "strides": list(strides)}}


graph = {"format": "fusec-graph", "version": 1,
         "inputs": [{"name": "x", "shape": ["batch", 64, 28, 28]}], "outputs": ["y"],
         "constants": {"w1": tensor([64, 64, 1, 1], 0.125), "b1": tensor([64], 0.1),
                       "w2": tensor([64, 64, 3, 3], 0.04), "b2": tensor([64], 0.1),
                       "w3": tensor([64, 64, 1, 1], 0.125), "b3": tensor([64], 0.1),
                       "w4": tensor([64, 64, 3, 3], 0.04), "b4": tensor([64], 0.1)},
         "nodes": [conv("expand", "x", "w1", "b1", "e"),
                   {"name": "relu1", "op": "Relu", "inputs": ["e"], "outputs": ["r1"]},
                   conv("window", "r1", "w2", "b2", "c", pads=(1, 1, 1, 1)),
                   {"name": "relu2", "op": "Relu", "inputs": ["c"], "outputs": ["r2"]},
                   conv("project", "r2", "w3", "b3", "p"),
                   {"name": "add", "op": "Add", "inputs": ["p", "x"], "outputs": ["s"]},
                   conv("down", "s", "w4", "b4", "y", pads=(1, 1, 1, 1), strides=(2, 2))]}
with open(sys.argv[1], "w") as out:
    json.dump(graph, out)
PY
target=sm_90a compile "$src/bottleneck.json" bottleneck_nhwc_fp16_sm90a 1 --precision=fp16 --layout=nhwc
for spec in "$@"; do
  model=${spec%:*} precision=
  [[ $spec == *:* ]] && precision=${spec##*:}
  name=$(basename "$model")
  name=${name%.*}
  if [[ -n $precision && $precision != fp32 ]]; then
    compile "$model" "${name}_$precision" "$variants" --precision="$precision"
  else
    compile "$model" "$name" "$variants"
  fi
done
echo
sizes
