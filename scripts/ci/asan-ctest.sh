#!/usr/bin/env bash
# The whole ctest suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (docs/fuzzing.md, docs/testing.md).
#
# Configures (once) BUILD_DIR (default build-asan) with -DFUSEC_SANITIZE=ON,
# RelWithDebInfo, with the default C++ compiler (g++), builds everything and
# runs every ctest entry through scripts/ci/ctest.sh (skipped tests listed,
# passed/failed/skipped counts). Any sanitizer report aborts the process that
# made it, so the test fails. Prints the build's and the tests' wall times.
#
# Environment: FUSEC_ASAN_BUILD_DIR (default build-asan), FUSEC_ASAN_JOBS
# (parallel compile jobs, default nproc), FUSEC_CTEST_JOBS (parallel tests,
# default nproc).
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
build_dir=${FUSEC_ASAN_BUILD_DIR:-build-asan}
jobs=${FUSEC_ASAN_JOBS:-$(nproc)}

if [[ ! -f $build_dir/build.ninja ]]; then
  # No Python package: a sanitized extension cannot load into an unsanitized interpreter.
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFUSEC_SANITIZE=ON \
    -DFUSEC_BUILD_PYTHON=OFF >/dev/null
fi
cmake --build "$build_dir" -j "$jobs"
built=$(date +%s)
echo "asan-ctest.sh: sanitized build took $((built - start)) s"

status=0
scripts/ci/ctest.sh "$build_dir" || status=$?
echo "asan-ctest.sh: sanitized ctest took $(($(date +%s) - built)) s (ctest -j${FUSEC_CTEST_JOBS:-$(nproc)})"
exit "$status"
