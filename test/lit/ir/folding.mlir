// Op folders, exercised through the canonicalizer.
// RUN: fusec-opt %s -split-input-file -canonicalize | FileCheck %s

// A reshape to its own input type folds away; a real reshape stays.
// CHECK-LABEL: func.func @reshape_fold
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = fuse.reshape %[[X]] {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: return %[[X]], %[[R]] : tensor<2x3x4xf32>, tensor<6x4xf32>
func.func @reshape_fold(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<6x4xf32>) {
  %0 = fuse.reshape %x {shape = array<i64: 0, 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = fuse.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<6x4xf32>
}

// -----

// The transpose of a constant (a linear layer's weight) is a constant.
// CHECK-LABEL: func.func @transpose_of_constant
// CHECK-NEXT: %[[C:.*]] = fuse.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NEXT: return %[[C]] : tensor<3x2xf32>
func.func @transpose_of_constant() -> tensor<3x2xf32> {
  %c = fuse.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = fuse.transpose %c {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}

// -----

// A rank-3 permutation: out[i][j][k] = in[j][k][i] for perm [2, 0, 1].
// in = [[[0, 1], [2, 3], [4, 5]]] (1x3x2) -> out (2x1x3) = [[[0, 2, 4]], [[1, 3, 5]]].
// CHECK-LABEL: func.func @transpose_of_constant_rank3
// CHECK-NEXT: fuse.constant dense<{{\[\[\[}}0.000000e+00, 2.000000e+00, 4.000000e+00]], {{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00]]]> : tensor<2x1x3xf32>
func.func @transpose_of_constant_rank3() -> tensor<2x1x3xf32> {
  %c = fuse.constant dense<[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]]> : tensor<1x3x2xf32>
  %t = fuse.transpose %c {perm = array<i64: 2, 0, 1>} : (tensor<1x3x2xf32>) -> tensor<2x1x3xf32>
  return %t : tensor<2x1x3xf32>
}

// -----

// Large results (more than 16 elements) become a dense_resource blob:
// in[i][j] = 8 * i + j (3x8), so out (8x3) starts 0, 8, 16, 1, ...
// CHECK-LABEL: func.func @transpose_of_resource
// CHECK-NEXT: %[[C:.*]] = fuse.constant dense_resource<[[KEY:transposed[_0-9]*]]> : tensor<8x3xf32>
// CHECK-NEXT: return %[[C]] : tensor<8x3xf32>
// CHECK: [[KEY]]: "0x040000000000000000000041000080410000803F
func.func @transpose_of_resource() -> tensor<8x3xf32> {
  %c = fuse.constant dense_resource<iota> : tensor<3x8xf32>
  %t = fuse.transpose %c {perm = array<i64: 1, 0>} : (tensor<3x8xf32>) -> tensor<8x3xf32>
  return %t : tensor<8x3xf32>
}
{-#
  dialect_resources: {
    builtin: {
      iota: "0x04000000000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B841"
    }
  }
#-}

// -----

// The transpose of a function argument stays.
// CHECK-LABEL: func.func @transpose_of_argument
// CHECK: fuse.transpose
func.func @transpose_of_argument(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = fuse.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}

// -----

// Identical constants are merged and unused ones erased.
// CHECK-LABEL: func.func @constants_dedup
// CHECK-NEXT: %[[C:.*]] = fuse.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[C]], %[[C]]
func.func @constants_dedup() -> (tensor<4xf32>, tensor<4xf32>) {
  %a = fuse.constant dense<1.0> : tensor<4xf32>
  %b = fuse.constant dense<1.0> : tensor<4xf32>
  %unused = fuse.constant dense<2.0> : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// A slice that keeps every element, and an expand to the input's own shape,
// fold away; a slice with a step stays even when its shape is unchanged.
// CHECK-LABEL: func.func @identity_slice_expand
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>, %[[Y:.*]]: tensor<1xf32>)
// CHECK-NEXT: %[[S:.*]] = fuse.slice %[[Y]]
// CHECK-NEXT: return %[[X]], %[[X]], %[[S]]
func.func @identity_slice_expand(%x: tensor<?x8xf32>, %y: tensor<1xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<1xf32>) {
  %0 = fuse.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 9223372036854775807, 8>, steps = array<i64: 1, 1>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = fuse.expand %x {shape = array<i64: 1, 8>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %2 = fuse.slice %y {starts = array<i64: 0>, ends = array<i64: -1>, steps = array<i64: -1>} : (tensor<1xf32>) -> tensor<1xf32>
  return %0, %1, %2 : tensor<?x8xf32>, tensor<?x8xf32>, tensor<1xf32>
}

// -----

// A slice of a constant (a packed projection's weight split into its Q and
// KV parts) is a constant: rows 1..2 of a 3x2 constant, and every other
// element of a row read backwards.
// CHECK-LABEL: func.func @slice_of_constant
// CHECK-NEXT: %[[A:.*]] = fuse.constant dense<{{\[\[}}3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: %[[B:.*]] = fuse.constant dense<[6.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @slice_of_constant() -> (tensor<2x2xf32>, tensor<2xf32>) {
  %c = fuse.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %rows = fuse.slice %c {starts = array<i64: 1, 0>, ends = array<i64: 3, 2>, steps = array<i64: 1, 1>} : (tensor<3x2xf32>) -> tensor<2x2xf32>
  %flat = fuse.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %back = fuse.slice %flat {starts = array<i64: 5>, ends = array<i64: 2>, steps = array<i64: -2>} : (tensor<6xf32>) -> tensor<2xf32>
  return %rows, %back : tensor<2x2xf32>, tensor<2xf32>
}
