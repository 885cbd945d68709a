#!/usr/bin/env bash
# ctest gpu-plans-fit: the plans test/gpu/make-plans.sh compiles (afresh,
# into DIR) are the ones check.sh expects, and they fit what a GPU machine
# may be sent (make-plans.sh fails at PLANS_LIMIT_MIB, 48 MiB); the size
# check itself fails a folder over its limit.
#   test/gpu/plans-fit-test.sh DIR        (FUSEC names the compiler)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
rm -rf "$dir"
"$here/make-plans.sh" "$dir"
for name in mlp tiny_resnet residual_block_tf32 resnet18_fp16 encoder_d64 encoder_d64_fp16 encoder_d64_bf16 \
  encoder_d60 encoder_d64_seqs; do
  [[ -s $dir/$name.plan ]] || {
    echo "plans-fit-test: make-plans.sh wrote no $name.plan" >&2
    exit 1
  }
done
if PLANS_LIMIT_MIB=1 "$here/make-plans.sh" --sizes "$dir" >/dev/null 2>&1; then
  echo "plans-fit-test: the size check passed $dir at a limit of 1 MiB" >&2
  exit 1
fi
echo "plans-fit-test: passed"
