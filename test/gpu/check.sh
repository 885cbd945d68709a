#!/usr/bin/env bash
# The GPU check: run on a machine with an NVIDIA GPU and driver, CMake, a C++17
# compiler and the nlohmann-json (and, for the GPU unit tests, Catch2) headers;
# no LLVM, no CUDA toolkit. Plans are compiled elsewhere (test/gpu/make-plans.sh).
#
#   test/gpu/check.sh PLAN_DIR [BUILD_DIR]
#
# 1. a runtime-only build in BUILD_DIR (default build-gpu) and its GPU tests
#    (ctest -L gpu);
# 2. for every PLAN_DIR/*.plan: fuserun --check against the CPU backend at
#    batch 1, 3 (padded to the bucket of 4) and 8;
# 3. a latency table, CUDA graphs vs plain launches, at the same batches.
# Exits 1 if any check fails. Environment: ITERS (default 100) and WARMUP
# (default 10) for the latency table; FUSEC_BUILD_TESTS=OFF skips step 1's
# tests (no Catch2 needed).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [[ $# -lt 1 || ! -d $1 ]]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
plans=$(cd "$1" && pwd)
build=${2:-$root/build-gpu}
iters=${ITERS:-100}
warmup=${WARMUP:-10}
tests=${FUSEC_BUILD_TESTS:-ON}
batches=(1 3 8)

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DFUSEC_BUILD_COMPILER=OFF -DFUSEC_BUILD_TESTS="$tests"
cmake --build "$build" -j "$(nproc)"
if [[ $tests == ON ]]; then
  (cd "$build" && ctest -L gpu --output-on-failure)
fi
fuserun=$build/bin/fuserun

shopt -s nullglob
plan_files=("$plans"/*.plan)
[[ ${#plan_files[@]} -gt 0 ]] || { echo "check.sh: no .plan files in $plans" >&2; exit 1; }

failures=0
echo
echo "== fuserun --check (CUDA vs the CPU backend, rtol 1e-4, atol 1e-4)"
for plan in "${plan_files[@]}"; do
  for batch in "${batches[@]}"; do
    echo "-- $(basename "$plan") batch $batch"
    if ! "$fuserun" "$plan" --device=cuda --batch="$batch" --random-inputs=1 --check; then
      echo "FAILED: $(basename "$plan") at batch $batch"
      failures=$((failures + 1))
    fi
  done
done

# "timing: ... on cuda (bucket 4, graph): median 0.05 ms, ..." -> 0.05
median_of() { sed -n "s/^$1.*: median \([^ ]*\) ms.*/\1/p" | head -n 1; }
echo
echo "== latency (median ms over $iters runs after $warmup; run = copy in + execute + copy out)"
printf '%-24s %5s %12s %12s %12s %12s %9s\n' plan batch graph-run graph-exec nograph-run nograph-exec exec-gain
for plan in "${plan_files[@]}"; do
  for batch in "${batches[@]}"; do
    common=("$plan" --device=cuda --batch="$batch" --random-inputs=1 --iters="$iters" --warmup="$warmup")
    if ! graph=$("$fuserun" "${common[@]}") || ! direct=$("$fuserun" "${common[@]}" --no-graph); then
      echo "FAILED: timing $(basename "$plan") at batch $batch"
      failures=$((failures + 1))
      continue
    fi
    g_run=$(median_of "timing: " <<<"$graph")
    g_exec=$(median_of "timing execute" <<<"$graph")
    d_run=$(median_of "timing: " <<<"$direct")
    d_exec=$(median_of "timing execute" <<<"$direct")
    gain=$(awk -v d="$d_exec" -v g="$g_exec" 'BEGIN { if (g > 0) printf "%.2fx", d / g; else print "-" }')
    printf '%-24s %5s %12s %12s %12s %12s %9s\n' "$(basename "$plan" .plan)" "$batch" \
      "$g_run" "$g_exec" "$d_run" "$d_exec" "$gain"
  done
done

echo
if [[ $failures -gt 0 ]]; then
  echo "check.sh: $failures check(s) FAILED"
  exit 1
fi
echo "check.sh: all checks passed"
