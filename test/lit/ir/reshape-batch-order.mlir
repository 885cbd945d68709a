// fuse.reshape may not move the batch dimension behind other dimensions:
// reinterpreting [b, 12] as [12, b] or [3, b, 4] mixes samples (element
// (i, j) of the result depends on the batch size), so the dimensions before
// the one that takes the batch must multiply to what precedes the batch in
// the input (1 here).
// RUN: fusec-opt %s -split-input-file -verify-diagnostics

func.func @reshape_moves_batch_last(%x: tensor<?x12xf32>) -> tensor<12x?xf32> {
  // expected-error @+1 {{'fuse.reshape' op cannot reshape [?, 12] to [12, -1]}}
  %0 = fuse.reshape %x {shape = array<i64: 12, -1>} : (tensor<?x12xf32>) -> tensor<12x?xf32>
  return %0 : tensor<12x?xf32>
}

// -----

func.func @reshape_moves_batch_inside(%x: tensor<?x12xf32>) -> tensor<3x?x4xf32> {
  // expected-error @+1 {{'fuse.reshape' op cannot reshape [?, 12] to [3, -1, 4]}}
  %0 = fuse.reshape %x {shape = array<i64: 3, -1, 4>} : (tensor<?x12xf32>) -> tensor<3x?x4xf32>
  return %0 : tensor<3x?x4xf32>
}
