// fuse-alias-reshapes: a kernel that only reshapes a kernel's dense result
// is marked fuse.alias (its result is the operand's bytes; the plan has no
// kernel for it). A reshape of a graph input, or whose result is returned,
// stays a copy.
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-outline-superkernels,fuse-alias-reshapes))' | FileCheck %s

// CHECK-LABEL: func.func @classifier
// CHECK: fuse.superkernel "sk1_flatten__flat" {{.*}}attributes {fuse.alias}
// CHECK: fuse.superkernel "sk3_reshape__in"
// CHECK-NOT: fuse.alias
// CHECK: fuse.superkernel "sk5_reshape__out"
// CHECK-NOT: fuse.alias
// CHECK: return
func.func @classifier(%x: tensor<?x8x1x1xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x2x4xf32>) {
  %r = fuse.relu %x : (tensor<?x8x1x1xf32>) -> tensor<?x8x1x1xf32> loc("r")
  %f = fuse.flatten %r {axis = 1 : i64} : (tensor<?x8x1x1xf32>) -> tensor<?x8xf32> loc("flat")
  %e = fuse.exp %f : (tensor<?x8xf32>) -> tensor<?x8xf32> loc("e")
  %i = fuse.reshape %x {shape = array<i64: -1, 8>} : (tensor<?x8x1x1xf32>) -> tensor<?x8xf32> loc("in")
  %n = fuse.neg %e : (tensor<?x8xf32>) -> tensor<?x8xf32> loc("n")
  %o = fuse.reshape %n {shape = array<i64: -1, 2, 4>} : (tensor<?x8xf32>) -> tensor<?x2x4xf32> loc("out")
  return %e, %i, %o : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x2x4xf32>
}
