// fuse.conv: round trip, inferred output shapes, and verifier errors.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @conv_bias_dynamic_batch
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[Y:.*]] = fuse.conv %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x6x6xf32>
// CHECK: return %[[Y]] : tensor<?x4x6x6xf32>
func.func @conv_bias_dynamic_batch(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<?x4x6x6xf32> {
  %0 = fuse.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x6x6xf32>
  return %0 : tensor<?x4x6x6xf32>
}

// -----

// No bias; stride 2 with one pixel of padding: (8 + 1 + 1 - 3) / 2 + 1 = 4.
// CHECK-LABEL: func.func @conv_no_bias_strided
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>)
// CHECK: fuse.conv %[[X]], %[[W]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
func.func @conv_no_bias_strided(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %0 = fuse.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// Dilation 2 makes a 3x3 kernel span 5 pixels: 9 - 5 + 1 = 5.
// CHECK-LABEL: func.func @conv_dilated
// CHECK: fuse.conv {{.*}} {dilations = array<i64: 2, 2>, {{.*}} -> tensor<1x4x5x5xf32>
func.func @conv_dilated(%x: tensor<1x3x9x9xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, group = 1 : i64} : (tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

// Asymmetric pads [top, left, bottom, right] and strides [h, w].
// H: (4 + 0 + 2 - 3) / 1 + 1 = 4, W: (6 + 1 + 3 - 3) / 1 + 1 = 8.
// H: (7 - 3) / 2 + 1 = 3, W: (7 - 3) / 1 + 1 = 5.
// CHECK-LABEL: func.func @conv_asymmetric
// CHECK: fuse.conv {{.*}} pads = array<i64: 0, 1, 2, 3>, strides = array<i64: 1, 1>} : (tensor<1x1x4x6xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x8xf32>
// CHECK: fuse.conv {{.*}} pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 1>} : (tensor<1x1x7x7xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x5xf32>
func.func @conv_asymmetric(%x: tensor<1x1x4x6xf32>, %y: tensor<1x1x7x7xf32>, %w: tensor<1x1x3x3xf32>) -> (tensor<1x1x4x8xf32>, tensor<1x1x3x5xf32>) {
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 1, 2, 3>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x4x6xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x8xf32>
  %1 = fuse.conv %y, %w {strides = array<i64: 2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x7x7xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x5xf32>
  return %0, %1 : tensor<1x1x4x8xf32>, tensor<1x1x3x5xf32>
}

// -----

// Depthwise (group = channels) and grouped convolutions: the weight holds
// C_in / group input channels.
// CHECK-LABEL: func.func @conv_grouped
// CHECK: fuse.conv {{.*}} group = 8 : i64{{.*}} : (tensor<?x8x5x5xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<?x8x5x5xf32>
// CHECK: fuse.conv {{.*}} group = 2 : i64{{.*}} : (tensor<2x4x6x6xf32>, tensor<6x2x1x1xf32>) -> tensor<2x6x6x6xf32>
func.func @conv_grouped(%x: tensor<?x8x5x5xf32>, %dw: tensor<8x1x3x3xf32>, %db: tensor<8xf32>,
                        %y: tensor<2x4x6x6xf32>, %gw: tensor<6x2x1x1xf32>) -> (tensor<?x8x5x5xf32>, tensor<2x6x6x6xf32>) {
  %0 = fuse.conv %x, %dw, %db {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 8 : i64} : (tensor<?x8x5x5xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<?x8x5x5xf32>
  %1 = fuse.conv %y, %gw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<2x4x6x6xf32>, tensor<6x2x1x1xf32>) -> tensor<2x6x6x6xf32>
  return %0, %1 : tensor<?x8x5x5xf32>, tensor<2x6x6x6xf32>
}

// -----

// A kernel exactly as large as the padded input gives a 1x1 output.
// CHECK-LABEL: func.func @conv_full_window
// CHECK: -> tensor<?x2x1x1xf32>
func.func @conv_full_window(%x: tensor<?x3x3x3xf32>, %w: tensor<2x3x5x5xf32>) -> tensor<?x2x1x1xf32> {
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x3x3xf32>, tensor<2x3x5x5xf32>) -> tensor<?x2x1x1xf32>
  return %0 : tensor<?x2x1x1xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors
//===----------------------------------------------------------------------===//

func.func @input_rank(%x: tensor<?x3x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x6xf32> {
  // expected-error @+1 {{'fuse.conv' op input must have rank 4, got [?, 3, 8]}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6xf32>
  return %0 : tensor<?x4x6xf32>
}

// -----

func.func @weight_rank(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<?x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op weight must have rank 4, got [4, 3, 3]}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<?x4x6x6xf32>
  return %0 : tensor<?x4x6x6xf32>
}

// -----

func.func @weight_channel_mismatch(%x: tensor<?x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<?x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op weight has 2 input channels per group, expected 3 (input channels 3 / group 1)}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<?x4x6x6xf32>
  return %0 : tensor<?x4x6x6xf32>
}

// -----

// With group 2, the weight needs 4 / 2 = 2 input channels, not 4.
func.func @grouped_weight_channel_mismatch(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{weight has 4 input channels per group, expected 2 (input channels 4 / group 2)}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @group_does_not_divide_input_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op 'group' 2 must divide the input channels (3) and the output channels (4)}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x3x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @group_does_not_divide_output_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op 'group' 2 must divide the input channels (4) and the output channels (3)}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return %0 : tensor<1x3x6x6xf32>
}

// -----

func.func @group_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op 'group' must be >= 1, got 0}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 0 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @group_negative(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op 'group' must be >= 1, got -1}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = -1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @bias_length(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<?x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op bias must have shape [4], got [3]}}
  %0 = fuse.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<?x4x6x6xf32>
  return %0 : tensor<?x4x6x6xf32>
}

// -----

func.func @bias_rank(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<1x4xf32>) -> tensor<?x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op bias must have shape [4], got [1, 4]}}
  %0 = fuse.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x4xf32>) -> tensor<?x4x6x6xf32>
  return %0 : tensor<?x4x6x6xf32>
}

// -----

func.func @strides_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op 'strides' entries must be >= 1, got 0}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @strides_negative(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op 'strides' entries must be >= 1, got -2}}
  %0 = fuse.conv %x, %w {strides = array<i64: -2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @strides_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op 'strides' must have 2 entries, got 1}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @pads_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'fuse.conv' op 'pads' must have 4 entries, got 2}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @pads_negative(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x6xf32> {
  // expected-error @+1 {{'fuse.conv' op 'pads' entries must be >= 0, got -1}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, -1, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x6xf32>
  return %0 : tensor<1x4x5x6xf32>
}

// -----

func.func @dilations_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op 'dilations' entries must be >= 1, got 0}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 0, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @dilations_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op 'dilations' must have 2 entries, got 3}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @window_too_large(%x: tensor<1x3x4x8xf32>, %w: tensor<4x3x5x3xf32>) -> tensor<1x4x1x6xf32> {
  // expected-error @+1 {{'fuse.conv' op spatial dimension 0: window of size 5 (dilation 1, 5 wide) does not fit the input extent 4 with pads 0+0}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x8xf32>, tensor<4x3x5x3xf32>) -> tensor<1x4x1x6xf32>
  return %0 : tensor<1x4x1x6xf32>
}

// -----

// Dilation 3 makes the 3-wide kernel span 7 > 5 + 0 + 1 columns.
func.func @dilated_window_too_large(%x: tensor<1x3x8x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x1xf32> {
  // expected-error @+1 {{'fuse.conv' op spatial dimension 1: window of size 3 (dilation 3, 7 wide) does not fit the input extent 5 with pads 0+1}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 1>, dilations = array<i64: 1, 3>, group = 1 : i64} : (tensor<1x3x8x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x1xf32>
  return %0 : tensor<1x4x6x1xf32>
}

// -----

// A `?` is the batch size; it cannot stand for channels or spatial sizes.
func.func @dynamic_channels(%x: tensor<1x?x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op input channel dimension must be static, not the batch dimension}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x?x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @dynamic_filters(%x: tensor<1x3x8x8xf32>, %w: tensor<?x3x3x3xf32>) -> tensor<1x?x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op weight shape must be static, not the batch dimension}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<?x3x3x3xf32>) -> tensor<1x?x6x6xf32>
  return %0 : tensor<1x?x6x6xf32>
}

// -----

func.func @dynamic_spatial(%x: tensor<1x3x?x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32> {
  // expected-error @+1 {{'fuse.conv' op spatial input dimension must be static, not the batch dimension}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32>
  return %0 : tensor<1x4x?x6xf32>
}

// -----

func.func @result_spatial_mismatch(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'fuse.conv' op result type 'tensor<?x4x8x8xf32>' does not match the inferred type 'tensor<?x4x6x6xf32>'}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @result_static_batch(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op result type 'tensor<1x4x6x6xf32>' does not match the inferred type 'tensor<?x4x6x6xf32>'}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @missing_group(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'fuse.conv' op requires attribute 'group'}}
  %0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
