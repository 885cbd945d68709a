// Run-time data movement: fuse.slice, fuse.gather, fuse.expand, on any
// element type, and fuse.resize.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// One entry per dimension; the batch is sliced whole (end INT64_MAX); a
// negative step walks backwards from a start inside the axis.
// CHECK-LABEL: func.func @slice
// CHECK: fuse.slice %{{.*}} {ends = array<i64: 9223372036854775807, 8, 64>, starts = array<i64: 0, 0, 32>, steps = array<i64: 1, 1, 1>} : (tensor<?x8x96xf32>) -> tensor<?x8x32xf32>
// CHECK: fuse.slice %{{.*}} {ends = array<i64: -1>, starts = array<i64: 5>, steps = array<i64: -2>} : (tensor<6xi64>) -> tensor<3xi64>
// CHECK: fuse.slice %{{.*}} -> tensor<0x3xi1>
func.func @slice(%x: tensor<?x8x96xf32>, %ids: tensor<6xi64>, %mask: tensor<4x3xi1>) -> (tensor<?x8x32xf32>, tensor<3xi64>, tensor<0x3xi1>) {
  %0 = fuse.slice %x {starts = array<i64: 0, 0, 32>, ends = array<i64: 9223372036854775807, 8, 64>, steps = array<i64: 1, 1, 1>} : (tensor<?x8x96xf32>) -> tensor<?x8x32xf32>
  %1 = fuse.slice %ids {starts = array<i64: 5>, ends = array<i64: -1>, steps = array<i64: -2>} : (tensor<6xi64>) -> tensor<3xi64>
  %2 = fuse.slice %mask {starts = array<i64: 2, 0>, ends = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<4x3xi1>) -> tensor<0x3xi1>
  return %0, %1, %2 : tensor<?x8x32xf32>, tensor<3xi64>, tensor<0x3xi1>
}

// -----

// -----

func.func @slice_batch(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'fuse.slice' op axis 0 is the batch dimension, which can only be sliced whole}}
  %0 = fuse.slice %x {starts = array<i64: 1, 0>, ends = array<i64: 9223372036854775807, 8>, steps = array<i64: 1, 1>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @slice_outside(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'fuse.slice' op start 3 and end 5 with step 1 are not normalised for an axis of 4 (start and end in [0, 4])}}
  %0 = fuse.slice %x {starts = array<i64: 3>, ends = array<i64: 5>, steps = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_rank(%x: tensor<4x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'fuse.slice' op 'starts', 'ends' and 'steps' must have 2 entries each, got 1, 1 and 1}}
  %0 = fuse.slice %x {starts = array<i64: 0>, ends = array<i64: 2>, steps = array<i64: 1>} : (tensor<4x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// An embedding lookup (int64 token ids carrying the batch) and x[:, 0].
// CHECK-LABEL: func.func @gather
// CHECK: fuse.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<100x16xf16>, tensor<?x7xi64>) -> tensor<?x7x16xf16>
// CHECK: fuse.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x5x16xf32>, tensor<i32>) -> tensor<?x16xf32>
func.func @gather(%table: tensor<100x16xf16>, %ids: tensor<?x7xi64>, %x: tensor<?x5x16xf32>, %i: tensor<i32>) -> (tensor<?x7x16xf16>, tensor<?x16xf32>) {
  %0 = fuse.gather %table, %ids {axis = 0 : i64} : (tensor<100x16xf16>, tensor<?x7xi64>) -> tensor<?x7x16xf16>
  %1 = fuse.gather %x, %i {axis = 1 : i64} : (tensor<?x5x16xf32>, tensor<i32>) -> tensor<?x16xf32>
  return %0, %1 : tensor<?x7x16xf16>, tensor<?x16xf32>
}

// -----

// GatherElements: the result has the indices' shape, which may be shorter
// than the input along the other axes.
// CHECK-LABEL: func.func @gather_elements
// CHECK: fuse.gather_elements %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<?x3x9xf32>, tensor<?x2x4xi64>) -> tensor<?x2x4xf32>
func.func @gather_elements(%x: tensor<?x3x9xf32>, %i: tensor<?x2x4xi64>) -> tensor<?x2x4xf32> {
  %0 = fuse.gather_elements %x, %i {axis = 2 : i64} : (tensor<?x3x9xf32>, tensor<?x2x4xi64>) -> tensor<?x2x4xf32>
  return %0 : tensor<?x2x4xf32>
}

// -----

func.func @gather_elements_longer(%x: tensor<?x3x9xf32>, %i: tensor<?x4x4xi64>) -> tensor<?x4x4xf32> {
  // expected-error @+1 {{'fuse.gather_elements' op indices [?, 4, 4] are longer than the input [?, 3, 9] along axis 1 (or only one of them has the batch dimension there)}}
  %0 = fuse.gather_elements %x, %i {axis = 2 : i64} : (tensor<?x3x9xf32>, tensor<?x4x4xi64>) -> tensor<?x4x4xf32>
  return %0 : tensor<?x4x4xf32>
}

// -----

func.func @gather_elements_rank(%x: tensor<3x9xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.gather_elements' op indices [4] must have the rank of the input [3, 9]}}
  %0 = fuse.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x9xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_twice_batch(%x: tensor<?x5xf32>, %ids: tensor<?xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'fuse.gather' op gathering [?] from [?, 5] would give a result with the batch dimension twice}}
  %0 = fuse.gather %x, %ids {axis = 1 : i64} : (tensor<?x5xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @gather_float_indices(%x: tensor<5xf32>, %ids: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'fuse.gather' op operand #1 must be ranked tensor of 64-bit signless integer or 32-bit signless integer values}}
  %0 = fuse.gather %x, %ids {axis = 0 : i64} : (tensor<5xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A bool padding mask [batch, 1, 1, S] expanded over heads and rows; 1 keeps
// the batch.
// CHECK-LABEL: func.func @expand
// CHECK: fuse.expand %{{.*}} {shape = array<i64: 1, 4, 6, 6>} : (tensor<?x1x1x6xi1>) -> tensor<?x4x6x6xi1>
// CHECK: fuse.expand %{{.*}} {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: fuse.expand %{{.*}} {shape = array<i64: -1, 1, 3>} : (tensor<1x1x3xf32>) -> tensor<?x1x3xf32>
func.func @expand(%mask: tensor<?x1x1x6xi1>, %v: tensor<3xf32>, %token: tensor<1x1x3xf32>) -> (tensor<?x4x6x6xi1>, tensor<2x3xf32>, tensor<?x1x3xf32>) {
  %0 = fuse.expand %mask {shape = array<i64: 1, 4, 6, 6>} : (tensor<?x1x1x6xi1>) -> tensor<?x4x6x6xi1>
  %1 = fuse.expand %v {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>
  // -1 broadcasts a 1 to the batch size (a class token).
  %2 = fuse.expand %token {shape = array<i64: -1, 1, 3>} : (tensor<1x1x3xf32>) -> tensor<?x1x3xf32>
  return %0, %1, %2 : tensor<?x4x6x6xi1>, tensor<2x3xf32>, tensor<?x1x3xf32>
}

// -----

func.func @expand_batch_twice(%x: tensor<?x1xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'fuse.expand' op expanding [?, 1] to [?, ?] would give a result with the batch dimension twice}}
  %0 = fuse.expand %x {shape = array<i64: -1, -1>} : (tensor<?x1xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @expand_mismatch(%v: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.expand' op cannot expand [3] to [4]}}
  %0 = fuse.expand %v {shape = array<i64: 4>} : (tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Resize keeps the batch (size -1, scale 1); scales are the coordinate
// transform's factors, sizes the extents.
// CHECK-LABEL: func.func @resize
// CHECK: fuse.resize %{{.*}} {coordinate_transformation_mode = "half_pixel", mode = "linear", nearest_mode = "round_prefer_floor", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 1.500000e+00>, sizes = array<i64: -1, 3, 8, 6>} : (tensor<?x3x4x4xf32>) -> tensor<?x3x8x6xf32>
func.func @resize(%x: tensor<?x3x4x4xf32>) -> tensor<?x3x8x6xf32> {
  %0 = fuse.resize %x {sizes = array<i64: -1, 3, 8, 6>, scales = array<f32: 1.0, 1.0, 2.0, 1.5>, mode = "linear", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor"} : (tensor<?x3x4x4xf32>) -> tensor<?x3x8x6xf32>
  return %0 : tensor<?x3x8x6xf32>
}

// -----

func.func @resize_area(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'fuse.resize' op 'mode' must be "nearest", "linear" or "cubic", got "area"}}
  %0 = fuse.resize %x {sizes = array<i64: 2, 8>, scales = array<f32: 1.0, 2.0>, mode = "area", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor"} : (tensor<2x4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @resize_batch(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'fuse.resize' op axis 0 is the batch dimension, which Resize keeps (size -1, scale 1)}}
  %0 = fuse.resize %x {sizes = array<i64: 2, 4>, scales = array<f32: 2.0, 1.0>, mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @resize_scale(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'fuse.resize' op axis 1: 'scales' entries must be finite and > 0, got 0}}
  %0 = fuse.resize %x {sizes = array<i64: 2, 8>, scales = array<f32: 1.0, 0.0>, mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<2x4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
