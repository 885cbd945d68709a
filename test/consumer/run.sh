#!/usr/bin/env bash
# Installs fusec from BUILD_DIR into a temporary prefix, builds this consumer
# project against it, and runs the consumers: the pipeline embedded in another
# compiler, a C program checking a plan's output against reference values,
# and a pass plugin.
# Usage: run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source/test/consumer" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DFUSEC_EXAMPLE_PLUGIN_SOURCE="$source/examples/plugin/FoldReluClipPlugin.cpp" \
  > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/build/consumer_pipeline"
# The C program checks the plan's output against PyTorch's (the model's
# tolerance from its meta.json).
model="$source/test/data/models/residual_block"
"$work/prefix/bin/fusec" "$model/model.onnx" --target=cpu -o "$work/model.plan"
"$work/build/consumer_c_api" "$work/model.plan" "$model/input_b4.npy" "$model/output_b4.npy" 1e-4 3e-5
# The installed Python package (when the build has it) runs the same plan.
python_dir=$(sed -n 's/^FUSEC_PYTHON_INSTALL_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")
python=$(sed -n 's/^Python_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
if grep -q '^FUSEC_BUILD_PYTHON:BOOL=ON' "$build/CMakeCache.txt"; then
  [[ -n $python_dir && -n $python ]] || { echo "consumer: no Python install dir or interpreter in the cache" >&2; exit 1; }
  PYTHONPATH="$work/prefix/$python_dir" "$python" - "$work/prefix" "$work/model.plan" "$model" <<'PY'
import sys

import numpy

import fusec

prefix, plan_path, model = sys.argv[1:]
assert fusec.__file__.startswith(prefix), f"imported {fusec.__file__}, not the installed package"
session = fusec.Session(fusec.Plan.load(plan_path), device="cpu")
output = session.run({"input": numpy.load(model + "/input_b4.npy")})["output"]
assert numpy.allclose(output, numpy.load(model + "/output_b4.npy"), rtol=1e-4, atol=3e-5)
print("consumer: the installed Python package ran the plan and matched PyTorch's output")
PY
fi
printf 'func.func @main(%%x: tensor<?x4xf32>) -> tensor<?x4xf32> {\n  %%r = fuse.relu %%x : (tensor<?x4xf32>) -> tensor<?x4xf32>\n  %%c = fuse.clip %%r {max = 6.0 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>\n  return %%c : tensor<?x4xf32>\n}\n' > "$work/relu_clip.mlir"
"$work/prefix/bin/fusec-opt" --load-pass-plugin="$work/build/libconsumer_plugin.so" "$work/relu_clip.mlir" \
  --pass-pipeline='builtin.module(func.func(fuse-example-fold-relu-clip))' > "$work/folded.mlir"
if grep -q 'fuse.relu' "$work/folded.mlir"; then
  echo "consumer: the plugin pass did not fold relu into clip" >&2
  exit 1
fi
echo "consumer: pass plugin built against the installed package folded relu into clip"
