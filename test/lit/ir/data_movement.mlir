// Data movement: fuse.pad, fuse.flatten, fuse.transpose, fuse.concat
// (fuse.reshape is in reshape*.mlir).
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// pads = all begins, then all ends. The defaults (mode "constant", value 0)
// are not printed.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x8x8xf32>)
// CHECK: fuse.pad %[[X]] {pads = array<i64: 0, 0, 1, 2, 0, 0, 3, 4>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x12x14xf32>
// CHECK: fuse.pad %[[X]] {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
// CHECK: fuse.pad %[[X]] {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 5.000000e-01 : f32} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
// CHECK: fuse.pad %[[X]] {mode = "reflect", pads = array<i64: 0, 0, 7, 0, 0, 0, 0, 7>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x15x15xf32>
// CHECK: fuse.pad %[[X]] {mode = "edge", pads = array<i64: 0, 2, 0, 0, 0, 1, 9, 0>} : (tensor<?x3x8x8xf32>) -> tensor<?x6x17x8xf32>
// CHECK: fuse.pad %[[X]] {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
func.func @pad(%x: tensor<?x3x8x8xf32>) -> (tensor<?x3x12x14xf32>, tensor<?x3x10x10xf32>, tensor<?x3x10x10xf32>, tensor<?x3x15x15xf32>, tensor<?x6x17x8xf32>, tensor<?x3x8x8xf32>) {
  %0 = fuse.pad %x {pads = array<i64: 0, 0, 1, 2, 0, 0, 3, 4>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x12x14xf32>
  %1 = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "constant", value = 0.0 : f32} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  %2 = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.5 : f32} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  // Reflect pads may be as large as the dimension minus one.
  %3 = fuse.pad %x {pads = array<i64: 0, 0, 7, 0, 0, 0, 0, 7>, mode = "reflect"} : (tensor<?x3x8x8xf32>) -> tensor<?x3x15x15xf32>
  // Edge pads may exceed the dimension; the channel axis may be padded.
  %4 = fuse.pad %x {pads = array<i64: 0, 2, 0, 0, 0, 1, 9, 0>, mode = "edge"} : (tensor<?x3x8x8xf32>) -> tensor<?x6x17x8xf32>
  // A zero pad of the batch axis is fine.
  %5 = fuse.pad %x {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x3x12x14xf32>, tensor<?x3x10x10xf32>, tensor<?x3x10x10xf32>, tensor<?x3x15x15xf32>, tensor<?x6x17x8xf32>, tensor<?x3x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x4x5xf32>, %[[Y:.*]]: tensor<2x3x4xf32>)
// CHECK: fuse.flatten %[[X]] {axis = 1 : i64} : (tensor<?x3x4x5xf32>) -> tensor<?x60xf32>
// CHECK: fuse.flatten %[[Y]] {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<1x24xf32>
// CHECK: fuse.flatten %[[Y]] {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: fuse.flatten %[[Y]] {axis = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<24x1xf32>
func.func @flatten(%x: tensor<?x3x4x5xf32>, %y: tensor<2x3x4xf32>) -> (tensor<?x60xf32>, tensor<1x24xf32>, tensor<6x4xf32>, tensor<24x1xf32>) {
  %0 = fuse.flatten %x {axis = 1 : i64} : (tensor<?x3x4x5xf32>) -> tensor<?x60xf32>
  %1 = fuse.flatten %y {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<1x24xf32>
  %2 = fuse.flatten %y {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %3 = fuse.flatten %y {axis = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<24x1xf32>
  return %0, %1, %2, %3 : tensor<?x60xf32>, tensor<1x24xf32>, tensor<6x4xf32>, tensor<24x1xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: fuse.transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<?x3x4x5xf32>) -> tensor<?x4x5x3xf32>
// CHECK: fuse.transpose %{{.*}} {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: fuse.transpose %{{.*}} {perm = array<i64: 0>} : (tensor<?xf32>) -> tensor<?xf32>
func.func @transpose(%x: tensor<?x3x4x5xf32>, %y: tensor<2x3xf32>, %z: tensor<?xf32>) -> (tensor<?x4x5x3xf32>, tensor<3x2xf32>, tensor<?xf32>) {
  %0 = fuse.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<?x3x4x5xf32>) -> tensor<?x4x5x3xf32>
  %1 = fuse.transpose %y {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = fuse.transpose %z {perm = array<i64: 0>} : (tensor<?xf32>) -> tensor<?xf32>
  return %0, %1, %2 : tensor<?x4x5x3xf32>, tensor<3x2xf32>, tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<?x3x8xf32>, %[[B:.*]]: tensor<?x5x8xf32>, %[[C:.*]]: tensor<2x4xf32>)
// CHECK: fuse.concat %[[A]], %[[B]], %[[A]] {axis = 1 : i64} : (tensor<?x3x8xf32>, tensor<?x5x8xf32>, tensor<?x3x8xf32>) -> tensor<?x11x8xf32>
// CHECK: fuse.concat %[[A]], %[[A]] {axis = 2 : i64} : (tensor<?x3x8xf32>, tensor<?x3x8xf32>) -> tensor<?x3x16xf32>
// CHECK: fuse.concat %[[C]], %[[C]] {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
// CHECK: fuse.concat %[[C]] {axis = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
func.func @concat(%a: tensor<?x3x8xf32>, %b: tensor<?x5x8xf32>, %c: tensor<2x4xf32>) -> (tensor<?x11x8xf32>, tensor<?x3x16xf32>, tensor<4x4xf32>, tensor<2x4xf32>) {
  %0 = fuse.concat %a, %b, %a {axis = 1 : i64} : (tensor<?x3x8xf32>, tensor<?x5x8xf32>, tensor<?x3x8xf32>) -> tensor<?x11x8xf32>
  %1 = fuse.concat %a, %a {axis = 2 : i64} : (tensor<?x3x8xf32>, tensor<?x3x8xf32>) -> tensor<?x3x16xf32>
  %2 = fuse.concat %c, %c {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %3 = fuse.concat %c {axis = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0, %1, %2, %3 : tensor<?x11x8xf32>, tensor<?x3x16xf32>, tensor<4x4xf32>, tensor<2x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: pad
//===----------------------------------------------------------------------===//

func.func @pad_length(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32> {
  // expected-error @+1 {{'fuse.pad' op 'pads' must have 2 x rank = 8 entries, got 4}}
  %0 = fuse.pad %x {pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  return %0 : tensor<?x3x10x10xf32>
}

// -----

func.func @pad_bad_mode(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32> {
  // expected-error @+1 {{'fuse.pad' op 'mode' must be "constant", "reflect" or "edge", got "wrap"}}
  %0 = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "wrap"} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32>
  return %0 : tensor<?x3x10x10xf32>
}

// -----

func.func @pad_negative_begin(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x7x8xf32> {
  // expected-error @+1 {{'fuse.pad' op axis 2: negative pads (cropping) are not supported, got -1 and 0}}
  %0 = fuse.pad %x {pads = array<i64: 0, 0, -1, 0, 0, 0, 0, 0>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x7x8xf32>
  return %0 : tensor<?x3x7x8xf32>
}

// -----

func.func @pad_negative_end(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x8x7xf32> {
  // expected-error @+1 {{'fuse.pad' op axis 3: negative pads (cropping) are not supported, got 1 and -2}}
  %0 = fuse.pad %x {pads = array<i64: 0, 0, 0, 1, 0, 0, 0, -2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x7xf32>
  return %0 : tensor<?x3x8x7xf32>
}

// -----

func.func @pad_batch(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32> {
  // expected-error @+1 {{'fuse.pad' op cannot pad the batch dimension (axis 0)}}
  %0 = fuse.pad %x {pads = array<i64: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
  return %0 : tensor<?x3x8x8xf32>
}

// -----

func.func @pad_reflect_too_large(%x: tensor<?x3x8x4xf32>) -> tensor<?x3x8x10xf32> {
  // expected-error @+1 {{'fuse.pad' op axis 3: reflect pads must be smaller than the dimension (4), got 2 and 4}}
  %0 = fuse.pad %x {pads = array<i64: 0, 0, 0, 2, 0, 0, 0, 4>, mode = "reflect"} : (tensor<?x3x8x4xf32>) -> tensor<?x3x8x10xf32>
  return %0 : tensor<?x3x8x10xf32>
}

// -----

func.func @pad_reflect_begin_too_large(%x: tensor<?x3x8x4xf32>) -> tensor<?x3x16x4xf32> {
  // expected-error @+1 {{'fuse.pad' op axis 2: reflect pads must be smaller than the dimension (8), got 8 and 0}}
  %0 = fuse.pad %x {pads = array<i64: 0, 0, 8, 0, 0, 0, 0, 0>, mode = "reflect"} : (tensor<?x3x8x4xf32>) -> tensor<?x3x16x4xf32>
  return %0 : tensor<?x3x16x4xf32>
}

// -----

func.func @pad_edge_of_empty_axis(%x: tensor<2x0xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'fuse.pad' op axis 1: edge padding of an empty axis}}
  %0 = fuse.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "edge"} : (tensor<2x0xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @pad_result(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x9x9xf32> {
  // expected-error @+1 {{'fuse.pad' op result type 'tensor<?x3x9x9xf32>' does not match the inferred type 'tensor<?x3x10x10xf32>'}}
  %0 = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x9x9xf32>
  return %0 : tensor<?x3x9x9xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: flatten
//===----------------------------------------------------------------------===//

func.func @flatten_axis_too_large(%x: tensor<2x3x4xf32>) -> tensor<24x1xf32> {
  // expected-error @+1 {{'fuse.flatten' op 'axis' 4 is out of range [0, 3]}}
  %0 = fuse.flatten %x {axis = 4 : i64} : (tensor<2x3x4xf32>) -> tensor<24x1xf32>
  return %0 : tensor<24x1xf32>
}

// -----

func.func @flatten_axis_negative(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'fuse.flatten' op 'axis' -1 is out of range [0, 3]}}
  %0 = fuse.flatten %x {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @flatten_merges_batch_outer(%x: tensor<?x3x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'fuse.flatten' op flattening [?, 3, 4] at axis 2 would merge the batch dimension with other dimensions}}
  %0 = fuse.flatten %x {axis = 2 : i64} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @flatten_merges_batch_inner(%x: tensor<?x3x4xf32>) -> tensor<1x?xf32> {
  // expected-error @+1 {{'fuse.flatten' op flattening [?, 3, 4] at axis 0 would merge the batch dimension with other dimensions}}
  %0 = fuse.flatten %x {axis = 0 : i64} : (tensor<?x3x4xf32>) -> tensor<1x?xf32>
  return %0 : tensor<1x?xf32>
}

// -----

func.func @flatten_result(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  // expected-error @+1 {{'fuse.flatten' op result type 'tensor<?x3x4xf32>' does not match the inferred type 'tensor<?x12xf32>'}}
  %0 = fuse.flatten %x {axis = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: transpose
//===----------------------------------------------------------------------===//

func.func @transpose_perm_length(%x: tensor<?x3x4xf32>) -> tensor<?x4x3xf32> {
  // expected-error @+1 {{'fuse.transpose' op 'perm' must have 3 entries, got 2}}
  %0 = fuse.transpose %x {perm = array<i64: 1, 0>} : (tensor<?x3x4xf32>) -> tensor<?x4x3xf32>
  return %0 : tensor<?x4x3xf32>
}

// -----

func.func @transpose_perm_repeats(%x: tensor<?x3x4xf32>) -> tensor<?x3x3xf32> {
  // expected-error @+1 {{'fuse.transpose' op 'perm' must be a permutation of [0, 3)}}
  %0 = fuse.transpose %x {perm = array<i64: 0, 1, 1>} : (tensor<?x3x4xf32>) -> tensor<?x3x3xf32>
  return %0 : tensor<?x3x3xf32>
}

// -----

func.func @transpose_perm_out_of_range(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  // expected-error @+1 {{'fuse.transpose' op 'perm' must be a permutation of [0, 3)}}
  %0 = fuse.transpose %x {perm = array<i64: 0, 1, 3>} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// -----

func.func @transpose_perm_negative(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  // expected-error @+1 {{'fuse.transpose' op 'perm' must be a permutation of [0, 3)}}
  %0 = fuse.transpose %x {perm = array<i64: 0, -1, 1>} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// -----

func.func @transpose_result(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  // expected-error @+1 {{'fuse.transpose' op result type 'tensor<?x3x4xf32>' does not match the inferred type 'tensor<?x4x3xf32>'}}
  %0 = fuse.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: concat
//===----------------------------------------------------------------------===//

func.func @concat_no_inputs() -> tensor<2xf32> {
  // expected-error @+1 {{'fuse.concat' op needs at least one input}}
  %0 = fuse.concat {axis = 0 : i64} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @concat_axis_too_large(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'fuse.concat' op 'axis' 2 is out of range for rank 2}}
  %0 = fuse.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_axis_negative(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'fuse.concat' op 'axis' -1 is out of range for rank 2}}
  %0 = fuse.concat %a, %a {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_along_batch(%a: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'fuse.concat' op concatenated dimension must be static, not the batch dimension}}
  %0 = fuse.concat %a, %a {axis = 0 : i64} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'fuse.concat' op inputs must have equal ranks, got [2, 3] and [3]}}
  %0 = fuse.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_shape_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'fuse.concat' op inputs differ on axis 0: [2, 3] and [4, 3]}}
  %0 = fuse.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_batch_vs_fixed(%a: tensor<?x3xf32>, %b: tensor<2x5xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'fuse.concat' op inputs differ on axis 0: [?, 3] and [2, 5]}}
  %0 = fuse.concat %a, %b {axis = 1 : i64} : (tensor<?x3xf32>, tensor<2x5xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @concat_result(%a: tensor<?x3xf32>, %b: tensor<?x5xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'fuse.concat' op result type 'tensor<?x3xf32>' does not match the inferred type 'tensor<?x8xf32>'}}
  %0 = fuse.concat %a, %b {axis = 1 : i64} : (tensor<?x3xf32>, tensor<?x5xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
