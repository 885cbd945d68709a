#!/usr/bin/env bash
# Set-up, build, then the main job on a bundled example: compile a model into a
# plan and run it on the CPU reference backend.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
model=examples/conv_bn_relu.json
out=${TMPDIR:-/tmp}/fusec-example
mkdir -p "$out"
set -x
build/bin/fusec "$model" -o "$out/conv_bn_relu.plan" -v
build/bin/fuserun "$out/conv_bn_relu.plan" --info
build/bin/fuserun "$out/conv_bn_relu.plan" --batch 4 --random-inputs 7 --output-dir "$out" --iters 5
