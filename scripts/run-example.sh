#!/usr/bin/env bash
# Set-up, build, then the main job on a bundled example: compile a model into a
# fused plan, inspect it, and run it on the CPU reference backend with the
# reference input PyTorch used.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
out=${TMPDIR:-/tmp}/fusec-example
mkdir -p "$out"
set -x
build/bin/fusec examples/residual_block.json -o "$out/residual_block.plan" -v \
  --fusion-report "$out/fusion-report.json"
build/bin/fuserun "$out/residual_block.plan" --info
build/bin/fuserun "$out/residual_block.plan" \
  --input input=test/data/models/residual_block/input_b4.npy \
  --output-dir "$out" --iters 20 --warmup 2
