#!/usr/bin/env bash
# Sanitized runtime tests and a bounded fuzzing run (docs/fuzzing.md).
#
# Builds, in its own directory, only what the checks need with clang-19,
# AddressSanitizer + UndefinedBehaviorSanitizer and libFuzzer coverage: the
# runtime, its unit tests and fuserun, and the four fuzzers (plan reader +
# verifier + CPU run, .npy reader, JSON importer, ONNX importer). Then runs
# the runtime unit tests (any sanitizer report fails them) and each fuzzer
# for FUSEC_FUZZ_SECONDS seconds (default 30) on a seed corpus made from the
# test data, the regression inputs of issue 13 and those under
# test/fuzz/regressions. Prints executions and
# executions/second per fuzzer and its own wall time; exits non-zero on a
# build failure, a test failure or any fuzzer finding.
#
# Environment: FUSEC_FUZZ_BUILD_DIR (default build-fuzz), FUSEC_FUZZ_SECONDS,
# FUSEC_FUZZ_JOBS (parallel compile jobs, default nproc).
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
build_dir=${FUSEC_FUZZ_BUILD_DIR:-build-fuzz}
seconds=${FUSEC_FUZZ_SECONDS:-30}
jobs=${FUSEC_FUZZ_JOBS:-$(nproc)}

if [[ ! -f $build_dir/build.ninja ]]; then
  # -O1 with line tables: quick to compile, fast enough to fuzz, and
  # sanitizer reports still name file and line.
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DFUSEC_SANITIZE=ON -DFUSEC_BUILD_FUZZERS=ON -DFUSEC_BUILD_TESTS=ON >/dev/null
fi
fuzzers=(plan npy json onnx)
cmake --build "$build_dir" -j "$jobs" --target fusec-unit-runtime fuserun "${fuzzers[@]/#/fusec-fuzz-}"
built=$(date +%s)
echo "fuzz.sh: sanitized build took $((built - start)) s"

# The runtime unit tests under ASan + UBSan (fuserun tests use the sanitized
# fuserun of this build).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$build_dir/bin/fusec-unit-runtime"
tested=$(date +%s)
echo "fuzz.sh: sanitized runtime unit tests passed in $((tested - built)) s"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{plan,npy,json,onnx}
python3 test/fuzz/make_regression_plans.py "$work/plan"
# Seeds up to -max_len (64 KiB): larger ones would be truncated anyway.
find test/data/models -name '*.npy' -size -65k -exec cp {} "$work/npy/" \;
# A .npy whose shape overflows the element count.
python3 - "$work/npy/regress-shape-overflow.npy" <<'PY'
import sys
header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (999999999999999, 999999999999999), }"
header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)
PY
cp test/lit/import/Inputs/*.json test/lit/import/Inputs/hostile/*.json "$work/json/"
# The shared models and the quantized ones (QuantizeLinear, DequantizeLinear,
# QLinearConv, QLinearMatMul).
for model in $(find test/data/models test/data/quantized -name model.onnx -size -65k); do
  cp "$model" "$work/onnx/$(basename "$(dirname "$model")").onnx"
done
# Inputs that once made a fuzzer fail (test/fuzz/regressions/<fuzzer>/), so
# every run replays them first.
for name in "${fuzzers[@]}"; do
  if [[ -d test/fuzz/regressions/$name ]]; then
    cp test/fuzz/regressions/"$name"/* "$work/$name/"
  fi
done

status=0
for name in "${fuzzers[@]}"; do
  log="$work/$name.log"
  # -timeout: a single input running longer is a hang; -rss_limit_mb: memory.
  if ! "$build_dir/bin/fusec-fuzz-$name" "$work/$name" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 >"$log" 2>&1; then
    status=1
    echo "fuzz.sh: fusec-fuzz-$name found a problem:"
    tail -n 60 "$log"
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  echo "fuzz.sh: fusec-fuzz-$name: ${runs:-?} executions in ${seconds} s (${rate:-?}/s)"
done
echo "fuzz.sh: done in $(($(date +%s) - start)) s"
exit $status
