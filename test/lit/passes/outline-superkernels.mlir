// fuse-outline-superkernels: each `fuse.group` becomes one fuse.superkernel,
// every other compute op a superkernel of its own. Values from outside the
// group (graph inputs, constants, other kernels' results) become operands;
// values used outside it (or returned) become results. Kernels are named
// sk<i>_<ops>__<first node> in execution order.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-outline-superkernels))' \
// RUN:   | FileCheck %s
// Outlining again changes nothing: superkernels keep their names (no sk0_sk0_...).
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-outline-superkernels))' \
// RUN:   | fusec-opt -split-input-file -pass-pipeline='builtin.module(func.func(fuse-outline-superkernels))' \
// RUN:   | FileCheck %s --implicit-check-not=sk0_sk0 --implicit-check-not=sk1_sk1

// A conv + relu group: its constants (weight, bias) become operands, the
// relu (used by two other kernels) its result. The group's cost estimate
// becomes the superkernel's `cost`; `fuse.group` and `fuse.kernel_cost` are
// dropped from the outlined ops, `fuse.fused_by` is kept. The sigmoid is
// ungrouped and becomes a kernel of its own; the tanh + mul group reads the
// relu and a constant.
// CHECK-LABEL: func.func @outline
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x8x8xf32>)
// CHECK-DAG: %[[W:.*]] = fuse.constant dense<1.000000e+00> : tensor<4x3x3x3xf32>
// CHECK-DAG: %[[B:.*]] = fuse.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-DAG: %[[K:.*]] = fuse.constant dense<2.000000e+00> : tensor<4x1x1xf32>
// CHECK: %[[SK0:.*]] = fuse.superkernel "sk0_conv_relu__block_conv1_Conv" kind "conv"(%[[X]], %[[W]], %[[B]]) attributes {cost = {fused_us = 2.500000e+00 : f64, unfused_kernels = 2 : i64}} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x6x6xf32> {
// CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<?x3x8x8xf32>, %[[A1:.*]]: tensor<4x3x3x3xf32>, %[[A2:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[C:.*]] = fuse.conv %[[A0]], %[[A1]], %[[A2]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NEXT: %[[R:.*]] = fuse.relu %[[C]] {fuse.fused_by = "epilogue-activation"} :
// CHECK-NEXT: fuse.yield %[[R]] : tensor<?x4x6x6xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[SK1:.*]] = fuse.superkernel "sk1_sigmoid__sig" kind "elementwise"(%[[SK0]]) : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32> {
// CHECK-NEXT: ^bb0(%[[S0:.*]]: tensor<?x4x6x6xf32>):
// CHECK-NEXT: %[[S:.*]] = fuse.sigmoid %[[S0]]
// CHECK-NEXT: fuse.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[SK2:.*]] = fuse.superkernel "sk2_tanh_mul__t1" kind "elementwise"(%[[SK0]], %[[K]]) : (tensor<?x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<?x4x6x6xf32> {
// CHECK-NEXT: ^bb0(%[[T0:.*]]: tensor<?x4x6x6xf32>, %[[T1:.*]]: tensor<4x1x1xf32>):
// CHECK-NEXT: %[[T:.*]] = fuse.tanh %[[T0]]
// CHECK-NEXT: %[[M:.*]] = fuse.mul %[[T]], %[[T1]]
// CHECK-NEXT: fuse.yield %[[M]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[SK1]], %[[SK2]]
func.func @outline(%x: tensor<?x3x8x8xf32>) -> (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %b = fuse.constant dense<0.5> : tensor<4xf32>
  %k = fuse.constant dense<2.0> : tensor<4x1x1xf32>
  %c = fuse.conv %x, %w, %b {fuse.group = 0 : i64, fuse.kernel_cost = {fused_us = 2.5 : f64, unfused_kernels = 2 : i64}, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x6x6xf32> loc("/block/conv1/Conv")
  %r = fuse.relu %c {fuse.group = 0 : i64, fuse.fused_by = "epilogue-activation"} : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32> loc("/block/relu")
  %s = fuse.sigmoid %r : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32> loc("sig")
  %t = fuse.tanh %r {fuse.group = 1 : i64} : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32> loc("t1")
  %u = fuse.mul %t, %k {fuse.group = 1 : i64} : (tensor<?x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<?x4x6x6xf32>
  return %s, %u : tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>
}

// -----

// A value computed in a group and used outside it becomes a result, as does
// a returned intermediate; a value used only inside does not. The kinds follow
// the core: reduction, pool, data_movement, gemm.
// CHECK-LABEL: func.func @results_and_kinds
// CHECK: %[[R:.*]]:2 = fuse.superkernel "sk0_mul_softmax_relu__scale" kind "reduction"
// CHECK: fuse.yield %{{.*}}, %{{.*}} : tensor<?x8x64xf32>, tensor<?x8x64xf32>
// CHECK: fuse.superkernel "sk1_reshape__flat" kind "data_movement"(%[[R]]#0)
// CHECK: fuse.superkernel "sk2_matmul__mm" kind "gemm"
// CHECK: fuse.superkernel "sk3_max_pool__pool" kind "pool"
// CHECK: return %[[R]]#1,
func.func @results_and_kinds(%x: tensor<?x8x64xf32>, %img: tensor<?x3x8x8xf32>) -> (tensor<?x8x64xf32>, tensor<?x512xf32>, tensor<?x8x8xf32>, tensor<?x3x4x4xf32>) {
  %c = fuse.constant dense<2.0> : tensor<64xf32>
  %w = fuse.constant dense<1.0> : tensor<64x8xf32>
  %m = fuse.mul %x, %c {fuse.group = 3 : i64} : (tensor<?x8x64xf32>, tensor<64xf32>) -> tensor<?x8x64xf32> loc("scale")
  %s = fuse.softmax %m {axis = 2 : i64, fuse.group = 3 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32>
  %r = fuse.relu %s {fuse.group = 3 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32>
  %f = fuse.reshape %m {shape = array<i64: 0, 512>} : (tensor<?x8x64xf32>) -> tensor<?x512xf32> loc("flat")
  %g = fuse.matmul %x, %w : (tensor<?x8x64xf32>, tensor<64x8xf32>) -> tensor<?x8x8xf32> loc("mm")
  %p = fuse.max_pool %img {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> loc("pool")
  return %r, %f, %g, %p : tensor<?x8x64xf32>, tensor<?x512xf32>, tensor<?x8x8xf32>, tensor<?x3x4x4xf32>
}

// -----

// Kernel names: folded ops appear in place (pad before the conv, bn after
// it), the node name is sanitized (every run of characters other than letters
// and digits becomes one '_', none at the ends), and the op list is cut to 48
// characters. Numbers follow execution order, not group ids.
// CHECK-LABEL: func.func @names
// CHECK: fuse.superkernel "sk0_pad_conv_bn_relu__layer1_layer1_0_conv2_Conv" kind "conv"
// CHECK: fuse.superkernel "sk1_sigmoid_tanh_sigmoid_tanh_sigmoid_tanh_sigmoid_t__s" kind "elementwise"
// CHECK: fuse.superkernel "sk2_relu" kind "elementwise"
func.func @names(%x: tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32> {
  %w = fuse.constant dense<1.0> : tensor<1x1x1x1xf32>
  %c = fuse.conv %x, %w {fuse.group = 9 : i64, fuse.folded = ["pad", "bn"], strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<?x1x4x4xf32> loc("/layer1/layer1.0/conv2/Conv")
  %r = fuse.relu %c {fuse.group = 9 : i64} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  %s0 = fuse.sigmoid %r {fuse.group = 2 : i64} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32> loc("--s--")
  %s1 = fuse.tanh %s0 {fuse.group = 2 : i64} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  %s2 = fuse.sigmoid %s1 {fuse.group = 2 : i64} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  %s3 = fuse.tanh %s2 {fuse.group = 2 : i64} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  %s4 = fuse.sigmoid %s3 {fuse.group = 2 : i64} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  %s5 = fuse.tanh %s4 {fuse.group = 2 : i64} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  %s6 = fuse.sigmoid %s5 {fuse.group = 2 : i64} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  %s7 = fuse.tanh %s6 {fuse.group = 2 : i64} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  %s8 = fuse.sigmoid %s7 {fuse.group = 2 : i64} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  %n = fuse.relu %s8 : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  return %n : tensor<?x1x4x4xf32>
}

// -----

// Use before definition: the group {A, C} is placed where C was, after D,
// which reads A. The topological re-sort moves the {A, C} kernel before D's,
// and the numbering follows the sorted order.
// CHECK-LABEL: func.func @use_before_def
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
// CHECK: %[[AC:.*]]:2 = fuse.superkernel "sk0_relu_tanh__A" kind "elementwise"(%[[X]]) : (tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
// CHECK: %[[A:.*]] = fuse.relu
// CHECK-NEXT: %[[C:.*]] = fuse.tanh %[[A]]
// CHECK-NEXT: fuse.yield %[[A]], %[[C]]
// CHECK: %[[D:.*]] = fuse.superkernel "sk1_sigmoid__D" kind "elementwise"(%[[AC]]#0)
// CHECK: return %[[D]], %[[AC]]#1
func.func @use_before_def(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %a = fuse.relu %x {fuse.group = 0 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("A")
  %d = fuse.sigmoid %a : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("D")
  %c = fuse.tanh %a {fuse.group = 0 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("C")
  return %d, %c : tensor<?x64xf32>, tensor<?x64xf32>
}
