// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-fold-batch-norm))' | FileCheck %s

// The folded conv records the fold in `fuse.folded` (for the fusion report).
// Hand-computed fold, s = scale / sqrt(var + eps), W' = W * s,
// b' = (b - mean) * s + bias:
//   channel 0: s = 1 / sqrt(3 + 1) = 0.5, W' = 2 * 0.5 = 1, b' = (1 - 1) * 0.5 + 0.5 = 0.5
//   channel 1: s = 2 / sqrt(0 + 1) = 2,   W' = 3 * 2 = 6,   b' = (-1 - 1) * 2 + 0 = -4
// CHECK-LABEL: func.func @conv_with_bias
// CHECK-SAME: (%[[X:.*]]: tensor<?x1x4x4xf32>)
// CHECK-NOT: fuse.batch_norm
// CHECK-DAG: %[[W:.*]] = fuse.constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}6.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = fuse.constant dense<[5.000000e-01, -4.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = fuse.conv %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, fuse.folded = ["bn"], group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
// CHECK-NOT: fuse.batch_norm
// CHECK: return %[[Y]] : tensor<?x2x4x4xf32>
func.func @conv_with_bias(%x: tensor<?x1x4x4xf32>) -> tensor<?x2x4x4xf32> {
  %w = fuse.constant dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %b = fuse.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %scale = fuse.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %shift = fuse.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %mean = fuse.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %var = fuse.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = fuse.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  %n = fuse.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 1.0 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  return %n : tensor<?x2x4x4xf32>
}

// -----

// Without a conv bias, b = 0:
//   channel 0: b' = (0 - 1) * 0.5 + 0.5 = 0
//   channel 1: b' = (0 - 1) * 2 + 0 = -2
// The strides, pads, dilations and group of the conv are kept.
// CHECK-LABEL: func.func @conv_without_bias
// CHECK-SAME: (%[[X:.*]]: tensor<?x1x4x4xf32>)
// CHECK-DAG: %[[W:.*]] = fuse.constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}6.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = fuse.constant dense<[0.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = fuse.conv %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, fuse.folded = ["bn"], group = 1 : i64, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 1>} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<?x2x3x4xf32>
// CHECK-NOT: fuse.batch_norm
// CHECK: return %[[Y]]
func.func @conv_without_bias(%x: tensor<?x1x4x4xf32>) -> tensor<?x2x3x4xf32> {
  %w = fuse.constant dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %scale = fuse.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %shift = fuse.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %mean = fuse.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %var = fuse.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<?x2x3x4xf32>
  %n = fuse.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 1.0 : f32} : (tensor<?x2x3x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x3x4xf32>
  return %n : tensor<?x2x3x4xf32>
}

// -----

// Weights with more than 16 elements become a dense_resource blob; the
// batch-norm user of the fold (relu) now reads the conv.
// CHECK-LABEL: func.func @large_weights
// CHECK: %[[W:.*]] = fuse.constant dense_resource<folded_weight{{.*}}> : tensor<4x2x3x3xf32>
// CHECK: %[[B:.*]] = fuse.constant dense<{{.*}}> : tensor<4xf32>
// CHECK: %[[Y:.*]] = fuse.conv %{{.*}}, %[[W]], %[[B]] {{.*}}fuse.folded = ["bn"]{{.*}} -> tensor<1x4x6x6xf32>
// CHECK-NOT: fuse.batch_norm
// CHECK: %[[R:.*]] = fuse.relu %[[Y]]
// CHECK: return %[[R]]
func.func @large_weights(%x: tensor<1x2x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %w = fuse.constant dense<0.25> : tensor<4x2x3x3xf32>
  %scale = fuse.constant dense<1.0> : tensor<4xf32>
  %shift = fuse.constant dense<0.0> : tensor<4xf32>
  %mean = fuse.constant dense<0.0> : tensor<4xf32>
  %var = fuse.constant dense<1.0> : tensor<4xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  %n = fuse.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r = fuse.relu %n : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

// Two chains in one function both fold.
// CHECK-LABEL: func.func @two_chains
// CHECK-NOT: fuse.batch_norm
// CHECK: fuse.conv {{.*}}fuse.folded = ["bn"]
// CHECK-NOT: fuse.batch_norm
// CHECK: fuse.conv {{.*}}fuse.folded = ["bn"]
// CHECK-NOT: fuse.batch_norm
// CHECK: return
func.func @two_chains(%x: tensor<?x1x4x4xf32>) -> tensor<?x2x4x4xf32> {
  %w = fuse.constant dense<1.0> : tensor<2x1x1x1xf32>
  %w2 = fuse.constant dense<1.0> : tensor<2x2x1x1xf32>
  %p = fuse.constant dense<1.0> : tensor<2xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<?x2x4x4xf32>
  %n = fuse.batch_norm %c, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  %c2 = fuse.conv %n, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<?x2x4x4xf32>
  %n2 = fuse.batch_norm %c2, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  return %n2 : tensor<?x2x4x4xf32>
}

// -----

// The conv result has a second user, which needs the un-normalised values.
// CHECK-LABEL: func.func @conv_two_users
// CHECK: %[[C:.*]] = fuse.conv
// CHECK: %[[N:.*]] = fuse.batch_norm %[[C]],
// CHECK: %[[R:.*]] = fuse.relu %[[C]]
// CHECK: return %[[N]], %[[R]]
func.func @conv_two_users(%x: tensor<?x1x4x4xf32>) -> (tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>) {
  %w = fuse.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = fuse.constant dense<1.0> : tensor<2xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<?x2x4x4xf32>
  %n = fuse.batch_norm %c, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  %r = fuse.relu %c : (tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32>
  return %n, %r : tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>
}

// -----

// Two batch norms of the same conv: neither may fold.
// CHECK-LABEL: func.func @two_batch_norms
// CHECK: %[[C:.*]] = fuse.conv
// CHECK: fuse.batch_norm %[[C]],
// CHECK: fuse.batch_norm %[[C]],
func.func @two_batch_norms(%x: tensor<?x1x4x4xf32>) -> (tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>) {
  %w = fuse.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = fuse.constant dense<1.0> : tensor<2xf32>
  %q = fuse.constant dense<2.0> : tensor<2xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<?x2x4x4xf32>
  %n = fuse.batch_norm %c, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  %m = fuse.batch_norm %c, %q, %q, %q, %q {epsilon = 1.0e-5 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  return %n, %m : tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>
}

// -----

// The conv result is also a graph output (a use by the return).
// CHECK-LABEL: func.func @conv_returned
// CHECK: %[[C:.*]] = fuse.conv
// CHECK: %[[N:.*]] = fuse.batch_norm %[[C]],
// CHECK: return %[[C]], %[[N]]
func.func @conv_returned(%x: tensor<?x1x4x4xf32>) -> (tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>) {
  %w = fuse.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = fuse.constant dense<1.0> : tensor<2xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<?x2x4x4xf32>
  %n = fuse.batch_norm %c, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  return %c, %n : tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>
}

// -----

// Statistics that are not constants cannot be folded at compile time.
// CHECK-LABEL: func.func @statistics_not_constant
// CHECK: %[[C:.*]] = fuse.conv
// CHECK: fuse.batch_norm %[[C]],
func.func @statistics_not_constant(%x: tensor<?x1x4x4xf32>, %mean: tensor<2xf32>) -> tensor<?x2x4x4xf32> {
  %w = fuse.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = fuse.constant dense<1.0> : tensor<2xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<?x2x4x4xf32>
  %n = fuse.batch_norm %c, %p, %p, %mean, %p {epsilon = 1.0e-5 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  return %n : tensor<?x2x4x4xf32>
}

// -----

// Nor can weights or a bias that are function arguments.
// CHECK-LABEL: func.func @weights_not_constant
// CHECK: fuse.batch_norm
// CHECK: fuse.batch_norm
func.func @weights_not_constant(%x: tensor<?x1x4x4xf32>, %w: tensor<2x1x1x1xf32>, %b: tensor<2xf32>) -> (tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>) {
  %w2 = fuse.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = fuse.constant dense<1.0> : tensor<2xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<?x2x4x4xf32>
  %n = fuse.batch_norm %c, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  %d = fuse.conv %x, %w2, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  %m = fuse.batch_norm %d, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  return %n, %m : tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>
}

// -----

// A batch norm whose input is not a conv stays.
// CHECK-LABEL: func.func @input_not_conv
// CHECK: %[[R:.*]] = fuse.relu
// CHECK: fuse.batch_norm %[[R]],
func.func @input_not_conv(%x: tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32> {
  %p = fuse.constant dense<1.0> : tensor<2xf32>
  %r = fuse.relu %x : (tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32>
  %n = fuse.batch_norm %r, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  return %n : tensor<?x2x4x4xf32>
}
