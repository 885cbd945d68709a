// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Types name the run-time dimensions of a range (fusec --dim seq=1:512) in
// their encoding; shape inference keeps each symbol where the batch's rules
// put it.

// CHECK-LABEL: func.func @symbols_propagate
// CHECK: fuse.matmul {{.*}} -> tensor<?x?x8xf32, ["batch", "seq"]>
// CHECK: fuse.reshape {{.*}} {shape = array<i64: 1, -1, -1, 8>} : {{.*}} -> tensor<1x?x?x8xf32, ["batch", "seq"]>
// CHECK: fuse.transpose {{.*}} -> tensor<?x?x8xf32, ["seq", "batch"]>
func.func @symbols_propagate(%x: tensor<?x?x4xf32, ["batch", "seq"]>, %w: tensor<4x8xf32>) -> tensor<?x?x8xf32, ["seq", "batch"]> {
  %0 = fuse.matmul %x, %w : (tensor<?x?x4xf32, ["batch", "seq"]>, tensor<4x8xf32>) -> tensor<?x?x8xf32, ["batch", "seq"]>
  %1 = fuse.reshape %0 {shape = array<i64: 1, -1, -1, 8>} : (tensor<?x?x8xf32, ["batch", "seq"]>) -> tensor<1x?x?x8xf32, ["batch", "seq"]>
  %2 = fuse.transpose %0 {perm = array<i64: 1, 0, 2>} : (tensor<?x?x8xf32, ["batch", "seq"]>) -> tensor<?x?x8xf32, ["seq", "batch"]>
  return %2 : tensor<?x?x8xf32, ["seq", "batch"]>
}

// -----

// A causal mask: ones expanded to [seq, seq], and a buffer sliced to [:seq].
// CHECK-LABEL: func.func @expand_and_slice_to_a_symbol
// CHECK: fuse.expand {{.*}} -> tensor<?x?xf32, ["seq", "seq"]>
// CHECK: fuse.slice {{.*}} -> tensor<?x?xf32, ["seq", "seq"]>
func.func @expand_and_slice_to_a_symbol(%one: tensor<f32>, %buffer: tensor<32x32xf32>) -> tensor<?x?xf32, ["seq", "seq"]> {
  %0 = fuse.expand %one {shape = array<i64: -2, -2>, symbols = ["seq"]} : (tensor<f32>) -> tensor<?x?xf32, ["seq", "seq"]>
  %1 = fuse.slice %buffer {starts = array<i64: 0, 0>, ends = array<i64: -2, -2>, steps = array<i64: 1, 1>, symbols = ["seq"]} : (tensor<32x32xf32>) -> tensor<?x?xf32, ["seq", "seq"]>
  %2 = fuse.mul %0, %1 : (tensor<?x?xf32, ["seq", "seq"]>, tensor<?x?xf32, ["seq", "seq"]>) -> tensor<?x?xf32, ["seq", "seq"]>
  return %2 : tensor<?x?xf32, ["seq", "seq"]>
}

// -----

// Errors name the run-time dimension.
func.func @pad_a_range(%x: tensor<?x?xf32, ["batch", "seq"]>) -> tensor<?x?xf32, ["batch", "seq"]> {
  // expected-error @+1 {{'fuse.pad' op cannot pad the run-time dimension 'seq' (axis 1)}}
  %0 = fuse.pad %x {pads = array<i64: 0, 1, 0, 0>} : (tensor<?x?xf32, ["batch", "seq"]>) -> tensor<?x?xf32, ["batch", "seq"]>
  return %0 : tensor<?x?xf32, ["batch", "seq"]>
}

// -----

func.func @broadcast_two_symbols(%x: tensor<?x4xf32, ["seq"]>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'fuse.add' op}}
  %0 = fuse.add %x, %y : (tensor<?x4xf32, ["seq"]>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Several -1 take the moved symbols in order, and the elements between them
// stay: [?, seq, 8] cannot become [?, 8, seq].
func.func @reshape_moves_elements_across_a_symbol(%x: tensor<?x?x8xf32, ["batch", "seq"]>) -> tensor<?x8x?xf32, ["batch", "seq"]> {
  // expected-error @+1 {{'fuse.reshape' op cannot reshape [?, seq, 8] to [-1, 8, -1]: the run-time dimensions must keep the elements before them and their order}}
  %0 = fuse.reshape %x {shape = array<i64: -1, 8, -1>} : (tensor<?x?x8xf32, ["batch", "seq"]>) -> tensor<?x8x?xf32, ["batch", "seq"]>
  return %0 : tensor<?x8x?xf32, ["batch", "seq"]>
}

// -----

func.func @slice_symbol_from_one(%buffer: tensor<32xf32>) -> tensor<?xf32, ["seq"]> {
  // expected-error @+1 {{'fuse.slice' op axis 0 ends at -2, which names a run-time dimension only with start 0 and a name in 'symbols'}}
  %0 = fuse.slice %buffer {starts = array<i64: 1>, ends = array<i64: -2>, steps = array<i64: 1>, symbols = ["seq"]} : (tensor<32xf32>) -> tensor<?xf32, ["seq"]>
  return %0 : tensor<?xf32, ["seq"]>
}

// -----

// Attention over a sequence that runs over a range (CPU plans for now).
// CHECK-LABEL: func.func @attention_over_a_range
// CHECK: fuse.attention {{.*}} -> tensor<?x4x?x8xf32, ["batch", "seq"]>
func.func @attention_over_a_range(%q: tensor<?x4x?x8xf32, ["batch", "seq"]>) -> tensor<?x4x?x8xf32, ["batch", "seq"]> {
  %0 = fuse.attention %q, %q, %q {scale = 1.0 : f32, causal = true} : (tensor<?x4x?x8xf32, ["batch", "seq"]>, tensor<?x4x?x8xf32, ["batch", "seq"]>, tensor<?x4x?x8xf32, ["batch", "seq"]>) -> tensor<?x4x?x8xf32, ["batch", "seq"]>
  return %0 : tensor<?x4x?x8xf32, ["batch", "seq"]>
}
