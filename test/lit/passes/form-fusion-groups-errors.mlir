// Option errors of fuse-form-fusion-groups, reported on the function: an
// unknown strategy, cost model, device profile (naming the known ones) or
// precision, a malformed device profile file, and a cost batch below 1.
// RUN: not fusec-opt %s -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{precision=fp8}))' 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --check-prefix=PRECISION
// PRECISION: [[FILE]]:[[@LINE+17]]:1: error: unknown precision 'fp8' (expected fp32 or tf32)
// RUN: not fusec-opt %s -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{strategy=bogus}))' 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --check-prefix=STRATEGY
// STRATEGY: [[FILE]]:[[@LINE+14]]:1: error: unknown fusion strategy 'bogus' (known: dp, greedy, none)
// RUN: not fusec-opt %s -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{cost-model=nope}))' 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --check-prefix=COST
// COST: [[FILE]]:[[@LINE+11]]:1: error: unknown cost model 'nope' (known: roofline)
// RUN: not fusec-opt %s -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{device-profile=v100}))' 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --check-prefix=PROFILE
// PROFILE: [[FILE]]:[[@LINE+8]]:1: error: device profile 'v100': not a built-in profile (a100, h100, h200) and not a readable file: {{[Nn]}}o such file or directory
// RUN: not fusec-opt %s -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{device-profile=%S/Inputs/bad-profile.json}))' 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s -DPROFILE=%S/Inputs/bad-profile.json --check-prefix=BAD-PROFILE
// BAD-PROFILE: [[FILE]]:[[@LINE+5]]:1: error: device profile '[[PROFILE]]': 'arch' must be a string
// The value must be printed as a number.
// RUN: not fusec-opt %s -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{cost-batch=0}))' 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --check-prefix=BATCH
// BATCH: [[FILE]]:[[@LINE+1]]:1: error: cost-batch must be >= 1, got 0{{$}}
func.func @f(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %r = fuse.relu %x : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}
