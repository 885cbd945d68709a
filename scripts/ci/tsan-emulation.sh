#!/usr/bin/env bash
# The CUDA emulation under ThreadSanitizer: builds the emulation tests
# (test/unit/codegen/EmulationTest.cpp, EmulationFaultsTest.cpp and their
# harness; no LLVM needed) with -fsanitize=thread into BUILD_DIR (default
# build-tsan), has them compile their kernels with -fsanitize=thread too, and
#  1. runs every emulation test: no ThreadSanitizer report is allowed;
#  2. runs the deliberately racy kernel ("[tsan-race]"): the report is
#     required, so that a race detector that sees nothing fails the job.
# Prints what it did and its wall time; exits non-zero on any failure.
#
#   scripts/ci/tsan-emulation.sh [BUILD_DIR]
#
# Environment: CXX (default clang++-19, else clang++).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-tsan}
started=$SECONDS
cxx=${CXX:-$(command -v clang++-19 || command -v clang++)}
# ccache where present: a warm cache makes the build seconds.
launcher=()
command -v ccache >/dev/null && launcher=(ccache)
[[ -n $cxx ]] || { echo "tsan-emulation.sh: no clang++ (set CXX)" >&2; exit 1; }
mkdir -p "$build"
binary=$build/fusec-emulation-tsan
tests=$root/test/unit/codegen
flags=(-std=c++17 -O1 -g -fsanitize=thread -pthread -I"$root" -I"$tests")

# The Catch2 main is the slow part: compiled once, kept between runs.
main=$build/CatchMain.o
if [[ ! -f $main || $root/test/unit/CatchMain.cpp -nt $main ]]; then
  echo "tsan-emulation.sh: compiling the Catch2 main"
  "${launcher[@]}" "$cxx" "${flags[@]}" -c "$root/test/unit/CatchMain.cpp" -o "$main" || exit 1
fi
echo "tsan-emulation.sh: building $binary with $cxx -fsanitize=thread"
"$cxx" "${flags[@]}" \
  -DFUSEC_HOST_CXX="\"$cxx\"" -DFUSEC_EMULATION_INCLUDE_DIR="\"$root/codegen/emulation\"" \
  -DFUSEC_SOURCE_ROOT="\"$root\"" \
  "$tests/EmulationTest.cpp" "$tests/EmulationFaultsTest.cpp" "$tests/EmulationHarness.cpp" \
  "$tests/GuardedMemory.cpp" "$main" -ldl -o "$binary" || exit 1
echo "tsan-emulation.sh: built in $((SECONDS - started)) s"

export FUSEC_EMULATION_CXXFLAGS="-fsanitize=thread -g"
failures=0
echo "tsan-emulation.sh: 1. every emulation test, no report allowed"
if ! TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$binary"; then
  echo "tsan-emulation.sh: FAILED: the emulation tests under ThreadSanitizer"
  failures=$((failures + 1))
fi
echo "tsan-emulation.sh: 2. the racy kernel, a report required"
race_log=$build/race.log
TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$binary" "[tsan-race]" >"$race_log" 2>&1
race_rc=$?
if [[ $race_rc -eq 66 ]] && grep -q "WARNING: ThreadSanitizer: data race" "$race_log" &&
  grep -q "racy_sum" "$race_log"; then
  echo "tsan-emulation.sh: the race in racy_sum was reported, as it must be"
else
  echo "tsan-emulation.sh: FAILED: no ThreadSanitizer report for the racy kernel (exit $race_rc); log:"
  cat "$race_log"
  failures=$((failures + 1))
fi
echo "tsan-emulation.sh: done in $((SECONDS - started)) s, $failures failure(s)"
[[ $failures -eq 0 ]]
