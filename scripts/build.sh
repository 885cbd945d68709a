#!/usr/bin/env bash
# Configures (once) and builds fusec in ./build with Ninja.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${FUSEC_BUILD_DIR:-build}
# CMake's code model for scripts/checks/check_layering.py: CMake answers a
# file API query only if it exists before the configure step.
mkdir -p "$build_dir/.cmake/api/v1/query" && : >"$build_dir/.cmake/api/v1/query/codemodel-v2"
if [[ ! -f $build_dir/build.ninja ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build "$build_dir" -j "$(nproc)"
