// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-fold-pad-into-conv))' | FileCheck %s

// The folded conv records the fold in `fuse.folded` (for the fusion report).
// pads [n, c, h, w begins; n, c, h, w ends] = [0, 0, 1, 2; 0, 0, 3, 4] add to
// the conv's [top, left, bottom, right] = [1, 1, 1, 1]: [2, 3, 4, 5].
// CHECK-LABEL: func.func @zero_pad_folds
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT: fuse.pad
// CHECK: %[[Y:.*]] = fuse.conv %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, fuse.folded = ["pad"], group = 1 : i64, pads = array<i64: 2, 3, 4, 5>, strides = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x12x14xf32>
// CHECK-NOT: fuse.pad
// CHECK: return %[[Y]] : tensor<?x4x12x14xf32>
func.func @zero_pad_folds(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<?x4x12x14xf32> {
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 2, 0, 0, 3, 4>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x12x14xf32>
  %c = fuse.conv %p, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x12x14xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x12x14xf32>
  return %c : tensor<?x4x12x14xf32>
}

// -----

// An explicit mode = "constant", value = 0; strides, dilations and group are
// kept; no bias stays no bias.
// CHECK-LABEL: func.func @explicit_zero_pad_folds
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x2x3x3xf32>)
// CHECK-NOT: fuse.pad
// CHECK: fuse.conv %[[X]], %[[W]] {dilations = array<i64: 2, 2>, fuse.folded = ["pad"], group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
func.func @explicit_zero_pad_folds(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "constant", value = 0.0 : f32} : (tensor<1x4x8x8xf32>) -> tensor<1x4x10x10xf32>
  %c = fuse.conv %p, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, group = 2 : i64} : (tensor<1x4x10x10xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %c : tensor<1x4x3x3xf32>
}

// -----

// Two stacked zero pads both fold into the conv.
// CHECK-LABEL: func.func @stacked_pads_fold
// CHECK-NOT: fuse.pad
// CHECK: fuse.conv {{.*}}fuse.folded = ["pad", "pad"]{{.*}}pads = array<i64: 2, 2, 2, 2>{{.*}} -> tensor<?x4x10x10xf32>
func.func @stacked_pads_fold(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x10x10xf32> {
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  %q = fuse.pad %p {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<?x3x10x10xf32>) -> tensor<?x3x12x12xf32>
  %c = fuse.conv %q, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x12x12xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x10x10xf32>
  return %c : tensor<?x4x10x10xf32>
}

// -----

// A non-zero pad value differs from the conv's zero padding.
// CHECK-LABEL: func.func @half_pad_stays
// CHECK: %[[P:.*]] = fuse.pad %{{.*}} {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 5.000000e-01 : f32}
// CHECK: fuse.conv %[[P]], %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>
func.func @half_pad_stays(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.5 : f32} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  %c = fuse.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %c : tensor<?x4x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @reflect_pad_stays
// CHECK: %[[P:.*]] = fuse.pad %{{.*}} {mode = "reflect"
// CHECK: fuse.conv %[[P]], %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>
func.func @reflect_pad_stays(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "reflect"} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  %c = fuse.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %c : tensor<?x4x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @edge_pad_stays
// CHECK: %[[P:.*]] = fuse.pad %{{.*}} {mode = "edge"
// CHECK: fuse.conv %[[P]], %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>
func.func @edge_pad_stays(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "edge"} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  %c = fuse.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %c : tensor<?x4x8x8xf32>
}

// -----

// Padding the channel axis adds zero channels; conv padding cannot do that.
// CHECK-LABEL: func.func @channel_pad_stays
// CHECK: %[[P:.*]] = fuse.pad %{{.*}} {pads = array<i64: 0, 1, 0, 0, 0, 0, 0, 0>}
// CHECK: fuse.conv %[[P]],
func.func @channel_pad_stays(%x: tensor<?x3x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<?x4x6x6xf32> {
  %p = fuse.pad %x {pads = array<i64: 0, 1, 0, 0, 0, 0, 0, 0>} : (tensor<?x3x8x8xf32>) -> tensor<?x4x8x8xf32>
  %c = fuse.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x6x6xf32>
  return %c : tensor<?x4x6x6xf32>
}

// -----

// Padding a (static) batch axis adds samples.
// CHECK-LABEL: func.func @batch_pad_stays
// CHECK: %[[P:.*]] = fuse.pad %{{.*}} {pads = array<i64: 0, 0, 1, 1, 1, 0, 1, 1>}
// CHECK: fuse.conv %[[P]],
func.func @batch_pad_stays(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 1, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<2x3x10x10xf32>
  %c = fuse.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<2x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %c : tensor<2x4x8x8xf32>
}

// -----

// The padded tensor has another user that still needs it.
// CHECK-LABEL: func.func @multi_user_pad_stays
// CHECK: %[[P:.*]] = fuse.pad
// CHECK: %[[C:.*]] = fuse.conv %[[P]], {{.*}}pads = array<i64: 0, 0, 0, 0>
// CHECK: %[[R:.*]] = fuse.relu %[[P]]
// CHECK: return %[[C]], %[[R]]
func.func @multi_user_pad_stays(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<?x4x8x8xf32>, tensor<?x3x10x10xf32>) {
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  %c = fuse.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  %r = fuse.relu %p : (tensor<?x3x10x10xf32>) -> tensor<?x3x10x10xf32>
  return %c, %r : tensor<?x4x8x8xf32>, tensor<?x3x10x10xf32>
}

// -----

// Two convs reading one pad: the pad has two users, so neither folds.
// CHECK-LABEL: func.func @pad_shared_by_convs_stays
// CHECK: %[[P:.*]] = fuse.pad
// CHECK: fuse.conv %[[P]],
// CHECK: fuse.conv %[[P]],
func.func @pad_shared_by_convs_stays(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>) {
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  %c = fuse.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  %d = fuse.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %c, %d : tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>
}

// -----

// A pad that feeds something other than a conv is untouched.
// CHECK-LABEL: func.func @pad_before_pool_stays
// CHECK: %[[P:.*]] = fuse.pad
// CHECK: fuse.max_pool %[[P]]
func.func @pad_before_pool_stays(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x5x5xf32> {
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  %m = fuse.max_pool %p {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x3x10x10xf32>) -> tensor<?x3x5x5xf32>
  return %m : tensor<?x3x5x5xf32>
}
