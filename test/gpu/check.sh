#!/usr/bin/env bash
# The GPU check: the first thing to run on a machine with an NVIDIA GPU.
# It needs the GPU's driver, CMake >= 3.20 and a C++17 compiler; no LLVM, no
# CUDA toolkit, no package registry. Plans are compiled beforehand where
# fusec is built (test/gpu/make-plans.sh); nlohmann-json comes from the
# system or from the copy test/gpu/copy-json-headers.sh puts beside the
# sources (see docs/gpu.md: prepare there, carry here).
#
#   test/gpu/check.sh PLAN_DIR [BUILD_DIR]
#
# Steps, each run even when an earlier one fails (a failed build only skips
# what needs its binaries):
#  1. a runtime-only build in BUILD_DIR (default build-gpu), with the GPU
#     unit tests where Catch2 v2 is found, and those tests (ctest -L gpu);
#  2. a probe: can fuserun open the device?
#  3. for every PLAN_DIR/*.plan at batch 1, 3 (padded to the bucket of 4)
#     and 8: fuserun --check against the CPU backend, timed, once with CUDA
#     graphs (and each kernel timed on its own), once with plain launches,
#     and once with --tune (each conv/GEMM kernel's compiled variants timed
#     and the fastest run; the choices go to RESULTS/tuning.json and the
#     log) where the plan has variants. A plan of shape variants (fusec
#     --dim seq=128,256) runs each variant (fuserun --dim), named
#     plan[seq=128] in the table.
# Then one summary table: per plan and batch the check results and the
# median graph / no-graph / kernel-sum latencies. Everything is also written
# to RESULTS (default BUILD_DIR/gpu-check): check.log (every command and its
# output), summary.txt (the table).
# Exit status: 0 all passed, 1 something failed, 77 no usable CUDA device.
# Environment: ITERS (default 50), WARMUP (default 5), STEP_TIMEOUT seconds
# per command (default 120; BUILD_TIMEOUT for the build, default 900),
# FUSEC_BUILD_TESTS (default IF_CATCH2_FOUND),
# CUDA_DRIVER: a driver library to use instead of the system's libcuda.so.1
# (the dry run points it at the toolkit's stub libcuda.so), CMAKE_ARGS: more
# configure arguments (the dry run hides the system's nlohmann-json with
# -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [[ $# -lt 1 || ! -d $1 ]]; then
  sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
plans=$(cd "$1" && pwd)
build=${2:-$root/build-gpu}
iters=${ITERS:-50}
warmup=${WARMUP:-5}
step_timeout=${STEP_TIMEOUT:-120}
build_timeout=${BUILD_TIMEOUT:-900}
tests=${FUSEC_BUILD_TESTS:-IF_CATCH2_FOUND}
results=${RESULTS:-$build/gpu-check}
batches=(1 3 8)
started=$SECONDS

mkdir -p "$results"
log=$results/check.log
summary=$results/summary.txt
: >"$log"

# A driver given by path is made the one every process finds as
# libcuda.so.1, so the unit tests use it too.
if [[ -n ${CUDA_DRIVER:-} ]]; then
  driver_dir=$results/driver
  mkdir -p "$driver_dir"
  ln -sf "$(readlink -f "$CUDA_DRIVER")" "$driver_dir/libcuda.so.1"
  export LD_LIBRARY_PATH=$driver_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

steps=()    # "name|status|seconds"
failures=0
# step NAME COMMAND...: runs COMMAND with a timeout (STEP_TIMEOUT, or
# $limit when set), its output in the log (and in $step_output); records
# PASS, FAIL (exit N) or TIMEOUT.
step() {
  local name=$1 begin=$SECONDS status rc seconds=${limit:-$step_timeout}
  shift
  echo "== $name: $*" >>"$log"
  step_output=$(timeout "$seconds" "$@" 2>&1)
  rc=$?
  printf '%s\n' "$step_output" >>"$log"
  case $rc in
  0) status=PASS ;;
  124) status="TIMEOUT (${seconds}s)" ;;
  *) status="FAIL (exit $rc)" ;;
  esac
  echo "-- $status in $((SECONDS - begin)) s" >>"$log"
  steps+=("$name|$status|$((SECONDS - begin))")
  printf '%-44s %s\n' "$name" "$status"
  [[ $rc -eq 0 ]] || failures=$((failures + 1))
  return "$rc"
}
# skip NAME REASON: a step that cannot run, recorded as such.
skip() {
  steps+=("$1|NOT RUN: $2|0")
  printf '%-44s %s\n' "$1" "NOT RUN: $2"
  echo "== $1: NOT RUN: $2" >>"$log"
  failures=$((failures + 1))
}

echo "fusec GPU check: plans in $plans, build in $build, results in $results"
if command -v nvidia-smi >/dev/null; then
  step "nvidia-smi" nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
else
  echo "== nvidia-smi: not found" >>"$log"
fi

# 1. Build and unit tests.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
fuserun=$build/bin/fuserun
if step "configure (runtime only, tests $tests)" cmake -S "$root" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DFUSEC_BUILD_COMPILER=OFF -DFUSEC_BUILD_TESTS="$tests" ${CMAKE_ARGS:-}; then
  limit=$build_timeout step "build" cmake --build "$build" -j "$(nproc)"
else
  skip "build" "configure failed"
fi
# Only where this configuration builds them (a binary may be left from an
# earlier one).
if [[ -x $build/bin/fusec-gpu-runtime ]] && cmake --build "$build" --target help 2>/dev/null | grep -q fusec-gpu-runtime; then
  # 77 is the GPU tests' "no device": ctest reports it as skipped.
  if step "unit tests (ctest -L gpu)" ctest --test-dir "$build" -L gpu --output-on-failure &&
    grep -q "(Skipped)" <<<"$step_output"; then
    # The GPU tests exit 77 where no device is found; ctest calls that a pass.
    steps[${#steps[@]} - 1]="unit tests (ctest -L gpu)|SKIPPED: no usable CUDA device|0"
    echo "   (skipped: no usable CUDA device)"
  fi
else
  steps+=("unit tests (ctest -L gpu)|NOT BUILT: tests off, no Catch2 v2, or no build|0")
  printf '%-44s %s\n' "unit tests (ctest -L gpu)" "NOT BUILT (tests off, no Catch2 v2, or no build)"
fi

# 2. The device probe.
shopt -s nullglob
plan_files=("$plans"/*.plan)
device_missing=
if [[ ${#plan_files[@]} -eq 0 ]]; then
  skip "plans" "no .plan files in $plans (make them with test/gpu/make-plans.sh)"
elif [[ ! -x $fuserun ]]; then
  skip "device probe" "no fuserun (the build failed)"
elif ! step "device probe (fuserun --device=cuda)" "$fuserun" "${plan_files[0]}" --device=cuda --batch=1 \
  --random-inputs=1; then
  device_missing=$(sed -n 's/^fuserun: error: cannot run on cuda: //p' <<<"$step_output" | head -n 1)
fi

# 3. Check and time every plan at every batch.
# "timing execute: median 0.05 ms, min ..." -> 0.05
median_of() { sed -n "s/^$1.*median \([^ ]*\) ms.*/\1/p" <<<"$2" | head -n 1; }
check_of() { # the worst "max rel" ... -> pass/FAIL from the exit status
  if [[ $1 -eq 0 ]]; then echo pass; elif grep -q "differ from the CPU backend" <<<"$2"; then echo MISMATCH; else echo error; fi
}
# A plan's shape variants as fuserun --dim arguments, one line each ("" for
# a plan without): "shape variants (...): [seq=128] seq=256" gives
# "--dim seq=128" and "--dim seq=256" ("a=1, b=2" gives two --dim).
variants_of() {
  local line
  line=$("$fuserun" "$1" --info 2>/dev/null | sed -n 's/^shape variants ([^)]*): //p' | tr -d '[]')
  if [[ -z $line ]]; then
    echo ""
    return
  fi
  line=${line//, /,}
  tr ' ' '\n' <<<"$line" | sed 's/^/--dim /; s/,/ --dim /g'
}
runs=() # "plan|--dim arguments" per plan and shape variant
for plan in "${plan_files[@]}"; do
  if [[ -x $fuserun ]]; then
    while IFS= read -r variant; do runs+=("$plan|$variant"); done < <(variants_of "$plan")
  else
    runs+=("$plan|")
  fi
done
rows=()
for run in "${runs[@]}"; do
  IFS='|' read -r plan variant <<<"$run"
  name=$(basename "$plan" .plan)
  # shellcheck disable=SC2206 # "--dim a=1 --dim b=2" splits into its words
  dims=($variant)
  if [[ -n $variant ]]; then
    sizes=${variant//--dim /}
    name="${name}[${sizes// /,}]"
  fi
  for batch in "${batches[@]}"; do
    if [[ ! -x $fuserun ]]; then
      rows+=("$name|$batch|not run|not run|-|-|-|not run|-")
      continue
    fi
    common=("$plan" ${dims[@]+"${dims[@]}"} --device=cuda --batch="$batch" --random-inputs=1 --check --iters="$iters"
      --warmup="$warmup")
    step "$name batch $batch graph" "$fuserun" "${common[@]}" --time-kernels
    graph_rc=$?
    graph=$step_output
    step "$name batch $batch no-graph" "$fuserun" "${common[@]}" --no-graph
    direct_rc=$?
    direct=$step_output
    tuned_check=- tuned=
    if "$fuserun" "$plan" ${dims[@]+"${dims[@]}"} --info 2>/dev/null | grep -q "compiled variants"; then
      step "$name batch $batch tuned" "$fuserun" "${common[@]}" --tune --tuning-cache="$results/tuning.json"
      tuned_rc=$?
      tuned_check=$(check_of $tuned_rc "$step_output")
      tuned=$(median_of "timing execute" "$step_output")
    fi
    rows+=("$name|$batch|$(check_of $graph_rc "$graph")|$(check_of $direct_rc "$direct")|$(median_of "timing execute" "$graph")|$(median_of "timing execute" "$direct")|$(median_of "timing kernels" "$graph")|$tuned_check|$tuned")
  done
done

# 4. Concurrent clients sharing the first plan: throughput and latency.
serve=
if [[ ${#plan_files[@]} -gt 0 && -x $fuserun && -z $device_missing ]]; then
  step "serve bench ($(basename "${plan_files[0]}" .plan), 4 clients)" "$fuserun" "${plan_files[0]}" --device=cuda \
    --serve-bench --clients=4 --requests=50 --batch-dist=1:0.5,4:0.3,16:0.2
  serve=$(grep '^serve-bench' <<<"$step_output")
fi

# The summary.
{
  echo
  echo "== fusec GPU check summary ($(date -u +%Y-%m-%dT%H:%MZ), $((SECONDS - started)) s)"
  if [[ -n $device_missing ]]; then
    echo "DEVICE MISSING: $device_missing"
    echo "(every GPU step below failed for that reason; nothing was checked on a GPU)"
  fi
  echo
  printf '%-40s %-26s %6s\n' step result seconds
  for entry in "${steps[@]}"; do
    IFS='|' read -r s_name s_status s_seconds <<<"$entry"
    printf '%-40s %-26s %6s\n' "$s_name" "$s_status" "$s_seconds"
  done
  echo
  echo "latency: median ms of 'timing execute' over $iters runs after $warmup (graph replay, plain launches,"
  echo "graph replay after --tune), and the sum of the kernels each timed on its own; check: CUDA vs the CPU"
  echo "backend (rtol, atol 1e-4)"
  printf '%-30s %5s %-10s %-10s %-10s %10s %10s %10s %10s %9s\n' plan batch check-graph check-plain check-tuned \
    graph-ms plain-ms tuned-ms kernels-ms graph/kern
  for row in "${rows[@]}"; do
    IFS='|' read -r r_plan r_batch r_gcheck r_dcheck r_graph r_direct r_kernels r_tcheck r_tuned <<<"$row"
    ratio=$(awk -v g="${r_graph:-0}" -v k="${r_kernels:-0}" 'BEGIN { if (g > 0 && k > 0) printf "%.2f", g / k; else print "-" }')
    printf '%-30s %5s %-10s %-10s %-10s %10s %10s %10s %10s %9s\n' "$r_plan" "$r_batch" "$r_gcheck" "$r_dcheck" \
      "${r_tcheck:--}" "${r_graph:--}" "${r_direct:--}" "${r_tuned:--}" "${r_kernels:--}" "$ratio"
  done
  if [[ -n $serve ]]; then
    echo
    echo "$serve"
  fi
  echo
  if [[ -n $device_missing ]]; then
    echo "check.sh: no usable CUDA device ($failures step(s) failed); log: $log"
  elif [[ $failures -gt 0 ]]; then
    echo "check.sh: $failures step(s) FAILED; log: $log"
  else
    echo "check.sh: all checks passed; log: $log"
  fi
} | tee "$summary"

if [[ -n $device_missing ]]; then
  exit 77
fi
[[ $failures -eq 0 ]]
