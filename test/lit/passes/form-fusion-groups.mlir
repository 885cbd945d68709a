// fuse-form-fusion-groups: the cost-model planner. It writes `fuse.group` on
// every compute op (numbered 0, 1, ... in program order of the groups),
// `fuse.fused_by` on ops that joined a group, the estimates
// `fuse.kernel_cost` on each group's first op, and `fuse.rejected_fusions` and
// `fuse.fusion_config` on the function. Legality rejections are in
// legality.mlir, option errors in form-fusion-groups-errors.mlir.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups))' \
// RUN:   | FileCheck %s
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{strategy=none}))' \
// RUN:   | FileCheck %s --check-prefix=NONE --implicit-check-not=fuse.fused_by
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{strategy=dp}))' \
// RUN:   | FileCheck %s --check-prefix=DP
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{device-profile=a100 cost-batch=4}))' \
// RUN:   | FileCheck %s --check-prefix=A100
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{device-profile=%S/Inputs/negative-launch-profile.json}))' \
// RUN:   | FileCheck %s --check-prefix=TOY
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-epilogues,fuse-form-fusion-groups))' \
// RUN:   | FileCheck %s --check-prefix=EPI

// An elementwise chain of one shape becomes one group. The first op carries
// the cost estimate: at batch 1 the fused kernel reads x and writes the tanh
// (2 x 256 bytes); unfused, each of the three ops reads and writes 256 bytes.
// Plans replay as CUDA graphs: each kernel costs the H200's graph node
// overhead of 0.8 us; the bandwidth is 4800 GB/s.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-SAME: attributes {fuse.fusion_config = {cost_model = "roofline", device_profile = "H200", strategy = "greedy"}, fuse.rejected_fusions = []}
// CHECK: fuse.relu %{{.*}} {fuse.group = 0 : i64, fuse.kernel_cost = {fused_bytes = 5.120000e+02 : f64, fused_us = 0.80010{{[0-9]*}} : f64, unfused_bytes = 1.536000e+03 : f64, unfused_kernels = 3 : i64, unfused_us = 2.40032{{[0-9]*}} : f64}}
// CHECK-NEXT: fuse.sigmoid %{{.*}} {fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// CHECK-NEXT: fuse.tanh %{{.*}} {fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// CHECK-NEXT: return
// With strategy=none every op is its own group, each with its own cost; no
// op is marked fused_by.
// NONE-LABEL: func.func @elementwise_chain
// NONE-SAME: fuse.fusion_config = {cost_model = "roofline", device_profile = "H200", strategy = "none"}, fuse.rejected_fusions = []
// NONE: fuse.relu %{{.*}} {fuse.group = 0 : i64, fuse.kernel_cost = {fused_bytes = 5.120000e+02 : f64, {{.*}}, unfused_bytes = 5.120000e+02 : f64, unfused_kernels = 1 : i64
// NONE-NEXT: fuse.sigmoid %{{.*}} {fuse.group = 1 : i64, fuse.kernel_cost = {fused_bytes = 5.120000e+02 : f64, {{.*}}, unfused_kernels = 1 : i64
// NONE-NEXT: fuse.tanh %{{.*}} {fuse.group = 2 : i64, fuse.kernel_cost = {fused_bytes = 5.120000e+02 : f64, {{.*}}, unfused_kernels = 1 : i64
// DP-LABEL: func.func @elementwise_chain
// DP-SAME: strategy = "dp"
// DP: fuse.relu %{{.*}} {fuse.group = 0 : i64, fuse.kernel_cost = {fused_bytes = 5.120000e+02 : f64, {{.*}}unfused_kernels = 3 : i64
// DP-NEXT: fuse.sigmoid %{{.*}} {fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// DP-NEXT: fuse.tanh %{{.*}} {fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// The profile and the pricing batch: A100 (2039 GB/s, 1 us per graph node), 4 x
// the bytes.
// A100-LABEL: func.func @elementwise_chain
// A100-SAME: fuse.fusion_config = {cost_model = "roofline", device_profile = "A100", strategy = "greedy"}
// A100: fuse.relu %{{.*}} {fuse.group = 0 : i64, fuse.kernel_cost = {fused_bytes = 2.048000e+03 : f64, fused_us = 1.00100{{[0-9]*}} : f64, unfused_bytes = 6.144000e+03 : f64, unfused_kernels = 3 : i64, unfused_us = 3.00301{{[0-9]*}} : f64}}
// A profile from a JSON file (named "Toy") where a kernel (a CUDA graph
// node) costs -100 us:
// every merge costs time, so nothing merges and each candidate is recorded as
// unprofitable with both times (0.512 us of traffic at 1 GB/s per kernel).
// TOY-LABEL: func.func @elementwise_chain
// TOY-SAME: fuse.fusion_config = {cost_model = "roofline", device_profile = "Toy", strategy = "greedy"}
// TOY-SAME: fuse.rejected_fusions = [{detail = "fusing saves no time", first = "relu", fused_us = -99.488 : f64, reason = "unprofitable", rule = "cost-model", second = "sigmoid", unfused_us = -1.989760e+02 : f64}, {detail = "fusing saves no time", first = "sigmoid", fused_us = -99.488 : f64, reason = "unprofitable", rule = "cost-model", second = "tanh", unfused_us = -1.989760e+02 : f64}]
// TOY: fuse.relu {{.*}}fuse.group = 0 : i64
// TOY-NEXT: fuse.sigmoid {{.*}}fuse.group = 1 : i64
// TOY-NEXT: fuse.tanh {{.*}}fuse.group = 2 : i64
func.func @elementwise_chain(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %r = fuse.relu %x : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("relu")
  %s = fuse.sigmoid %r : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("sigmoid")
  %t = fuse.tanh %s : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("tanh")
  return %t : tensor<?x64xf32>
}

// -----

// Two elementwise ops reading the same graph input: sibling fusion. Both
// results are written (768 bytes: x once, two outputs).
// CHECK-LABEL: func.func @siblings
// CHECK: fuse.relu %[[X:[^ ]*]] {fuse.group = 0 : i64, fuse.kernel_cost = {fused_bytes = 7.680000e+02 : f64, {{.*}}unfused_bytes = 1.024000e+03 : f64, unfused_kernels = 2 : i64
// CHECK-NEXT: fuse.sigmoid %[[X]] {fuse.fused_by = "sibling-fusion", fuse.group = 0 : i64}
// NONE-LABEL: func.func @siblings
// NONE: fuse.relu {{.*}}fuse.group = 0 : i64
// NONE-NEXT: fuse.sigmoid {{.*}}fuse.group = 1 : i64
func.func @siblings(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %r = fuse.relu %x : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %s = fuse.sigmoid %x : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r, %s : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// Sharing only a constant does not make siblings: the two adds stay apart.
// CHECK-LABEL: func.func @shared_constant_is_not_sibling
// CHECK: fuse.add {{.*}}{fuse.group = 0 : i64, fuse.kernel_cost
// CHECK-NEXT: fuse.add {{.*}}{fuse.group = 1 : i64, fuse.kernel_cost
// CHECK-NOT: fuse.fused_by
// CHECK: return
func.func @shared_constant_is_not_sibling(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %c = fuse.constant dense<1.0> : tensor<64xf32>
  %a = fuse.add %x, %c : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %b = fuse.add %y, %c : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  return %a, %b : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// Softmax with an elementwise prologue (a scale by a constant) and epilogue:
// one reduction kernel. The rule is reduction-fusion, the softmax itself has
// no fused_by. Reading x and the 64-float scale and writing the relu: 4352 bytes.
// CHECK-LABEL: func.func @softmax_prologue_epilogue
// CHECK: fuse.mul {{.*}}{fuse.fused_by = "reduction-fusion", fuse.group = 0 : i64, fuse.kernel_cost = {fused_bytes = 4.352000e+03 : f64, {{.*}}unfused_kernels = 3 : i64
// CHECK-NEXT: fuse.softmax {{.*}}{axis = 2 : i64, fuse.group = 0 : i64}
// CHECK-NEXT: fuse.relu {{.*}}{fuse.fused_by = "reduction-fusion", fuse.group = 0 : i64}
// NONE-LABEL: func.func @softmax_prologue_epilogue
// NONE: fuse.mul {{.*}}fuse.group = 0 : i64
// NONE-NEXT: fuse.softmax {{.*}}fuse.group = 1 : i64
// NONE-NEXT: fuse.relu {{.*}}fuse.group = 2 : i64
// DP-LABEL: func.func @softmax_prologue_epilogue
// DP: fuse.mul {{.*}}{fuse.fused_by = "reduction-fusion", fuse.group = 0 : i64
// DP-NEXT: fuse.softmax {{.*}}fuse.group = 0 : i64
// DP-NEXT: fuse.relu {{.*}}{fuse.fused_by = "reduction-fusion", fuse.group = 0 : i64}
func.func @softmax_prologue_epilogue(%x: tensor<?x8x64xf32>) -> tensor<?x8x64xf32> {
  %c = fuse.constant dense<2.0> : tensor<64xf32>
  %m = fuse.mul %x, %c : (tensor<?x8x64xf32>, tensor<64xf32>) -> tensor<?x8x64xf32>
  %s = fuse.softmax %m {axis = 2 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32>
  %r = fuse.relu %s : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32>
  return %r : tensor<?x8x64xf32>
}

// -----

// ReduceMean: the prologue has the reduction's input shape, the epilogue its
// output shape ([?,8,1]).
// CHECK-LABEL: func.func @reduce_mean_prologue_epilogue
// CHECK: fuse.sqrt {{.*}}{fuse.fused_by = "reduction-fusion", fuse.group = 0 : i64, fuse.kernel_cost = {{.*}}unfused_kernels = 3 : i64
// CHECK-NEXT: fuse.reduce_mean {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: fuse.sigmoid {{.*}}{fuse.fused_by = "reduction-fusion", fuse.group = 0 : i64} : (tensor<?x8x1xf32>)
func.func @reduce_mean_prologue_epilogue(%x: tensor<?x8x64xf32>) -> tensor<?x8x1xf32> {
  %e = fuse.sqrt %x : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32>
  %m = fuse.reduce_mean %e {axes = array<i64: 2>, keepdims = true} : (tensor<?x8x64xf32>) -> tensor<?x8x1xf32>
  %r = fuse.sigmoid %m : (tensor<?x8x1xf32>) -> tensor<?x8x1xf32>
  return %r : tensor<?x8x1xf32>
}

// -----

// Pooling takes an epilogue (rule reduction-fusion).
// CHECK-LABEL: func.func @pool_epilogue
// CHECK: fuse.max_pool {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: fuse.relu {{.*}}{fuse.fused_by = "reduction-fusion", fuse.group = 0 : i64}
func.func @pool_epilogue(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> {
  %m = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
  %r = fuse.relu %m : (tensor<?x3x4x4xf32>) -> tensor<?x3x4x4xf32>
  return %r : tensor<?x3x4x4xf32>
}

// -----

// The groups fuse-form-epilogues formed are kept, and the planner extends
// them: the erf (not an epilogue rule pattern) joins conv+relu by
// epilogue-fusion. Without the rule patterns the planner alone joins both.
// EPI-LABEL: func.func @keeps_epilogue_groups
// EPI: fuse.conv {{.*}}fuse.group = 0 : i64, fuse.kernel_cost = {{.*}}unfused_kernels = 3 : i64,
// EPI-NEXT: fuse.relu {{.*}}{fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// EPI-NEXT: fuse.erf {{.*}}{fuse.fused_by = "epilogue-fusion", fuse.group = 0 : i64}
// CHECK-LABEL: func.func @keeps_epilogue_groups
// CHECK: fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: fuse.relu {{.*}}{fuse.fused_by = "epilogue-fusion", fuse.group = 0 : i64}
// CHECK-NEXT: fuse.erf {{.*}}{fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
func.func @keeps_epilogue_groups(%x: tensor<?x3x8x8xf32>) -> tensor<?x4x6x6xf32> {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %r = fuse.relu %c : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %e = fuse.erf %r : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  return %e : tensor<?x4x6x6xf32>
}

// -----

// Group ids already in the input (here 7 and 3) are kept as groups, even by
// strategy=none, and renumbered in program order.
// NONE-LABEL: func.func @preformed_groups
// NONE: fuse.relu {{.*}}{fuse.group = 0 : i64, fuse.kernel_cost = {{.*}}unfused_kernels = 2 : i64,
// NONE-NEXT: fuse.sigmoid {{.*}}{fuse.group = 0 : i64}
// NONE-NEXT: fuse.tanh {{.*}}{fuse.group = 1 : i64, fuse.kernel_cost = {{.*}}unfused_kernels = 2 : i64,
// NONE-NEXT: fuse.erf {{.*}}{fuse.group = 1 : i64}
// NONE-NEXT: fuse.sqrt {{.*}}{fuse.group = 2 : i64, fuse.kernel_cost = {{.*}}unfused_kernels = 1 : i64,
func.func @preformed_groups(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %a = fuse.relu %x {fuse.group = 7 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %b = fuse.sigmoid %a {fuse.group = 7 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %c = fuse.tanh %b {fuse.group = 3 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %d = fuse.erf %c {fuse.group = 3 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %e = fuse.sqrt %d : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %e : tensor<?x64xf32>
}

// -----

// dp finds the optimal segmentation of a chain where greedy does not. The
// chain is four pre-formed groups of 1, 32, 32 and 1 ops (kernels hold at most
// 64). The middle groups exchange two values (%v31 and %v32), so greedy merges
// them first (the largest benefit) and is then stuck with three kernels:
// neither single op may join the 64-op group. dp makes two kernels of 33 ops.
// CHECK-LABEL: func.func @dp_beats_greedy
// CHECK-SAME: rule = "kernel-size"
// CHECK: %0 = fuse.relu %arg0 {fuse.group = 0 : i64
// CHECK: %1 = fuse.relu %0 {{.*}}fuse.group = 1 : i64
// CHECK: %32 = fuse.relu %31 {{.*}}fuse.group = 1 : i64
// CHECK: %33 = fuse.add %31, %32 {{.*}}fuse.group = 1 : i64
// CHECK: %64 = fuse.relu %63 {{.*}}fuse.group = 1 : i64
// CHECK: %65 = fuse.relu %64 {fuse.group = 2 : i64
// DP-LABEL: func.func @dp_beats_greedy
// DP: %0 = fuse.relu %arg0 {fuse.group = 0 : i64, fuse.kernel_cost = {{.*}}unfused_kernels = 33 : i64,
// DP: %32 = fuse.relu %31 {{.*}}fuse.group = 0 : i64
// DP: %33 = fuse.add %31, %32 {{.*}}fuse.group = 1 : i64, fuse.kernel_cost = {{.*}}unfused_kernels = 33 : i64,
// DP: %65 = fuse.relu %64 {{.*}}fuse.group = 1 : i64
// DP-NOT: fuse.group = 2
// DP: return
func.func @dp_beats_greedy(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %v0 = fuse.relu %x {fuse.group = 10 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v1 = fuse.relu %v0 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v2 = fuse.relu %v1 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v3 = fuse.relu %v2 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v4 = fuse.relu %v3 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v5 = fuse.relu %v4 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v6 = fuse.relu %v5 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v7 = fuse.relu %v6 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v8 = fuse.relu %v7 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v9 = fuse.relu %v8 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v10 = fuse.relu %v9 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v11 = fuse.relu %v10 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v12 = fuse.relu %v11 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v13 = fuse.relu %v12 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v14 = fuse.relu %v13 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v15 = fuse.relu %v14 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v16 = fuse.relu %v15 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v17 = fuse.relu %v16 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v18 = fuse.relu %v17 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v19 = fuse.relu %v18 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v20 = fuse.relu %v19 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v21 = fuse.relu %v20 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v22 = fuse.relu %v21 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v23 = fuse.relu %v22 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v24 = fuse.relu %v23 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v25 = fuse.relu %v24 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v26 = fuse.relu %v25 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v27 = fuse.relu %v26 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v28 = fuse.relu %v27 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v29 = fuse.relu %v28 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v30 = fuse.relu %v29 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v31 = fuse.relu %v30 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v32 = fuse.relu %v31 {fuse.group = 11 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v33 = fuse.add %v31, %v32 {fuse.group = 12 : i64} : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %v34 = fuse.relu %v33 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v35 = fuse.relu %v34 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v36 = fuse.relu %v35 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v37 = fuse.relu %v36 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v38 = fuse.relu %v37 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v39 = fuse.relu %v38 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v40 = fuse.relu %v39 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v41 = fuse.relu %v40 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v42 = fuse.relu %v41 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v43 = fuse.relu %v42 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v44 = fuse.relu %v43 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v45 = fuse.relu %v44 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v46 = fuse.relu %v45 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v47 = fuse.relu %v46 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v48 = fuse.relu %v47 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v49 = fuse.relu %v48 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v50 = fuse.relu %v49 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v51 = fuse.relu %v50 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v52 = fuse.relu %v51 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v53 = fuse.relu %v52 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v54 = fuse.relu %v53 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v55 = fuse.relu %v54 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v56 = fuse.relu %v55 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v57 = fuse.relu %v56 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v58 = fuse.relu %v57 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v59 = fuse.relu %v58 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v60 = fuse.relu %v59 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v61 = fuse.relu %v60 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v62 = fuse.relu %v61 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v63 = fuse.relu %v62 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v64 = fuse.relu %v63 {fuse.group = 12 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %v65 = fuse.relu %v64 {fuse.group = 13 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %v65 : tensor<?x64xf32>
}
