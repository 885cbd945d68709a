#!/usr/bin/env bash
# The configuration a GPU machine uses: the runtime alone, without LLVM/MLIR,
# configured and built from scratch, then its tests. Fails if the runtime needs
# anything from the compiler side or its tests fail.
#   scripts/checks/runtime-only.sh [BUILD_DIR]    (default build-runtime-only)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-runtime-only}
start=$SECONDS
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DFUSEC_BUILD_COMPILER=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
(cd "$build" && ctest --output-on-failure -j "$(nproc)")
echo "runtime-only: configured, built and tested in $((SECONDS - start)) s"
