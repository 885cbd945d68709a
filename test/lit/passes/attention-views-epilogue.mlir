// RUN: fusec-opt %s -pass-pipeline='builtin.module(func.func(fuse-form-attention-views,fuse-form-fusion-groups))' | FileCheck %s

// An attention kernel that stores its result through a view takes no
// epilogue (FusionGraph's data-movement rule), even where the shapes would
// allow one: with H = S the transposed heads [2, 3, 3, 4] have the
// attention's own shape, but the Relu reads the transposed tensor, which the
// kernel only ever writes to memory. The Relu stays a kernel of its own and
// the report says why.
// CHECK-LABEL: func.func @stored_through_a_view
// CHECK-SAME: detail = "'attention+transpose' stores its result through a view", first = "attention+transpose"{{.*}}rule = "data-movement", second = "relu"
// CHECK: fuse.attention {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: fuse.transpose {{.*}}fuse.fused_by = "attention-views", fuse.group = 0 : i64
// CHECK-NEXT: fuse.relu {{.*}}{fuse.group = 1 : i64
// CHECK-NEXT: return
func.func @stored_through_a_view(%q: tensor<2x3x3x4xf32>, %k: tensor<2x3x3x4xf32>, %v: tensor<2x3x3x4xf32>) -> tensor<2x3x3x4xf32> {
  %a = fuse.attention %q, %k, %v {causal = false, scale = 0.5 : f32} : (tensor<2x3x3x4xf32>, tensor<2x3x3x4xf32>, tensor<2x3x3x4xf32>) -> tensor<2x3x3x4xf32>
  %t = fuse.transpose %a {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x3x4xf32>) -> tensor<2x3x3x4xf32>
  %r = fuse.relu %t : (tensor<2x3x3x4xf32>) -> tensor<2x3x3x4xf32>
  return %r : tensor<2x3x3x4xf32>
}
