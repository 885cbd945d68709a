// The planner's legality rules (FusionGraph::checkMerge): for each rule a
// function where fuse-form-fusion-groups must reject a merge, with the entry
// it records in `fuse.rejected_fusions` (first, second, reason, rule, detail;
// illegal candidates carry no times). Names are the ops' locations.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups))' \
// RUN:   | FileCheck %s
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{strategy=dp}))' \
// RUN:   | FileCheck %s --check-prefix=DP
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{disabled-rules=elementwise-fusion}))' \
// RUN:   | FileCheck %s --check-prefix=NO-EW
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{disabled-rules=sibling-fusion}))' \
// RUN:   | FileCheck %s --check-prefix=NO-SIB
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups{disabled-rules=epilogue-fusion,reduction-fusion}))' \
// RUN:   | FileCheck %s --check-prefix=NO-CORE
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(fuse-fusion-pipeline)' \
// RUN:   | FileCheck %s --check-prefix=OUTLINED

// cycle: `a` feeds `b` directly and through the reduction `c`. Merging a and b
// would make their kernel run both before and after c. (a+c and c+b are
// rejected too: two cores, and an epilogue of another shape.)
// CHECK-LABEL: func.func @cycle_through_reduction
// CHECK-SAME: {detail = "'a' reaches 'b' through another kernel", first = "a", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "cycle", second = "b", unfused_us = 0.000000e+00 : f64}
// CHECK-SAME: {detail = "both 'a' and 'c' have a conv/gemm/pool/reduction/data-movement op", first = "a", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "one-core", second = "c", unfused_us = 0.000000e+00 : f64}
// CHECK: fuse.softmax {{.*}}fuse.group = 0 : i64
// CHECK: fuse.reduce_mean {{.*}}fuse.group = 1 : i64
// CHECK: fuse.sub {{.*}}fuse.group = 2 : i64
// DP-LABEL: func.func @cycle_through_reduction
// DP-SAME: rule = "cycle"
// DP: fuse.softmax {{.*}}fuse.group = 0 : i64
// DP: fuse.reduce_mean {{.*}}fuse.group = 1 : i64
// DP: fuse.sub {{.*}}fuse.group = 2 : i64
func.func @cycle_through_reduction(%x: tensor<?x8x64xf32>) -> tensor<?x8x64xf32> {
  %a = fuse.softmax %x {axis = 2 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("a")
  %c = fuse.reduce_mean %a {axes = array<i64: 2>, keepdims = true} : (tensor<?x8x64xf32>) -> tensor<?x8x1xf32> loc("c")
  %b = fuse.sub %a, %c : (tensor<?x8x64xf32>, tensor<?x8x1xf32>) -> tensor<?x8x64xf32> loc("b")
  return %b : tensor<?x8x64xf32>
}

// -----

// cycle between siblings: p and q both read x, but p reaches q through the
// transpose r (which stays alone: data-movement).
// CHECK-LABEL: func.func @sibling_cycle
// CHECK-SAME: {detail = "'r' moves data", first = "p", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "data-movement", second = "r", unfused_us = 0.000000e+00 : f64}
// CHECK-SAME: {detail = "'r' moves data", first = "r", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "data-movement", second = "q", unfused_us = 0.000000e+00 : f64}
// CHECK-SAME: {detail = "one sibling depends on the other", first = "p", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "cycle", second = "q", unfused_us = 0.000000e+00 : f64}
// CHECK: fuse.relu {{.*}}fuse.group = 0 : i64
// CHECK: fuse.transpose {{.*}}fuse.group = 1 : i64
// CHECK: fuse.add {{.*}}fuse.group = 2 : i64
func.func @sibling_cycle(%x: tensor<?x8x8xf32>) -> tensor<?x8x8xf32> {
  %p = fuse.relu %x : (tensor<?x8x8xf32>) -> tensor<?x8x8xf32> loc("p")
  %r = fuse.transpose %p {perm = array<i64: 0, 2, 1>} : (tensor<?x8x8xf32>) -> tensor<?x8x8xf32> loc("r")
  %q = fuse.add %x, %r : (tensor<?x8x8xf32>, tensor<?x8x8xf32>) -> tensor<?x8x8xf32> loc("q")
  return %q : tensor<?x8x8xf32>
}

// -----

// one-core: two softmaxes in a chain stay two kernels.
// CHECK-LABEL: func.func @one_core
// CHECK-SAME: fuse.rejected_fusions = [{detail = "both 's1' and 's2' have a conv/gemm/pool/reduction/data-movement op", first = "s1", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "one-core", second = "s2", unfused_us = 0.000000e+00 : f64}]
// CHECK: fuse.softmax {{.*}}fuse.group = 0 : i64
// CHECK: fuse.softmax {{.*}}fuse.group = 1 : i64
func.func @one_core(%x: tensor<?x8x64xf32>) -> tensor<?x8x64xf32> {
  %a = fuse.softmax %x {axis = 2 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("s1")
  %b = fuse.softmax %a {axis = 2 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("s2")
  return %b : tensor<?x8x64xf32>
}

// -----

// one-core for siblings: only elementwise siblings fuse (a relu and a
// softmax both reading x).
// CHECK-LABEL: func.func @core_sibling
// CHECK-SAME: fuse.rejected_fusions = [{detail = "only elementwise siblings fuse", first = "relu", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "one-core", second = "softmax", unfused_us = 0.000000e+00 : f64}]
// CHECK: fuse.relu {{.*}}fuse.group = 0 : i64
// CHECK: fuse.softmax {{.*}}fuse.group = 1 : i64
func.func @core_sibling(%x: tensor<?x8x64xf32>) -> (tensor<?x8x64xf32>, tensor<?x8x64xf32>) {
  %r = fuse.relu %x : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("relu")
  %s = fuse.softmax %x {axis = 2 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("softmax")
  return %r, %s : tensor<?x8x64xf32>, tensor<?x8x64xf32>
}

// -----

// no-prologue: an elementwise producer does not join a conv (or pool) kernel.
// With epilogue-fusion disabled the same candidate is reported as disabled:
// the rule name is chosen before legality is checked.
// CHECK-LABEL: func.func @no_prologue_conv
// CHECK-SAME: fuse.rejected_fusions = [{detail = "'conv' reads its inputs through a template", first = "relu", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "no-prologue", second = "conv", unfused_us = 0.000000e+00 : f64}]
// CHECK: fuse.relu {{.*}}fuse.group = 0 : i64
// CHECK: fuse.conv {{.*}}fuse.group = 1 : i64
// NO-CORE-LABEL: func.func @no_prologue_conv
// NO-CORE-SAME: fuse.rejected_fusions = [{detail = "epilogue-fusion is disabled", first = "relu", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "disabled", second = "conv", unfused_us = 0.000000e+00 : f64}]
func.func @no_prologue_conv(%x: tensor<?x3x8x8xf32>) -> tensor<?x4x6x6xf32> {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %r = fuse.relu %x : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32> loc("relu")
  %c = fuse.conv %r, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32> loc("conv")
  return %c : tensor<?x4x6x6xf32>
}

// -----

// CHECK-LABEL: func.func @no_prologue_pool
// CHECK-SAME: fuse.rejected_fusions = [{detail = "'pool' reads its inputs through a template", first = "relu", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "no-prologue", second = "pool", unfused_us = 0.000000e+00 : f64}]
// CHECK: fuse.relu {{.*}}fuse.group = 0 : i64
// CHECK: fuse.max_pool {{.*}}fuse.group = 1 : i64
func.func @no_prologue_pool(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> {
  %r = fuse.relu %x : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32> loc("relu")
  %m = fuse.max_pool %r {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> loc("pool")
  return %m : tensor<?x3x4x4xf32>
}

// -----

// data-movement: a transpose kernel stays alone, on both sides.
// CHECK-LABEL: func.func @data_movement
// CHECK-SAME: fuse.rejected_fusions = [{detail = "'transpose' moves data", first = "relu", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "data-movement", second = "transpose", unfused_us = 0.000000e+00 : f64}, {detail = "'transpose' moves data", first = "transpose", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "data-movement", second = "sigmoid", unfused_us = 0.000000e+00 : f64}]
// CHECK: fuse.relu {{.*}}fuse.group = 0 : i64
// CHECK: fuse.transpose {{.*}}fuse.group = 1 : i64
// CHECK: fuse.sigmoid {{.*}}fuse.group = 2 : i64
func.func @data_movement(%x: tensor<?x8x64xf32>) -> tensor<?x64x8xf32> {
  %r = fuse.relu %x : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("relu")
  %t = fuse.transpose %r {perm = array<i64: 0, 2, 1>} : (tensor<?x8x64xf32>) -> tensor<?x64x8xf32> loc("transpose")
  %s = fuse.sigmoid %t : (tensor<?x64x8xf32>) -> tensor<?x64x8xf32> loc("sigmoid")
  return %s : tensor<?x64x8xf32>
}

// -----

// iteration-space without a core: a [?,1,64] relu feeding an add whose result
// is broadcast to [?,8,64].
// CHECK-LABEL: func.func @iteration_space_elementwise
// CHECK-SAME: fuse.rejected_fusions = [{detail = "elementwise ops of different shapes", first = "relu", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "iteration-space", second = "add", unfused_us = 0.000000e+00 : f64}]
// CHECK: fuse.relu {{.*}}fuse.group = 0 : i64
// CHECK: fuse.add {{.*}}fuse.group = 1 : i64
func.func @iteration_space_elementwise(%x: tensor<?x1x64xf32>, %y: tensor<?x8x64xf32>) -> tensor<?x8x64xf32> {
  %r = fuse.relu %x : (tensor<?x1x64xf32>) -> tensor<?x1x64xf32> loc("relu")
  %a = fuse.add %r, %y : (tensor<?x1x64xf32>, tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("add")
  return %a : tensor<?x8x64xf32>
}

// -----

// iteration-space for a prologue: the add has the softmax's input shape and
// joins it; the [?,1,64] relu before it does not.
// CHECK-LABEL: func.func @iteration_space_prologue
// CHECK-SAME: fuse.rejected_fusions = [{detail = "prologue shape differs from the reduction input", first = "relu", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "iteration-space", second = "add+softmax", unfused_us = 0.000000e+00 : f64}]
// CHECK: fuse.relu {{.*}}fuse.group = 0 : i64
// CHECK: fuse.add {{.*}}{fuse.fused_by = "reduction-fusion", fuse.group = 1 : i64
// CHECK: fuse.softmax {{.*}}fuse.group = 1 : i64
func.func @iteration_space_prologue(%x: tensor<?x1x64xf32>, %y: tensor<?x8x64xf32>) -> tensor<?x8x64xf32> {
  %r = fuse.relu %x : (tensor<?x1x64xf32>) -> tensor<?x1x64xf32> loc("relu")
  %a = fuse.add %r, %y : (tensor<?x1x64xf32>, tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("add")
  %s = fuse.softmax %a {axis = 2 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("softmax")
  return %s : tensor<?x8x64xf32>
}

// -----

// iteration-space for an epilogue: a conv output broadcast to a larger shape.
// CHECK-LABEL: func.func @iteration_space_epilogue
// CHECK-SAME: fuse.rejected_fusions = [{detail = "epilogue shape differs from the kernel output", first = "conv", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "iteration-space", second = "add", unfused_us = 0.000000e+00 : f64}]
// CHECK: fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK: fuse.add {{.*}}fuse.group = 1 : i64
func.func @iteration_space_epilogue(%x: tensor<1x3x8x8xf32>) -> tensor<3x4x6x6xf32> {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %s = fuse.constant dense<2.0> : tensor<3x1x1x1xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv")
  %a = fuse.add %c, %s : (tensor<1x4x6x6xf32>, tensor<3x1x1x1xf32>) -> tensor<3x4x6x6xf32> loc("add")
  return %a : tensor<3x4x6x6xf32>
}

// -----

// disabled: with elementwise-fusion off, neither the chain relu -> sigmoid nor
// the siblings relu / tanh merge (siblings are checked with the elementwise
// kind rules). With sibling-fusion off only the chain merges. With
// reduction-fusion off a pool keeps its epilogue out.
// CHECK-LABEL: func.func @disabled_rules
// CHECK-SAME: fuse.rejected_fusions = []
// CHECK: fuse.relu {{.*}}fuse.group = 0 : i64
// CHECK: fuse.sigmoid {{.*}}{fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// CHECK: fuse.tanh {{.*}}{fuse.fused_by = "sibling-fusion", fuse.group = 0 : i64}
// NO-EW-LABEL: func.func @disabled_rules
// NO-EW-SAME: fuse.rejected_fusions = [{detail = "elementwise-fusion is disabled", first = "relu", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "disabled", second = "sigmoid", unfused_us = 0.000000e+00 : f64}, {detail = "elementwise-fusion is disabled", first = "relu", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "disabled", second = "tanh", unfused_us = 0.000000e+00 : f64}]
// NO-EW: fuse.relu {{.*}}{fuse.group = 0 : i64
// NO-EW: fuse.sigmoid {{.*}}{fuse.group = 1 : i64
// NO-EW: fuse.tanh {{.*}}{fuse.group = 2 : i64
// NO-SIB-LABEL: func.func @disabled_rules
// NO-SIB-SAME: fuse.rejected_fusions = [{detail = "sibling-fusion is disabled", first = "relu+sigmoid", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "disabled", second = "tanh", unfused_us = 0.000000e+00 : f64}]
// NO-SIB: fuse.relu {{.*}}{fuse.group = 0 : i64
// NO-SIB: fuse.sigmoid {{.*}}{fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// NO-SIB: fuse.tanh {{.*}}{fuse.group = 1 : i64
func.func @disabled_rules(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %r = fuse.relu %x : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("relu")
  %s = fuse.sigmoid %r : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("sigmoid")
  %t = fuse.tanh %x : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("tanh")
  return %s, %t : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// CHECK-LABEL: func.func @disabled_pool_epilogue
// CHECK-SAME: fuse.rejected_fusions = []
// CHECK: fuse.relu {{.*}}{fuse.fused_by = "reduction-fusion", fuse.group = 0 : i64}
// NO-CORE-LABEL: func.func @disabled_pool_epilogue
// NO-CORE-SAME: fuse.rejected_fusions = [{detail = "reduction-fusion is disabled", first = "pool", fused_us = 0.000000e+00 : f64, reason = "illegal", rule = "disabled", second = "relu", unfused_us = 0.000000e+00 : f64}]
// NO-CORE: fuse.max_pool {{.*}}fuse.group = 0 : i64
// NO-CORE: fuse.relu {{.*}}{fuse.group = 1 : i64
func.func @disabled_pool_epilogue(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> {
  %m = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> loc("pool")
  %r = fuse.relu %m : (tensor<?x3x4x4xf32>) -> tensor<?x3x4x4xf32> loc("relu")
  return %r : tensor<?x3x4x4xf32>
}

// -----

// kernel-size: a chain of 70 elementwise ops ends in exactly two groups, each
// of at most 64 ops. So op %5 (the 6th) is in the first group and op %64 (the
// 65th) in the second, whichever strategy splits the chain.
// CHECK-LABEL: func.func @kernel_size
// CHECK-SAME: detail = "a kernel computes at most 64 ops"
// CHECK-SAME: rule = "kernel-size"
// CHECK: %0 = fuse.relu %arg0 {fuse.group = 0 : i64
// CHECK: %5 = fuse.erf %4 {fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// CHECK: %64 = fuse.tanh %63 {{.*}}fuse.group = 1 : i64
// CHECK: %69 = fuse.sigmoid %68 {fuse.fused_by = "elementwise-fusion", fuse.group = 1 : i64}
// CHECK-NOT: fuse.group = 2
// CHECK: return %69
// DP-LABEL: func.func @kernel_size
// DP-SAME: rule = "kernel-size"
// DP: %0 = fuse.relu %arg0 {fuse.group = 0 : i64
// DP: %5 = fuse.erf %4 {fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// DP: %64 = fuse.tanh %63 {{.*}}fuse.group = 1 : i64
// DP: %69 = fuse.sigmoid %68 {{.*}}fuse.group = 1 : i64
// DP-NOT: fuse.group = 2
// DP: return %69
func.func @kernel_size(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %v0 = fuse.relu %x : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v1 = fuse.sigmoid %v0 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v2 = fuse.tanh %v1 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v3 = fuse.relu %v2 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v4 = fuse.sigmoid %v3 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v5 = fuse.erf %v4 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v6 = fuse.relu %v5 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v7 = fuse.sigmoid %v6 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v8 = fuse.tanh %v7 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v9 = fuse.relu %v8 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v10 = fuse.sigmoid %v9 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v11 = fuse.tanh %v10 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v12 = fuse.relu %v11 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v13 = fuse.sigmoid %v12 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v14 = fuse.tanh %v13 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v15 = fuse.relu %v14 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v16 = fuse.sigmoid %v15 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v17 = fuse.tanh %v16 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v18 = fuse.relu %v17 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v19 = fuse.sigmoid %v18 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v20 = fuse.tanh %v19 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v21 = fuse.relu %v20 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v22 = fuse.sigmoid %v21 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v23 = fuse.tanh %v22 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v24 = fuse.relu %v23 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v25 = fuse.sigmoid %v24 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v26 = fuse.tanh %v25 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v27 = fuse.relu %v26 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v28 = fuse.sigmoid %v27 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v29 = fuse.tanh %v28 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v30 = fuse.relu %v29 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v31 = fuse.sigmoid %v30 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v32 = fuse.tanh %v31 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v33 = fuse.relu %v32 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v34 = fuse.sigmoid %v33 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v35 = fuse.tanh %v34 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v36 = fuse.relu %v35 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v37 = fuse.sigmoid %v36 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v38 = fuse.tanh %v37 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v39 = fuse.relu %v38 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v40 = fuse.sigmoid %v39 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v41 = fuse.tanh %v40 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v42 = fuse.relu %v41 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v43 = fuse.sigmoid %v42 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v44 = fuse.tanh %v43 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v45 = fuse.relu %v44 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v46 = fuse.sigmoid %v45 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v47 = fuse.tanh %v46 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v48 = fuse.relu %v47 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v49 = fuse.sigmoid %v48 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v50 = fuse.tanh %v49 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v51 = fuse.relu %v50 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v52 = fuse.sigmoid %v51 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v53 = fuse.tanh %v52 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v54 = fuse.relu %v53 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v55 = fuse.sigmoid %v54 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v56 = fuse.tanh %v55 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v57 = fuse.relu %v56 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v58 = fuse.sigmoid %v57 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v59 = fuse.tanh %v58 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v60 = fuse.relu %v59 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v61 = fuse.sigmoid %v60 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v62 = fuse.tanh %v61 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v63 = fuse.relu %v62 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v64 = fuse.tanh %v63 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v65 = fuse.relu %v64 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v66 = fuse.sigmoid %v65 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v67 = fuse.tanh %v66 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v68 = fuse.relu %v67 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %v69 = fuse.sigmoid %v68 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %v69 : tensor<?x16xf32>
}

// -----

// Materialization: the relu is an intermediate of the relu -> sigmoid kernel
// and also a graph output, so the kernel writes it too: after outlining the
// superkernel yields both values, and nothing is computed twice.
// CHECK-LABEL: func.func @materialized_intermediate
// CHECK: fuse.relu {{.*}}fuse.group = 0 : i64
// CHECK: fuse.sigmoid {{.*}}{fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// OUTLINED-LABEL: func.func @materialized_intermediate
// OUTLINED-SAME: (%[[X:.*]]: tensor<?x64xf32>)
// OUTLINED: %[[K:.*]]:2 = fuse.superkernel "sk0_relu_sigmoid__relu" kind "elementwise"(%[[X]]) {{.*}}: (tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
// OUTLINED: %[[R:.*]] = fuse.relu
// OUTLINED-NEXT: %[[S:.*]] = fuse.sigmoid %[[R]]
// OUTLINED-NEXT: fuse.yield %[[R]], %[[S]] : tensor<?x64xf32>, tensor<?x64xf32>
// OUTLINED-NEXT: }
// OUTLINED-NEXT: return %[[K]]#0, %[[K]]#1 : tensor<?x64xf32>, tensor<?x64xf32>
func.func @materialized_intermediate(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %r = fuse.relu %x : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("relu")
  %s = fuse.sigmoid %r : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("sigmoid")
  return %r, %s : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// Materialization for another kernel: the relu joins the softmax as a
// prologue, and the transpose (a kernel of its own) reads it, so the
// reduction kernel writes the relu as a second result.
// OUTLINED-LABEL: func.func @materialized_for_another_kernel
// OUTLINED: %[[K:.*]]:2 = fuse.superkernel "sk0_relu_softmax__relu" kind "reduction"
// OUTLINED: fuse.yield %{{.*}}, %{{.*}} : tensor<?x8x64xf32>, tensor<?x8x64xf32>
// OUTLINED: %[[T:.*]] = fuse.superkernel "sk1_transpose__transpose" kind "data_movement"(%[[K]]#0)
// OUTLINED: return %[[K]]#1, %[[T]]
func.func @materialized_for_another_kernel(%x: tensor<?x8x64xf32>) -> (tensor<?x8x64xf32>, tensor<?x64x8xf32>) {
  %r = fuse.relu %x : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("relu")
  %s = fuse.softmax %r {axis = 2 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("softmax")
  %t = fuse.transpose %r {perm = array<i64: 0, 2, 1>} : (tensor<?x8x64xf32>) -> tensor<?x64x8xf32> loc("transpose")
  return %s, %t : tensor<?x8x64xf32>, tensor<?x64x8xf32>
}

