// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-layer-norm))' | FileCheck %s

// LayerNormalization as exporters write it before opset 17: the mean, the
// difference, the mean of its squares plus epsilon, the square root, the
// division, the scale and the bias become one fuse.layer_norm.
// CHECK-LABEL: func.func @spelled_out
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x7x32xf32>)
// CHECK-NEXT: %[[G:.*]] = fuse.constant dense<2.000000e+00> : tensor<32xf32>
// CHECK-NEXT: %[[B:.*]] = fuse.constant dense<5.000000e-01> : tensor<32xf32>
// CHECK-NEXT: %[[N:.*]] = fuse.layer_norm %[[X]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<?x7x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x7x32xf32>
// CHECK-NEXT: return %[[N]]
func.func @spelled_out(%x: tensor<?x7x32xf32>) -> tensor<?x7x32xf32> {
  %gamma_c = fuse.constant dense<2.0> : tensor<32xf32>
  %beta_c = fuse.constant dense<0.5> : tensor<32xf32>
  %mean = fuse.reduce_mean %x {axes = array<i64: 2>, keepdims = true} : (tensor<?x7x32xf32>) -> tensor<?x7x1xf32>
  %d = fuse.sub %x, %mean : (tensor<?x7x32xf32>, tensor<?x7x1xf32>) -> tensor<?x7x32xf32>
  %two = fuse.constant dense<2.0> : tensor<f32>
  %sq = fuse.pow %d, %two : (tensor<?x7x32xf32>, tensor<f32>) -> tensor<?x7x32xf32>
  %var = fuse.reduce_mean %sq {axes = array<i64: 2>, keepdims = true} : (tensor<?x7x32xf32>) -> tensor<?x7x1xf32>
  %eps = fuse.constant dense<9.99999974E-6> : tensor<f32>
  %ve = fuse.add %var, %eps : (tensor<?x7x1xf32>, tensor<f32>) -> tensor<?x7x1xf32>
  %dev = fuse.sqrt %ve : (tensor<?x7x1xf32>) -> tensor<?x7x1xf32>
  %n = fuse.div %d, %dev : (tensor<?x7x32xf32>, tensor<?x7x1xf32>) -> tensor<?x7x32xf32>
  %s = fuse.mul %n, %gamma_c : (tensor<?x7x32xf32>, tensor<32xf32>) -> tensor<?x7x32xf32>
  %y = fuse.add %s, %beta_c : (tensor<?x7x32xf32>, tensor<32xf32>) -> tensor<?x7x32xf32>
  return %y : tensor<?x7x32xf32>
}

// -----

// The square as d * d, epsilon added on the left, over the last two axes,
// and no constant scale (the Mul by an argument stays after the norm): the
// norm's scale is ones and it has no bias.
// CHECK-LABEL: func.func @square_by_mul
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x4xf32>, %[[G:[^:]*]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[ONES:.*]] = fuse.constant dense<1.000000e+00> : tensor<3x4xf32>
// CHECK-NEXT: %[[N:.*]] = fuse.layer_norm %[[X]], %[[ONES]] {axis = 1 : i64, epsilon = 1.000000e-03 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[S:.*]] = fuse.mul %[[N]], %[[G]]
// CHECK-NEXT: return %[[S]]
func.func @square_by_mul(%x: tensor<2x3x4xf32>, %gamma: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %mean = fuse.reduce_mean %x {axes = array<i64: 1, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %d = fuse.sub %x, %mean : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %sq = fuse.mul %d, %d : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %var = fuse.reduce_mean %sq {axes = array<i64: 1, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %eps = fuse.constant dense<1.0e-3> : tensor<1xf32>
  %ve = fuse.add %eps, %var : (tensor<1xf32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %dev = fuse.sqrt %ve : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %n = fuse.div %d, %dev : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %s = fuse.mul %n, %gamma : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  return %s : tensor<2x3x4xf32>
}

// -----

// What stays: the difference read elsewhere too (it is a result), the two
// means over different axes, and a square that is not Pow(d, 2).
// CHECK-LABEL: func.func @not_layer_norms
// CHECK-NOT: fuse.layer_norm
func.func @not_layer_norms(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %eps = fuse.constant dense<1.0e-5> : tensor<f32>
  %two = fuse.constant dense<2.0> : tensor<f32>
  %three = fuse.constant dense<3.0> : tensor<f32>
  %mean = fuse.reduce_mean %x {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %d = fuse.sub %x, %mean : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %sq = fuse.pow %d, %two : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %var = fuse.reduce_mean %sq {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %ve = fuse.add %var, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %dev = fuse.sqrt %ve : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %n = fuse.div %d, %dev : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %mean2 = fuse.reduce_mean %x {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %d2 = fuse.sub %x, %mean2 : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %sq2 = fuse.pow %d2, %two : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %var2 = fuse.reduce_mean %sq2 {axes = array<i64: 1, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %ve2 = fuse.add %var2, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %dev2 = fuse.sqrt %ve2 : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %n2 = fuse.div %d2, %dev2 : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %mean3 = fuse.reduce_mean %x {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %d3 = fuse.sub %x, %mean3 : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %sq3 = fuse.pow %d3, %three : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %var3 = fuse.reduce_mean %sq3 {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %ve3 = fuse.add %var3, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %dev3 = fuse.sqrt %ve3 : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %n3 = fuse.div %d3, %dev3 : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  return %n, %d, %n2, %n3 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
