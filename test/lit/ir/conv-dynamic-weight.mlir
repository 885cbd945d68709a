// A `?` (the batch size) anywhere in a conv weight is rejected with the
// "must be static" diagnostic, never used as a size: the kernel height and
// the per-group input channels must not be computed with it.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics

func.func @dynamic_kernel_height(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x?x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op weight shape must be static, not the batch dimension}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x?x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @dynamic_weight_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x?x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op weight shape must be static, not the batch dimension}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x?x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
