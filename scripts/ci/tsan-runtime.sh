#!/usr/bin/env bash
# The runtime's thread tests under ThreadSanitizer: builds the runtime alone
# (no LLVM) and its unit tests with -fsanitize=thread into BUILD_DIR (default
# build-tsan-runtime) and runs the "[threads]" tests (test/unit/runtime/
# ConcurrencyTest.cpp: sessions of one plan on many threads, C++ and C API).
# Any ThreadSanitizer report fails the step. Prints its wall time.
#
#   scripts/ci/tsan-runtime.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-tsan-runtime}
start=$SECONDS
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DFUSEC_BUILD_COMPILER=OFF -DFUSEC_SANITIZE_THREAD=ON >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target fusec-unit-runtime
built=$SECONDS
# halt_on_error: the first report ends the run with a non-zero status.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$build/bin/fusec-unit-runtime" "[threads]"
echo "tsan-runtime: built in $((built - start)) s, [threads] tests clean under ThreadSanitizer ($((SECONDS - start)) s in all)"
