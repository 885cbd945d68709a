// Window arithmetic must not overflow: a window of 2^62 with dilation 4
// spans far more than 8 pixels, it does not give 12 outputs.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics

func.func @max_pool_huge_window(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x12x7xf32> {
  // expected-error @+1 {{'fuse.max_pool' op spatial dimension 0: window of size 4611686018427387904 (dilation 4, pads 0+0) overflows the size arithmetic}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 4611686018427387904, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 4, 1>, ceil_mode = false} : (tensor<1x3x8x8xf32>) -> tensor<1x3x12x7xf32>
  return %0 : tensor<1x3x12x7xf32>
}

// -----

// 2^62 * (5 - 1) wraps to 0 in 64 bits.
func.func @conv_huge_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x5x3xf32>) -> tensor<1x4x8x6xf32> {
  // expected-error @+1 {{'fuse.conv' op spatial dimension 0: window of size 5 (dilation 4611686018427387904, pads 0+0) overflows the size arithmetic}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 4611686018427387904, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x5x3xf32>) -> tensor<1x4x8x6xf32>
  return %0 : tensor<1x4x8x6xf32>
}
