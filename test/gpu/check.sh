#!/usr/bin/env bash
# The GPU check: the first thing to run on a machine with an NVIDIA GPU, made
# for a window of minutes (docs/gpu.md: the first GPU). It needs the GPU's
# driver, CMake >= 3.20 and a C++17 compiler; no LLVM, no CUDA toolkit, no
# package registry. Plans are compiled beforehand where fusec is built
# (test/gpu/make-plans.sh); nlohmann-json comes from the system or from the
# copy test/gpu/copy-json-headers.sh puts beside the sources.
#
#   test/gpu/check.sh PLAN_DIR [BUILD_DIR]
#
# Build: a runtime-only build in BUILD_DIR (default build-gpu; nothing to do
# when it is built already), its GPU unit tests (ctest -L gpu) where Catch2 v2
# is found, and a probe: can fuserun open the device?
# Phase 1, correctness (no timing, no tuning): every PLAN_DIR/*.plan is read
# (fuserun --info: its precision, shape variants, compiled variants), then
# run with fuserun --check against the CPU backend at batch 1 and at
# CHECK_BATCH (default 3, padded to the bucket of 4), with CUDA graphs and
# with plain launches (--no-graph), at the tolerance of the plan's
# precision: fp32 (FMA or 3xTF32) 1e-4, tf32 1e-2, fp16 4e-3, bf16 3e-2
# (TOL_FP32, TOL_TF32, TOL_FP16, TOL_BF16). Every plan runs at batch 1 with
# graphs first, then the rest, so a deadline still leaves each plan checked.
# A plan of shape variants runs each (fuserun --dim), named plan[seq=128];
# a plan over a range runs at its ends and its opt, plan[seq=1] and so on.
# Phase 2, timing: the device's wait on host memory (cuStreamWaitValue32,
# which --time-kernels and --tune hold the stream with) probed once, with a
# deadline; where it fails, every later run uses --timing-gate=none. Then per
# plan at batch 1: graph replay with each kernel timed on its own
# (--time-kernels), plain launches; gemm4096_sm90a (the Hopper GEMM, 4096^3
# f16) at batch 4096, generated and cuBLASLt; bottleneck_nhwc_fp16_sm90a
# (the Hopper convs) at batch 32; and fuserun --serve-bench, briefly.
# Phase 3, optional: fuserun --tune --check at batch 1 on every plan with
# compiled variants (choices in RESULTS/tuning.json), and
# bench/gpu/compare.py where python3 is found, each under its own deadline.
#
# Deadlines: the whole script stops starting steps DEADLINE seconds (default
# 540: one 10-minute command) after it starts, keeping the last 10 s for the
# summary; phase 1 ends PHASE1_SECONDS (240) after the build, phase 2
# PHASE2_SECONDS (150) after phase 1; phase 3 has the rest. Each command also
# has its own timeout: STEP_TIMEOUT (60 s), BUILD_TIMEOUT (360 s; a build
# already done takes seconds), TUNE_TIMEOUT (90 s), COMPARE_SECONDS (150 s).
# Steps past a deadline are listed as NOT RUN. PHASES (default "1 2 3")
# chooses the phases: PHASES=3 on a machine where an earlier call built
# BUILD_DIR runs only the optional phase.
#
# Results go to RESULTS (default $OUT when set, else BUILD_DIR/gpu-check):
# check.log (every command and its output, appended as it runs, so a run
# that is killed still leaves it), summary.txt (the one-screen summary
# printed last; also printed when the script is interrupted), tuning.json
# and compare.txt. Exit status: 0 all checks passed (steps of phases 2 and
# 3 left out by a deadline do not count), 1 something failed or a phase-1
# check did not run, 77 no usable CUDA device.
# Environment besides the above: ITERS (20), WARMUP (3) for the timing runs;
# JOBS build jobs (default nproc); FUSEC_BUILD_TESTS (default
# IF_CATCH2_FOUND); CUDA_DRIVER: a driver library to use instead of the
# system's libcuda.so.1 (the dry run points it at the toolkit's stub
# libcuda.so); CMAKE_ARGS: more configure arguments; PYTHON (python3).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [[ $# -lt 1 || ! -d $1 ]]; then
  sed -n '2,56p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
plans=$(cd "$1" && pwd)
build=${2:-$root/build-gpu}
deadline=${DEADLINE:-540}
phase1_seconds=${PHASE1_SECONDS:-240}
phase2_seconds=${PHASE2_SECONDS:-150}
step_timeout=${STEP_TIMEOUT:-60}
build_timeout=${BUILD_TIMEOUT:-360}
tune_timeout=${TUNE_TIMEOUT:-90}
compare_seconds=${COMPARE_SECONDS:-150}
phases=" ${PHASES:-1 2 3} "
iters=${ITERS:-20}
warmup=${WARMUP:-3}
check_batch=${CHECK_BATCH:-3}
jobs=${JOBS:-$(nproc)}
tests=${FUSEC_BUILD_TESTS:-IF_CATCH2_FOUND}
python=${PYTHON:-python3}
results=${RESULTS:-${OUT:-$build/gpu-check}}
started=$SECONDS
reserve=10 # seconds kept for the summary

mkdir -p "$results"
log=$results/check.log
summary=$results/summary.txt
: >>"$log"
echo "== check.sh $(date -u +%Y-%m-%dT%H:%M:%SZ): plans $plans, build $build, deadline ${deadline}s, phases${phases}" \
  >>"$log"

# A driver given by path is made the one every process finds as
# libcuda.so.1, so the unit tests use it too.
if [[ -n ${CUDA_DRIVER:-} ]]; then
  driver_dir=$results/driver
  mkdir -p "$driver_dir"
  ln -sf "$(readlink -f "$CUDA_DRIVER")" "$driver_dir/libcuda.so.1"
  export LD_LIBRARY_PATH=$driver_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

# The vendor libraries library variants call (libcublasLt.so.13,
# libcudnn.so.9): the toolkit's, else a PyTorch install's (its nvidia-*
# wheels carry both). Where neither is found the plans run their generated
# variants and say so once.
for lib_dir in /usr/local/cuda/lib64 $(python3 - 2>/dev/null <<'PY'
import importlib, os
for name in ("nvidia.cublas", "nvidia.cudnn", "nvidia.cu13", "nvidia.cu12"):
    try:
        module = importlib.import_module(name)
    except Exception:
        continue
    for root in getattr(module, "__path__", []):
        for sub in ("lib", "lib64"):
            if os.path.isdir(os.path.join(root, sub)):
                print(os.path.join(root, sub))
PY
); do
  [[ -d $lib_dir ]] && export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$lib_dir
done
echo "library search path: ${LD_LIBRARY_PATH:-(none)}" >>"$log"

tolerance_of() { # PRECISION -> the --rtol/--atol of its checks
  case $1 in
  fp32) echo "${TOL_FP32:-1e-4}" ;;
  tf32) echo "${TOL_TF32:-1e-2}" ;;
  fp16) echo "${TOL_FP16:-4e-3}" ;;
  bf16 | fp16+bf16) echo "${TOL_BF16:-3e-2}" ;;
  *) echo "${TOL_FP32:-1e-4}" ;;
  esac
}

steps=()      # "phase|name|status|seconds"
failures=0    # failed steps, and phase-1 checks that did not run
phase=build   # the phase steps are recorded under
phase_end=$deadline
# seconds_left: until the earlier of the phase's end and the deadline (less
# the reserve), from the script's start.
seconds_left() {
  local end=$phase_end
  ((end > deadline - reserve)) && end=$((deadline - reserve))
  echo $((end - (SECONDS - started)))
}
record() { # NAME STATUS SECONDS
  steps+=("$phase|$1|$2|$3")
  printf '%-52s %s\n' "$1" "$2"
}
# step NAME COMMAND...: runs COMMAND under a timeout (STEP_TIMEOUT, or $limit
# when set, cut to what the phase has left), its output appended to the log
# as it comes and kept in $step_output; records PASS, FAIL (exit N), TIMEOUT
# or NOT RUN (out of time). Once the device probe has failed, a step that
# needs the device (all after it) only writes its command into the log.
# Returns the command's status (124: timeout, 125: out of time, 126: no
# device).
step() {
  local name=$1 begin=$SECONDS status rc seconds=${limit:-$step_timeout} left offset
  shift
  if [[ -n $needs_device && -n $device_missing ]]; then
    echo "== $name: NOT RUN (no usable CUDA device): $*" >>"$log"
    steps+=("$phase|$name|NOT RUN: no usable CUDA device|0")
    step_output=
    return 126
  fi
  left=$(seconds_left)
  ((seconds < left)) || seconds=$left
  if ((seconds < 3)); then
    echo "== $name: NOT RUN: out of time" >>"$log"
    record "$name" "NOT RUN: out of time" 0
    step_output=
    return 125
  fi
  echo "== $name: $* (timeout ${seconds}s)" >>"$log"
  # Straight into the log as it comes; in the background, so that a signal
  # to the script is handled at once (the trap ends the step).
  offset=$(stat -c %s "$log")
  timeout -k 5 "$seconds" "$@" >>"$log" 2>&1 &
  step_pid=$!
  wait "$step_pid"
  rc=$?
  step_pid=
  step_output=$(tail -c +$((offset + 1)) "$log")
  case $rc in
  0) status=PASS ;;
  124 | 137) status="TIMEOUT (${seconds}s)" ;;
  *) status="FAIL (exit $rc)" ;;
  esac
  echo "-- $status in $((SECONDS - begin)) s" >>"$log"
  record "$name" "$status" $((SECONDS - begin))
  if [[ $rc -ne 0 ]]; then
    failures=$((failures + 1))
    [[ $rc -eq 137 ]] && rc=124
  fi
  return "$rc"
}
# skip NAME REASON: a step that cannot run, recorded as such (a failure).
skip() {
  record "$1" "NOT RUN: $2" 0
  echo "== $1: NOT RUN: $2" >>"$log"
  failures=$((failures + 1))
}
begin_phase() { # NAME SECONDS
  phase=$1
  phase_end=$((SECONDS - started + $2))
  ((phase_end > deadline)) && phase_end=$deadline
  echo
  echo "-- phase $phase: until ${phase_end}s of ${deadline}s"
  echo "== phase $phase: until ${phase_end}s of ${deadline}s" >>"$log"
}
wants() { [[ $phases == *" $1 "* ]]; }

# What the summary reports, filled in as the steps run.
declare -A precision_of tol_of tunable has_library # by run name
declare -A result maxabs maxrel        # by "name|batch|mode"
declare -A graph_ms kernels_ms plain_ms tuned_ms held
runs=()  # "name|plan|--dim arguments" per plan and shape variant
serve=() # serve-bench lines
tactics_ms=() # "name generated|library: X ms per run" (phase 2)
# Phase 2 probes the wait and sets these; without phase 2 (PHASES=3) fuserun
# probes it itself, under its own deadline.
gate=auto gate_note="not probed here: fuserun probes it (auto)"
unit_tests="NOT BUILT"
gpu=
device_missing=
needs_device=

# The summary: one screen. Also printed when the script is interrupted.
print_summary() {
  local entry s_phase s_name s_status run name g p tb tp
  local -A ran passed
  echo
  echo "== fusec GPU check summary ($(date -u +%Y-%m-%dT%H:%MZ), $((SECONDS - started)) s of ${deadline}s;" \
    "phases:${phases% })"
  echo "device: ${gpu:-unknown (no nvidia-smi)}; build: $(for entry in "${steps[@]}"; do
    IFS='|' read -r _ s_name s_status _ <<<"$entry"
    [[ $s_name == build* ]] && echo "$s_status"
  done | head -n 1); unit tests: $unit_tests"
  if [[ -n $device_missing ]]; then
    echo "DEVICE MISSING: $device_missing"
    echo "(nothing ran on a GPU; the plans, tolerances and commands each phase would have run are in the log)"
  fi
  echo "timing gate: $gate_note"
  local -A missed
  for entry in "${steps[@]}"; do
    IFS='|' read -r s_phase _ s_status _ <<<"$entry"
    ran[$s_phase]=$((${ran[$s_phase]:-0} + 1))
    [[ $s_status == PASS* || $s_status == SKIPPED* ]] && passed[$s_phase]=$((${passed[$s_phase]:-0} + 1))
    [[ $s_status == "NOT RUN"* ]] && missed[$s_phase]=$((${missed[$s_phase]:-0} + 1))
  done
  for s_phase in build 1 2 3; do
    [[ -n ${ran[$s_phase]:-} ]] &&
      printf 'phase %-6s %3d steps: %3d passed, %3d not run\n' "$s_phase" "${ran[$s_phase]}" \
        "${passed[$s_phase]:-0}" "${missed[$s_phase]:-0}"
  done
  echo
  printf '%-26s %-9s %-6s %-11s %-11s %9s %9s %8s %8s %5s %8s %-8s %8s\n' plan precision tol "b1 g/p" \
    "b$check_batch g/p" "max abs" "max rel" graph-ms kern-ms g/k plain-ms tuned tuned-ms
  for run in "${runs[@]}"; do
    IFS='|' read -r name _ _ <<<"$run"
    g=${result[$name|1|graph]:--} p=${result[$name|1|plain]:--}
    tb=${result[$name|$check_batch|graph]:--} tp=${result[$name|$check_batch|plain]:--}
    local worst_abs worst_rel ratio
    worst_abs=$(printf '%s\n' "${maxabs[$name|1|graph]:--}" "${maxabs[$name|1|plain]:--}" \
      "${maxabs[$name|$check_batch|graph]:--}" "${maxabs[$name|$check_batch|plain]:--}" | grep -v '^-$' | worst)
    worst_rel=$(printf '%s\n' "${maxrel[$name|1|graph]:--}" "${maxrel[$name|1|plain]:--}" \
      "${maxrel[$name|$check_batch|graph]:--}" "${maxrel[$name|$check_batch|plain]:--}" | grep -v '^-$' | worst)
    ratio=$(awk -v g="${graph_ms[$name]:-0}" -v k="${kernels_ms[$name]:-0}" \
      'BEGIN { if (g > 0 && k > 0) printf "%.2f", g / k; else print "-" }')
    printf '%-26s %-9s %-6s %-11s %-11s %9s %9s %8s %8s %5s %8s %-8s %8s\n' "$name" "${precision_of[$name]}" \
      "${tol_of[$name]}" "$g/$p" "$tb/$tp" "$worst_abs" "$worst_rel" "${graph_ms[$name]:--}" \
      "${kernels_ms[$name]:--}${held[$name]:+*}" "$ratio" "${plain_ms[$name]:--}" "${result[$name|1|tuned]:--}" \
      "${tuned_ms[$name]:--}"
  done
  echo "(checks: CUDA vs the CPU backend, |out - ref| <= tol + tol*|ref|, graph/plain launches; times: median ms of"
  echo " $iters runs at batch 1 after $warmup; kern-ms: the kernels each timed on its own, * where nothing held the stream)"
  for entry in ${serve[@]+"${serve[@]}"}; do echo "$entry"; done
  for entry in ${tactics_ms[@]+"${tactics_ms[@]}"}; do echo "tactics: $entry"; done
  local shown=0
  for entry in "${steps[@]}"; do
    IFS='|' read -r s_phase s_name s_status _ <<<"$entry"
    [[ $s_status == PASS* || $s_status == SKIPPED* || $s_status == "NOT BUILT"* ]] && continue
    [[ -n $device_missing && $s_status == "NOT RUN: no usable CUDA device" ]] && continue
    ((shown == 0)) && echo "not passed:"
    ((shown < 8)) && printf '  %-60s %s\n' "$s_name" "$s_status"
    shown=$((shown + 1))
  done
  ((shown > 8)) && echo "  ... and $((shown - 8)) more (in the log)"
  if [[ -n $device_missing ]]; then
    echo "check.sh: no usable CUDA device; log: $log"
  elif [[ $failures -gt 0 ]]; then
    echo "check.sh: $failures check(s) or step(s) FAILED or not run; log: $log"
  else
    echo "check.sh: all checks passed; log: $log"
  fi
}
finish() {
  print_summary | tee "$summary" | tee -a "$log"
}
step_pid=
trap '[[ -n $step_pid ]] && kill "$step_pid" 2>/dev/null; echo "check.sh: interrupted" | tee -a "$log"; finish
exit 130' INT TERM

echo "fusec GPU check: plans in $plans, build in $build, results in $results"
echo "deadline ${deadline}s (phase 1 ${phase1_seconds}s after the build, phase 2 ${phase2_seconds}s, phase 3 the rest);" \
  "phases:${phases% }"
if command -v nvidia-smi >/dev/null; then
  limit=15 step "nvidia-smi" nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader &&
    gpu=$(head -n 1 <<<"$step_output")
fi

# The build, its GPU unit tests, the device probe.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
fuserun=$build/bin/fuserun
# shellcheck disable=SC2086 # CMAKE_ARGS: several words
if limit=120 step "configure (runtime only, tests $tests)" cmake -S "$root" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DFUSEC_BUILD_COMPILER=OFF -DFUSEC_BUILD_TESTS="$tests" ${CMAKE_ARGS:-}; then
  limit=$build_timeout step "build (-j $jobs)" cmake --build "$build" -j "$jobs"
else
  skip "build" "configure failed"
fi
# Only where this configuration builds them (a binary may be left from an
# earlier one).
if [[ -x $build/bin/fusec-gpu-runtime ]] && cmake --build "$build" --target help 2>/dev/null | grep -q fusec-gpu-runtime; then
  # The GPU tests exit 77 where no device is found; ctest calls that skipped.
  if limit=120 step "unit tests (ctest -L gpu)" ctest --test-dir "$build" -L gpu --timeout 60 --output-on-failure; then
    unit_tests=PASS
    if grep -q "(Skipped)" <<<"$step_output"; then
      unit_tests="SKIPPED: no usable CUDA device"
      steps[${#steps[@]} - 1]="build|unit tests (ctest -L gpu)|SKIPPED: no usable CUDA device|0"
    fi
  else
    unit_tests=FAILED
  fi
else
  record "unit tests (ctest -L gpu)" "NOT BUILT (tests off, no Catch2 v2, or no build)" 0
fi

shopt -s nullglob
plan_files=("$plans"/*.plan)
if [[ ${#plan_files[@]} -eq 0 ]]; then
  skip "plans" "no .plan files in $plans (make them with test/gpu/make-plans.sh)"
elif [[ ! -x $fuserun ]]; then
  device_missing="no fuserun (the build failed)"
  skip "device probe" "$device_missing"
elif ! limit=60 step "device probe (fuserun --device=cuda)" "$fuserun" "${plan_files[0]}" --device=cuda --batch=1 \
  --random-inputs=1; then
  device_missing=$(sed -n 's/^fuserun: error: cannot run on cuda: //p' <<<"$step_output" | head -n 1)
  [[ -n $device_missing ]] || device_missing="fuserun --device=cuda failed (see the log)"
fi
needs_device=1

# What each plan is, from the plan itself (fuserun --info): its precision
# and tolerance, its shape variants (one run each), whether it has
# compiled variants to tune.
for plan in "${plan_files[@]}"; do
  base=$(basename "$plan" .plan)
  info=
  if [[ -x $fuserun ]]; then
    info=$("$fuserun" "$plan" --info 2>&1) || {
      skip "read $base.plan" "$(tail -n 1 <<<"$info")"
      continue
    }
  fi
  precision=$(sed -n 's/^precision: //p' <<<"$info")
  grep -q "compiled variants" <<<"$info" && tunable[$base]=1
  # Library variants: tuned like compiled ones, and timed all-generated
  # against all-library in phase 2.
  grep -q "(library variant: " <<<"$info" && tunable[$base]=1 && has_library[$base]=1
  # "shape variants (...): [seq=128] seq=256" gives "--dim seq=128" and
  # "--dim seq=256" ("a=1, b=2" gives two --dim).
  line=$(sed -n 's/^shape variants ([^)]*): //p' <<<"$info" | tr -d '[]')
  line=${line//, /,}
  # "ranges (...): seq=1:64:256" gives runs at each end of every range
  # and at its opt: "--dim seq=1", "--dim seq=64", "--dim seq=256".
  ranges=$(sed -n 's/^ranges ([^)]*): //p' <<<"$info")
  if [[ -n $ranges ]]; then
    line=
    for point in 0 1 2; do
      sizes=
      for range in ${ranges//, / }; do
        IFS=':' read -r -a bounds <<<"${range#*=}"
        sizes+="${sizes:+,}${range%%=*}=${bounds[point]}"
      done
      [[ " $line " == *" $sizes "* ]] || line+="${line:+ }$sizes"
    done
  fi
  for sizes in ${line:-"-"}; do
    name=$base dims=
    if [[ $sizes != - ]]; then
      dims="--dim ${sizes//,/ --dim }"
      name="${base}[$sizes]"
    fi
    precision_of[$name]=${precision:-unknown}
    tol_of[$name]=$(tolerance_of "${precision:-unknown}")
    runs+=("$name|$plan|$dims")
  done
done
if [[ ${#runs[@]} -gt 0 ]]; then
  echo "plans (precision and tolerance read from each plan):" | tee -a "$log"
  for run in "${runs[@]}"; do
    IFS='|' read -r name _ _ <<<"$run"
    printf '  %-30s %-10s rtol = atol = %s%s\n' "$name" "${precision_of[$name]}" "${tol_of[$name]}" \
      "${tunable[${name%%\[*}]:+  (compiled variants)}" | tee -a "$log"
  done
fi

# check_status RC OUTPUT: ok, MISMATCH, TIMEOUT, NOT RUN or ERROR.
check_status() {
  case $1 in
  0) echo ok ;;
  124) echo TIMEOUT ;;
  125) echo "NOT RUN" ;;
  126) echo "-" ;;
  *) if grep -q "differ from the CPU backend" <<<"$2"; then echo MISMATCH; else echo ERROR; fi ;;
  esac
}
# worst VALUE... -> the largest (inf beats any number); - for none.
worst() { awk 'BEGIN { w = "-" } { if (w == "-" || $1 == "inf" || (w != "inf" && $1 + 0 > w + 0)) w = $1 } END { print w }'; }
median_of() { sed -n "s/^$1.*median \([^ ]*\) ms.*/\1/p" <<<"$2" | head -n 1; }

# Phase 1: correctness.
check_run() { # NAME PLAN DIMS BATCH MODE(graph|plain)
  local key="$1|$4|$5" flags=() rc
  # shellcheck disable=SC2206 # "--dim a=1 --dim b=2" splits into its words
  local dims=($3)
  [[ $5 == plain ]] && flags=(--no-graph)
  step "1: $1 batch $4 $5 check (tol ${tol_of[$1]})" "$fuserun" "$2" ${dims[@]+"${dims[@]}"} --device=cuda \
    --batch="$4" --random-inputs=1 --check --rtol="${tol_of[$1]}" --atol="${tol_of[$1]}" ${flags[@]+"${flags[@]}"}
  rc=$?
  result[$key]=$(check_status $rc "$step_output")
  [[ $rc -eq 125 ]] && failures=$((failures + 1))
  maxabs[$key]=$(sed -n 's/.*max abs error \([^,]*\),.*/\1/p' <<<"$step_output" | worst)
  maxrel[$key]=$(sed -n 's/.*max rel error \([^:]*\):.*/\1/p' <<<"$step_output" | worst)
}
if wants 1; then
  begin_phase 1 "$phase1_seconds"
  for pass in "1 graph" "$check_batch graph" "1 plain" "$check_batch plain"; do
    read -r batch mode <<<"$pass"
    for run in "${runs[@]}"; do
      IFS='|' read -r name plan dims <<<"$run"
      check_run "$name" "$plan" "$dims" "$batch" "$mode"
    done
  done
fi

# Phase 2: timing.
time_run() { # NAME PLAN DIMS MODE(graph|plain)
  local flags=(--timing-gate="$gate")
  # shellcheck disable=SC2206 # "--dim a=1 --dim b=2" splits into its words
  local dims=($3)
  if [[ $4 == graph ]]; then flags+=(--time-kernels); else flags+=(--no-graph); fi
  step "2: $1 batch 1 $4 timing" "$fuserun" "$2" ${dims[@]+"${dims[@]}"} --device=cuda --batch=1 --random-inputs=1 \
    --iters="$iters" --warmup="$warmup" "${flags[@]}" || return
  if [[ $4 == graph ]]; then
    graph_ms[$1]=$(median_of "timing execute" "$step_output")
    kernels_ms[$1]=$(median_of "timing kernels" "$step_output")
    grep -q "the stream not held" <<<"$step_output" && held[$1]=no
  else
    plain_ms[$1]=$(median_of "timing execute" "$step_output")
  fi
}
if wants 2; then
  begin_phase 2 "$phase2_seconds"
  if [[ ${#plan_files[@]} -gt 0 ]]; then
    # The host-memory wait, once: a deadline of its own, and a fallback that
    # needs no host-mapped memory.
    limit=30 step "2: host-memory wait probe (--timing-gate=auto)" "$fuserun" "${plan_files[0]}" --device=cuda \
      --batch=1 --random-inputs=1 --iters=1 --time-kernels --timing-gate=auto
    rc=$?
    if [[ $rc -eq 0 ]] && grep -q "wait on host memory is unusable" <<<"$step_output"; then
      gate=none
      gate_note="none: $(sed -n 's/.*unusable here (\(.*\)): kernels timed.*/\1/p' <<<"$step_output" | head -n 1)"
    elif [[ $rc -eq 0 ]]; then
      gate=host-flag gate_note="host-flag (the probe passed)"
    elif [[ $rc -eq 126 ]]; then
      gate=none gate_note="not probed (no device); would be host-flag, or none where the probe fails"
    else
      gate=none
      gate_note="none: the probe run failed or timed out (see the log)"
      # The fallback covers it: the summary says so, it is not a failure.
      [[ $rc -ne 125 ]] && failures=$((failures - 1))
    fi
    echo "timing gate: $gate_note" | tee -a "$log"
    for mode in graph plain; do
      for run in "${runs[@]}"; do
        IFS='|' read -r name plan dims <<<"$run"
        time_run "$name" "$plan" "$dims" "$mode"
      done
    done
    # Per plan with library variants: every kernel generated, then every
    # kernel that has one on its library, cuBLASLt or cuDNN (the floor
    # generated kernels must beat).
    for run in "${runs[@]}"; do
      IFS='|' read -r name plan dims <<<"$run"
      [[ -n ${has_library[${name%%\[*}]:-} ]] || continue
      # shellcheck disable=SC2206 # "--dim a=1 --dim b=2" splits into its words
      dim_args=($dims)
      for tactics in generated library; do
        step "2: $name batch 1 graph timing, --tactics=$tactics" "$fuserun" "$plan" ${dim_args[@]+"${dim_args[@]}"} \
          --device=cuda --batch=1 --random-inputs=1 --iters="$iters" --warmup="$warmup" --time-kernels \
          --timing-gate="$gate" --tactics="$tactics" &&
          tactics_ms+=("$name $tactics: $(median_of "timing execute" "$step_output") ms per run")
      done
    done
    # The Hopper GEMM at full size (docs/hopper.md): a 4096^3 f16 product,
    # 137.4 GFLOP per run, its wgmma kernel (generated) against cuBLASLt.
    if [[ -f $plans/gemm4096_sm90a.plan ]]; then
      for tactics in generated library; do
        step "2: gemm4096_sm90a batch 4096 graph timing, --tactics=$tactics" "$fuserun" "$plans/gemm4096_sm90a.plan" \
          --device=cuda --batch=4096 --random-inputs=1 --iters=20 --warmup=3 --time-kernels --timing-gate="$gate" \
          --tactics="$tactics" &&
          tactics_ms+=("gemm4096_sm90a@4096 $tactics: $(median_of "timing execute" "$step_output") ms per run")
      done
    fi
    # The Hopper convs at a batch that fills the GPU: the bottleneck's
    # pointwise convs on the wgmma GEMM, its 3x3s on the wgmma implicit GEMM,
    # each kernel timed.
    if [[ -f $plans/bottleneck_nhwc_fp16_sm90a.plan ]]; then
      step "2: bottleneck_nhwc_fp16_sm90a batch 32 graph timing" "$fuserun" \
        "$plans/bottleneck_nhwc_fp16_sm90a.plan" --device=cuda --batch=32 --random-inputs=1 --iters=20 --warmup=3 \
        --time-kernels --timing-gate="$gate" &&
        tactics_ms+=("bottleneck_nhwc_fp16_sm90a@32: $(median_of "timing execute" "$step_output") ms per run")
    fi
    for bench in mlp resnet18_fp16; do
      [[ -f $plans/$bench.plan ]] || continue
      limit=45 step "2: serve bench ($bench, 4 clients)" "$fuserun" "$plans/$bench.plan" --device=cuda --serve-bench \
        --clients=4 --requests=20 --batch-dist=1:0.5,4:0.3,16:0.2 &&
        serve+=("$bench: $(grep -m 1 '^serve-bench' <<<"$step_output")")
    done
  fi
fi

# Phase 3, optional: tuning and the comparison with PyTorch.
if wants 3; then
  begin_phase 3 "$deadline"
  for run in "${runs[@]}"; do
    IFS='|' read -r name plan dims <<<"$run"
    [[ -n ${tunable[${name%%\[*}]:-} ]] || continue
    # shellcheck disable=SC2206 # "--dim a=1 --dim b=2" splits into its words
    dim_args=($dims)
    limit=$tune_timeout step "3: $name batch 1 tune + check (tol ${tol_of[$name]})" "$fuserun" "$plan" \
      ${dim_args[@]+"${dim_args[@]}"} --device=cuda --batch=1 --random-inputs=1 --tune \
      --tuning-cache="$results/tuning.json" --timing-gate="$gate" --check --rtol="${tol_of[$name]}" \
      --atol="${tol_of[$name]}" --iters="$iters" --warmup="$warmup"
    rc=$?
    result[$name|1|tuned]=$(check_status $rc "$step_output")
    tuned_ms[$name]=$(median_of "timing execute" "$step_output")
  done
  # compare.py stops itself at its --deadline; the step's timeout is the
  # hard one.
  left=$(seconds_left)
  ((left > compare_seconds)) && left=$compare_seconds
  if ! command -v "$python" >/dev/null; then
    record "3: compare.py" "NOT RUN: no $python" 0
  elif ((left < 30)) && [[ -z $device_missing ]]; then
    record "3: compare.py" "NOT RUN: out of time (${left}s left)" 0
  else
    limit=$left step "3: compare.py (deadline $((left - 10))s)" "$python" -u "$root/bench/gpu/compare.py" run \
      --plans "$plans" --fuserun "$fuserun" --iters 100 --warmup 10 --timing-gate "$gate" --deadline $((left - 10))
    [[ -n $step_output ]] && printf '%s\n' "$step_output" >"$results/compare.txt"
  fi
fi

trap - INT TERM
finish
if [[ -n $device_missing ]]; then
  exit 77
fi
[[ $failures -eq 0 ]]
