#!/usr/bin/env bash
# Set-up, build, then the whole test suite: ctest (unit, lit, model,
# emulation, conformance and repository checks, formatting included), clang-tidy, a
# runtime-only build with its tests, the wheel (pip install . in a fresh environment), the emulation and the runtime's thread tests under ThreadSanitizer, and
# sanitized runtime tests plus bounded fuzzing (scripts/ci/fuzz.sh). Every step runs even when an earlier one
# failed (except that nothing runs without a build); a summary of the steps
# and their times closes the output, and the exit status is non-zero if any
# step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${FUSEC_BUILD_DIR:-build}
# ccache keys on paths relative to the checkout, so the wheel's build
# (build-wheel/, the depth of build/) reuses the main build's compiles.
export CCACHE_BASEDIR=$PWD

failed=()
summary=()
# step NAME COMMAND...: runs the command, records its result and wall time.
step() {
  local name=$1 start=$SECONDS status=0
  shift
  echo "=== $name"
  "$@" || status=$?
  local result=passed
  ((status == 0)) || { result="FAILED (exit $status)"; failed+=("$name"); }
  summary+=("$(printf '%-28s %-20s %5d s' "$name" "$result" $((SECONDS - start)))")
  return $status
}

step setup scripts/setup.sh || exit 1
if step build scripts/build.sh; then
  step ctest scripts/ci/ctest.sh "$build"
  step clang-tidy scripts/checks/clang-tidy.sh --build "$build"
fi
step runtime-only scripts/checks/runtime-only.sh
# `pip install .` in a fresh virtual environment, then the package and tools.
step wheel scripts/ci/wheel.sh
step tsan-emulation scripts/ci/tsan-emulation.sh
# Sessions of one plan on many threads, under ThreadSanitizer.
step tsan-runtime scripts/ci/tsan-runtime.sh
# Sanitized (ASan + UBSan) runtime tests and a bounded run of each fuzzer.
step fuzz scripts/ci/fuzz.sh

echo "=== summary"
printf '%s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "run-tests: failed: ${failed[*]}"
  exit 1
fi
echo "run-tests: every step passed"
