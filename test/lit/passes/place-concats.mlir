// fuse-chain-concats rebuilds a concat on an earlier one that joins its first
// operands; fuse-place-concats then lets the kernels that compute a concat's
// operands store them into its buffer (ir/SliceViews.h): each operand's
// kernel gets `fuse.slice_views` = [axis, offset, extent] for that result, in
// the outermost concat's buffer, and the concat kernel `fuse.in_place`.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-chain-concats))' \
// RUN:   | FileCheck %s --check-prefix=CHAIN
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-chain-concats,fuse-outline-superkernels,fuse-place-concats{target=cpu}))' \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-chain-concats,fuse-outline-superkernels,fuse-place-concats{target=sm_90}))' \
// RUN:   | FileCheck %s --check-prefix=GPU

// A dense block: each layer reads the concatenation of every feature so far.
// The second concat becomes concat(first, f2); both then live in the second's
// buffer: x0 at channels 0..4, f1 at 4..6, f2 at 6..8 of 8, and the first
// concat is channels 0..6 of it. The neg reads the first concat there.
// CHAIN-LABEL: func.func @dense_block
// CHAIN: %[[C1:.*]] = fuse.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x4x3x3xf32>, tensor<?x2x3x3xf32>) -> tensor<?x6x3x3xf32>
// CHAIN: fuse.concat %[[C1]], %{{.*}} {axis = 1 : i64} : (tensor<?x6x3x3xf32>, tensor<?x2x3x3xf32>) -> tensor<?x8x3x3xf32>
// CPU-LABEL: func.func @dense_block
// CPU: fuse.superkernel "sk0_relu__x0" {{.*}}fuse.slice_views = [array<i64: 1, 0, 8>]
// CPU: fuse.superkernel "sk1_sigmoid__f1" {{.*}}fuse.slice_views = [array<i64: 1, 4, 8>]
// CPU: fuse.superkernel "sk2_concat__c1" {{.*}}fuse.in_place, fuse.slice_views = [array<i64: 1, 0, 8>]
// CPU: fuse.superkernel "sk3_tanh__f2" {{.*}}fuse.slice_views = [array<i64: 1, 6, 8>]
// CPU: fuse.superkernel "sk4_concat__c2" {{.*}}fuse.in_place
// CPU-NOT: slice_views
// CPU: return
// The GPU's generated element-wise kernels read and write views too.
// GPU-LABEL: func.func @dense_block
// GPU-COUNT-2: fuse.in_place
// GPU: return
func.func @dense_block(%x: tensor<?x4x3x3xf32>, %y: tensor<?x2x3x3xf32>, %z: tensor<?x2x3x3xf32>) -> (tensor<?x6x3x3xf32>, tensor<?x8x3x3xf32>) {
  %x0 = fuse.relu %x : (tensor<?x4x3x3xf32>) -> tensor<?x4x3x3xf32> loc("x0")
  %f1 = fuse.sigmoid %y : (tensor<?x2x3x3xf32>) -> tensor<?x2x3x3xf32> loc("f1")
  %c1 = fuse.concat %x0, %f1 {axis = 1 : i64} : (tensor<?x4x3x3xf32>, tensor<?x2x3x3xf32>) -> tensor<?x6x3x3xf32> loc("c1")
  %f2 = fuse.tanh %z : (tensor<?x2x3x3xf32>) -> tensor<?x2x3x3xf32> loc("f2")
  %c2 = fuse.concat %x0, %f1, %f2 {axis = 1 : i64} : (tensor<?x4x3x3xf32>, tensor<?x2x3x3xf32>, tensor<?x2x3x3xf32>) -> tensor<?x8x3x3xf32> loc("c2")
  %n1 = fuse.neg %c1 : (tensor<?x6x3x3xf32>) -> tensor<?x6x3x3xf32> loc("n1")
  %o = fuse.exp %c2 : (tensor<?x8x3x3xf32>) -> tensor<?x8x3x3xf32> loc("out")
  return %n1, %o : tensor<?x6x3x3xf32>, tensor<?x8x3x3xf32>
}

// -----

// An operand a reduction also reads: the CPU backend reads it in place, a
// generated GPU reduction reads contiguous tensors, so for the GPU the
// concat stays a copy.
// CPU-LABEL: func.func @reduction_reader
// CPU: fuse.in_place
// GPU-LABEL: func.func @reduction_reader
// GPU-NOT: slice_views
// GPU-NOT: fuse.in_place
// GPU: return
func.func @reduction_reader(%x: tensor<?x4x3xf32>, %y: tensor<?x2x3xf32>) -> (tensor<?x6x3xf32>, tensor<?x1x3xf32>) {
  %a = fuse.relu %x : (tensor<?x4x3xf32>) -> tensor<?x4x3xf32> loc("a")
  %b = fuse.sigmoid %y : (tensor<?x2x3xf32>) -> tensor<?x2x3xf32> loc("b")
  %c = fuse.concat %a, %b {axis = 1 : i64} : (tensor<?x4x3xf32>, tensor<?x2x3xf32>) -> tensor<?x6x3xf32> loc("c")
  %s = fuse.reduce_sum %b {axes = array<i64: 1>, keepdims = true} : (tensor<?x2x3xf32>) -> tensor<?x1x3xf32> loc("s")
  %e = fuse.exp %c : (tensor<?x6x3xf32>) -> tensor<?x6x3xf32> loc("e")
  return %e, %s : tensor<?x6x3xf32>, tensor<?x1x3xf32>
}

// -----

// Copies stay where an operand is a graph input, is returned, or appears
// twice, and where the concat's result is returned.
// CPU-LABEL: func.func @copies
// CPU-NOT: slice_views
// CPU-NOT: fuse.in_place
// CPU: return
func.func @copies(%x: tensor<?x4xf32>, %y: tensor<?x2xf32>) -> (tensor<?x6xf32>, tensor<?x2xf32>, tensor<?x4xf32>, tensor<?x6xf32>) {
  %b = fuse.sigmoid %y : (tensor<?x2xf32>) -> tensor<?x2xf32> loc("b")
  %input = fuse.concat %x, %b {axis = 1 : i64} : (tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x6xf32> loc("input")
  %e1 = fuse.exp %input : (tensor<?x6xf32>) -> tensor<?x6xf32> loc("e1")
  %r = fuse.relu %y : (tensor<?x2xf32>) -> tensor<?x2xf32> loc("r")
  %twice = fuse.concat %r, %r {axis = 1 : i64} : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x4xf32> loc("twice")
  %t = fuse.tanh %y : (tensor<?x2xf32>) -> tensor<?x2xf32> loc("t")
  %n = fuse.neg %x : (tensor<?x4xf32>) -> tensor<?x4xf32> loc("n")
  %returned = fuse.concat %n, %t {axis = 1 : i64} : (tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x6xf32> loc("returned")
  return %e1, %t, %twice, %returned : tensor<?x6xf32>, tensor<?x2xf32>, tensor<?x4xf32>, tensor<?x6xf32>
}
