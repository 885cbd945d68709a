// The whole fusion pipeline: clean-ups, the fold rewrites, then grouping and
// outlining into fuse.superkernel ops.
// RUN: fusec-opt %s -split-input-file --pass-pipeline='builtin.module(fuse-fusion-pipeline)' | FileCheck %s
// RUN: fusec-opt %s -split-input-file --pass-pipeline='builtin.module(fuse-fusion-pipeline)' \
// RUN:   | FileCheck %s --check-prefix=GONE

// pad -> conv -> batch_norm -> relu becomes one conv kernel computing
// conv -> relu: the zero pad moved into the conv's pads, the batch norm into
// its weights and bias.
//   s = 2 / sqrt(3 + 1) = 1, W' = 3 * 1 = 3, b' = (0 - 1) * 1 + 0.5 = -0.5
// CHECK-LABEL: func.func @pad_conv_bn_relu
// CHECK-SAME: (%[[X:.*]]: tensor<?x1x4x4xf32>)
// CHECK-DAG: %[[W:.*]] = fuse.constant dense<3.000000e+00> : tensor<1x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = fuse.constant dense<-5.000000e-01> : tensor<1xf32>
// CHECK: %[[K:.*]] = fuse.superkernel "{{.*}}" kind "conv"(%[[X]], %[[W]], %[[B]]) {{.*}}: (tensor<?x1x4x4xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>) -> tensor<?x1x6x6xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<?x1x4x4xf32>, %[[AW:.*]]: tensor<1x1x1x1xf32>, %[[AB:.*]]: tensor<1xf32>):
// CHECK-NEXT: %[[C:.*]] = fuse.conv %[[A]], %[[AW]], %[[AB]] {dilations = array<i64: 1, 1>, fuse.folded = ["pad", "bn"], group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x1x4x4xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>) -> tensor<?x1x6x6xf32>
// CHECK-NEXT: %[[R:.*]] = fuse.relu %[[C]] {{.*}}: (tensor<?x1x6x6xf32>) -> tensor<?x1x6x6xf32>
// CHECK-NEXT: fuse.yield %[[R]] : tensor<?x1x6x6xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]] : tensor<?x1x6x6xf32>
// GONE-LABEL: func.func @pad_conv_bn_relu
// GONE-NOT: fuse.pad
// GONE-NOT: fuse.batch_norm
// GONE: return
func.func @pad_conv_bn_relu(%x: tensor<?x1x4x4xf32>) -> tensor<?x1x6x6xf32> {
  %w = fuse.constant dense<3.0> : tensor<1x1x1x1xf32>
  %scale = fuse.constant dense<2.0> : tensor<1xf32>
  %shift = fuse.constant dense<0.5> : tensor<1xf32>
  %mean = fuse.constant dense<1.0> : tensor<1xf32>
  %var = fuse.constant dense<3.0> : tensor<1xf32>
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<?x1x4x4xf32>) -> tensor<?x1x6x6xf32>
  %c = fuse.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x6x6xf32>, tensor<1x1x1x1xf32>) -> tensor<?x1x6x6xf32>
  %n = fuse.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 1.0 : f32} : (tensor<?x1x6x6xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x1x6x6xf32>
  %r = fuse.relu %n : (tensor<?x1x6x6xf32>) -> tensor<?x1x6x6xf32>
  return %r : tensor<?x1x6x6xf32>
}

// -----

// The clean-ups: a reshape to the same type folds away, the two identical
// relus are merged (CSE), the dead sigmoid disappears.
// CHECK-LABEL: func.func @cleanups
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: fuse.superkernel "{{.*}}" kind "elementwise"(%[[X]])
// CHECK: %[[R:.*]] = fuse.relu %{{.*}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[A:.*]] = fuse.add %[[R]], %[[R]] {{.*}}: (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: fuse.yield %[[A]] : tensor<2x3x4xf32>
// GONE-LABEL: func.func @cleanups
// GONE-NOT: fuse.reshape
// GONE-NOT: fuse.sigmoid
// GONE: fuse.relu
// GONE-NOT: fuse.relu
// GONE: return
func.func @cleanups(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %same = fuse.reshape %x {shape = array<i64: 0, 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %r1 = fuse.relu %same : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %r2 = fuse.relu %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %dead = fuse.sigmoid %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %a = fuse.add %r1, %r2 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %a : tensor<2x3x4xf32>
}

// -----

// What must not fold survives the pipeline: a reflect pad, and a batch norm
// of a conv whose result is also returned.
// CHECK-LABEL: func.func @nothing_to_fold
// CHECK: fuse.superkernel
// CHECK: fuse.pad %{{.*}} {mode = "reflect"
// CHECK: fuse.superkernel
// CHECK: %[[C:.*]] = fuse.conv
// CHECK-NOT: fuse.folded
// CHECK-SAME: pads = array<i64: 0, 0, 0, 0>
// CHECK: fuse.batch_norm %[[C]],
// CHECK: return
// GONE-LABEL: func.func @nothing_to_fold
// GONE-NOT: fuse.folded
// GONE: return
func.func @nothing_to_fold(%x: tensor<?x1x4x4xf32>) -> (tensor<?x1x6x6xf32>, tensor<?x1x6x6xf32>) {
  %w = fuse.constant dense<3.0> : tensor<1x1x1x1xf32>
  %s = fuse.constant dense<1.0> : tensor<1xf32>
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "reflect"} : (tensor<?x1x4x4xf32>) -> tensor<?x1x6x6xf32>
  %c = fuse.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x6x6xf32>, tensor<1x1x1x1xf32>) -> tensor<?x1x6x6xf32>
  %n = fuse.batch_norm %c, %s, %s, %s, %s {epsilon = 1.0e-5 : f32} : (tensor<?x1x6x6xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x1x6x6xf32>
  return %c, %n : tensor<?x1x6x6xf32>, tensor<?x1x6x6xf32>
}
