// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-attention))' | FileCheck %s

// MatMul(Q, Transpose(K)) * c -> Softmax -> MatMul(., V): K is the
// transpose's input, no mask, scale c.
// CHECK-LABEL: func.func @no_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<?x4x7x16xf32>, %[[K:.*]]: tensor<?x4x9x16xf32>, %[[V:.*]]: tensor<?x4x9x8xf32>)
// CHECK-NEXT: %[[A:.*]] = fuse.attention %[[Q]], %[[K]], %[[V]] {causal = false, fuse.fused_by = "form-attention", scale = 2.500000e-01 : f32} : (tensor<?x4x7x16xf32>, tensor<?x4x9x16xf32>, tensor<?x4x9x8xf32>) -> tensor<?x4x7x8xf32>
// CHECK-NEXT: return %[[A]]
func.func @no_mask(%q: tensor<?x4x7x16xf32>, %k: tensor<?x4x9x16xf32>, %v: tensor<?x4x9x8xf32>) -> tensor<?x4x7x8xf32> {
  %c = fuse.constant dense<0.25> : tensor<f32>
  %kt = fuse.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<?x4x9x16xf32>) -> tensor<?x4x16x9xf32>
  %s = fuse.matmul %q, %kt : (tensor<?x4x7x16xf32>, tensor<?x4x16x9xf32>) -> tensor<?x4x7x9xf32>
  %m = fuse.mul %c, %s : (tensor<f32>, tensor<?x4x7x9xf32>) -> tensor<?x4x7x9xf32>
  %p = fuse.softmax %m {axis = 3 : i64} : (tensor<?x4x7x9xf32>) -> tensor<?x4x7x9xf32>
  %o = fuse.matmul %p, %v : (tensor<?x4x7x9xf32>, tensor<?x4x9x8xf32>) -> tensor<?x4x7x8xf32>
  return %o : tensor<?x4x7x8xf32>
}

// -----

// Div by sqrt(d) = 4 is scale 0.25; an additive mask that is not causal is
// the op's fourth operand; Kt comes from a transpose of the heads split
// (perm [0, 2, 3, 1]), which composes with the swap into [0, 2, 1, 3].
// CHECK-LABEL: func.func @div_and_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x5x16xf32>, %[[X:.*]]: tensor<2x5x4x16xf32>, %[[V:.*]]: tensor<2x4x5x16xf32>, %[[M:.*]]: tensor<2x1x1x5xf32>)
// CHECK: %[[K:.*]] = fuse.transpose %[[X]] {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x5x4x16xf32>) -> tensor<2x4x5x16xf32>
// CHECK-NEXT: %[[A:.*]] = fuse.attention %[[Q]], %[[K]], %[[V]], %[[M]] {causal = false, fuse.fused_by = "form-attention", scale = 2.500000e-01 : f32}
// CHECK-NOT: fuse.softmax
func.func @div_and_mask(%q: tensor<2x4x5x16xf32>, %x: tensor<2x5x4x16xf32>, %v: tensor<2x4x5x16xf32>, %mask: tensor<2x1x1x5xf32>) -> tensor<2x4x5x16xf32> {
  %c = fuse.constant dense<4.0> : tensor<1xf32>
  %kt = fuse.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x5x4x16xf32>) -> tensor<2x4x16x5xf32>
  %s = fuse.matmul %q, %kt : (tensor<2x4x5x16xf32>, tensor<2x4x16x5xf32>) -> tensor<2x4x5x5xf32>
  %d = fuse.div %s, %c : (tensor<2x4x5x5xf32>, tensor<1xf32>) -> tensor<2x4x5x5xf32>
  %a = fuse.add %mask, %d : (tensor<2x1x1x5xf32>, tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %p = fuse.softmax %a {axis = 3 : i64} : (tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %o = fuse.matmul %p, %v : (tensor<2x4x5x5xf32>, tensor<2x4x5x16xf32>) -> tensor<2x4x5x16xf32>
  return %o : tensor<2x4x5x16xf32>
}

// -----

// A constant mask 0 on and below the diagonal shifted by Sk - S = 1 and -inf
// above is causal: no mask operand. Kt is a [D, Sk] tensor of its own (a
// transpose is inserted), the scale a Mul on Q before the product.
// CHECK-LABEL: func.func @causal_constant
// CHECK-SAME: (%[[Q:.*]]: tensor<3x4xf32>, %[[KT:.*]]: tensor<4x4xf32>, %[[V:.*]]: tensor<4x2xf32>)
// CHECK: %[[K:.*]] = fuse.transpose %[[KT]] {perm = array<i64: 1, 0>}
// CHECK-NEXT: %[[A:.*]] = fuse.attention %[[Q]], %[[K]], %[[V]] {causal = true, fuse.fused_by = "form-attention", scale = 5.000000e-01 : f32} : (tensor<3x4xf32>, tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: return %[[A]]
func.func @causal_constant(%q: tensor<3x4xf32>, %kt: tensor<4x4xf32>, %v: tensor<4x2xf32>) -> tensor<3x2xf32> {
  %c = fuse.constant dense<0.5> : tensor<f32>
  %mask = fuse.constant dense<[[0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, -1.0e9], [0.0, 0.0, 0.0, 0.0]]> : tensor<3x4xf32>
  %qs = fuse.mul %q, %c : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %s = fuse.matmul %qs, %kt : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  %a = fuse.add %s, %mask : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %p = fuse.softmax %a {axis = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = fuse.matmul %p, %v : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}

// -----

// masked_fill of a causal mask, as GPT-style blocks export it:
// Where(above-diagonal, -inf, scores) after the scale, and
// Where(on-or-below-diagonal, scores, -1e9). Both become causal = true.
// CHECK-LABEL: func.func @causal_where
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = true, fuse.fused_by = "form-attention", scale = 5.000000e-01 : f32} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = true, fuse.fused_by = "form-attention", scale = 1.000000e+00 : f32} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NOT: fuse.where
func.func @causal_where(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x2xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>) {
  %c = fuse.constant dense<2.0> : tensor<1xf32>
  %above = fuse.constant dense<[[false, true, true], [false, false, true], [false, false, false]]> : tensor<3x3xi1>
  %below = fuse.constant dense<[[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
  %inf = fuse.constant dense<0xFF800000> : tensor<f32>
  %big = fuse.constant dense<-1.0e9> : tensor<1xf32>
  %kt = fuse.transpose %k {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %s = fuse.matmul %q, %kt : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %d = fuse.div %s, %c : (tensor<2x3x3xf32>, tensor<1xf32>) -> tensor<2x3x3xf32>
  %w = fuse.where %above, %inf, %d : (tensor<3x3xi1>, tensor<f32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %p = fuse.softmax %w {axis = 2 : i64} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %o = fuse.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %kt2 = fuse.transpose %k {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %s2 = fuse.matmul %q, %kt2 : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %w2 = fuse.where %below, %s2, %big : (tensor<3x3xi1>, tensor<2x3x3xf32>, tensor<1xf32>) -> tensor<2x3x3xf32>
  %p2 = fuse.softmax %w2 {axis = 2 : i64} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %o2 = fuse.matmul %p2, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o, %o2 : tensor<2x3x2xf32>, tensor<2x3x2xf32>
}

// -----

// Negative: a Where mask that is not causal (a padding mask) is not taken:
// a fully masked row would differ between filling and adding.
// CHECK-LABEL: func.func @where_not_causal
// CHECK-NOT: fuse.attention
// CHECK: fuse.where
func.func @where_not_causal(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %pad = fuse.constant dense<[[false, false, true], [false, false, true], [false, false, true]]> : tensor<3x3xi1>
  %inf = fuse.constant dense<0xFF800000> : tensor<f32>
  %kt = fuse.transpose %k {perm = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %s = fuse.matmul %q, %kt : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
  %w = fuse.where %pad, %inf, %s : (tensor<3x3xi1>, tensor<f32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %p = fuse.softmax %w {axis = 1 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %o = fuse.matmul %p, %v : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}

// -----

// A constant mask with one -inf on the diagonal is not causal: it stays an
// operand.
// CHECK-LABEL: func.func @not_causal_constant
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal = false, fuse.fused_by = "form-attention", scale = 1.000000e+00 : f32}
func.func @not_causal_constant(%q: tensor<2x4xf32>, %k: tensor<2x4xf32>, %v: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %mask = fuse.constant dense<[[0.0, 0xFF800000], [0.0, 0xFF800000]]> : tensor<2x2xf32>
  %kt = fuse.transpose %k {perm = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %s = fuse.matmul %q, %kt : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  %a = fuse.add %s, %mask : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %p = fuse.softmax %a {axis = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %o = fuse.matmul %p, %v : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %o : tensor<2x2xf32>
}

// -----

// Negative: softmax over another axis.
// CHECK-LABEL: func.func @softmax_other_axis
// CHECK-NOT: fuse.attention
// CHECK: fuse.softmax
func.func @softmax_other_axis(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %kt = fuse.transpose %k {perm = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %s = fuse.matmul %q, %kt : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
  %p = fuse.softmax %s {axis = 0 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %o = fuse.matmul %p, %v : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}

// -----

// Negative: the scaled scores have a second user (they must be materialised).
// CHECK-LABEL: func.func @second_user
// CHECK-NOT: fuse.attention
// CHECK: fuse.softmax
func.func @second_user(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x3xf32>) {
  %c = fuse.constant dense<0.5> : tensor<f32>
  %kt = fuse.transpose %k {perm = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %s = fuse.matmul %q, %kt : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
  %m = fuse.mul %s, %c : (tensor<3x3xf32>, tensor<f32>) -> tensor<3x3xf32>
  %p = fuse.softmax %m {axis = 1 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %o = fuse.matmul %p, %v : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %o, %m : tensor<3x2xf32>, tensor<3x3xf32>
}

// -----

// Negative: the scale is a per-key vector, not a scalar.
// CHECK-LABEL: func.func @vector_scale
// CHECK-NOT: fuse.attention
// CHECK: fuse.softmax
func.func @vector_scale(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %c = fuse.constant dense<[0.5, 0.25, 2.0]> : tensor<3xf32>
  %kt = fuse.transpose %k {perm = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %s = fuse.matmul %q, %kt : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
  %m = fuse.mul %s, %c : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  %p = fuse.softmax %m {axis = 1 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %o = fuse.matmul %p, %v : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}

// -----

// Negative: a head dimension above 128 stays unfused (the kernel keeps a row
// of the output in registers).
// CHECK-LABEL: func.func @head_too_large
// CHECK-NOT: fuse.attention
// CHECK: fuse.softmax
func.func @head_too_large(%q: tensor<3x160xf32>, %k: tensor<3x160xf32>, %v: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %kt = fuse.transpose %k {perm = array<i64: 1, 0>} : (tensor<3x160xf32>) -> tensor<160x3xf32>
  %s = fuse.matmul %q, %kt : (tensor<3x160xf32>, tensor<160x3xf32>) -> tensor<3x3xf32>
  %p = fuse.softmax %s {axis = 1 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %o = fuse.matmul %p, %v : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}

// -----

// PyTorch's scaled_dot_product_attention decomposed: Q and Kt are each
// multiplied by sqrt(scale) = 0.5 before the product, with no scale after
// it; both factors join the op's scale (0.25), and Kt's transpose of the
// scaled K gives K.
// CHECK-LABEL: func.func @prescaled_query_and_key
// CHECK-SAME: (%[[Q:.*]]: tensor<2x7x16xf32>, %[[K:.*]]: tensor<2x9x16xf32>, %[[V:.*]]: tensor<2x9x8xf32>)
// CHECK-NEXT: %[[A:.*]] = fuse.attention %[[Q]], %[[K]], %[[V]] {causal = false, fuse.fused_by = "form-attention", scale = 2.500000e-01 : f32}
// CHECK-NEXT: return %[[A]]
func.func @prescaled_query_and_key(%q: tensor<2x7x16xf32>, %k: tensor<2x9x16xf32>, %v: tensor<2x9x8xf32>) -> tensor<2x7x8xf32> {
  %c = fuse.constant dense<0.5> : tensor<1xf32>
  %kt = fuse.transpose %k {perm = array<i64: 0, 2, 1>} : (tensor<2x9x16xf32>) -> tensor<2x16x9xf32>
  %qs = fuse.mul %q, %c : (tensor<2x7x16xf32>, tensor<1xf32>) -> tensor<2x7x16xf32>
  %kts = fuse.mul %kt, %c : (tensor<2x16x9xf32>, tensor<1xf32>) -> tensor<2x16x9xf32>
  %s = fuse.matmul %qs, %kts : (tensor<2x7x16xf32>, tensor<2x16x9xf32>) -> tensor<2x7x9xf32>
  %p = fuse.softmax %s {axis = 2 : i64} : (tensor<2x7x9xf32>) -> tensor<2x7x9xf32>
  %o = fuse.matmul %p, %v : (tensor<2x7x9xf32>, tensor<2x9x8xf32>) -> tensor<2x7x8xf32>
  return %o : tensor<2x7x8xf32>
}

// -----

// Negative: a scaled Kt that something else reads stays materialised, and
// so does the product (only Q's factor would be free to fold, but the
// scores keep their own Mul).
// CHECK-LABEL: func.func @prescaled_key_second_user
// CHECK: %[[KTS:.*]] = fuse.mul
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = false, fuse.fused_by = "form-attention", scale = 5.000000e-01 : f32}
// CHECK: return %{{.*}}, %[[KTS]]
func.func @prescaled_key_second_user(%q: tensor<2x7x16xf32>, %kt: tensor<2x16x9xf32>, %v: tensor<2x9x8xf32>) -> (tensor<2x7x8xf32>, tensor<2x16x9xf32>) {
  %c = fuse.constant dense<0.5> : tensor<1xf32>
  %kts = fuse.mul %kt, %c : (tensor<2x16x9xf32>, tensor<1xf32>) -> tensor<2x16x9xf32>
  %s = fuse.matmul %q, %kts : (tensor<2x7x16xf32>, tensor<2x16x9xf32>) -> tensor<2x7x9xf32>
  %m = fuse.mul %s, %c : (tensor<2x7x9xf32>, tensor<1xf32>) -> tensor<2x7x9xf32>
  %p = fuse.softmax %m {axis = 2 : i64} : (tensor<2x7x9xf32>) -> tensor<2x7x9xf32>
  %o = fuse.matmul %p, %v : (tensor<2x7x9xf32>, tensor<2x9x8xf32>) -> tensor<2x7x8xf32>
  return %o, %kts : tensor<2x7x8xf32>, tensor<2x16x9xf32>
}

// -----

// A sequence that runs over a range (fusec --dim seq=1:512): the causal mask
// PyTorch builds at run time for is_causal=True, Where(Trilu(Expand(1)) == 0,
// -inf, 0) over [seq, seq], makes a causal attention; the mask is dropped.
// CHECK-LABEL: func.func @causal_over_a_range
// CHECK: fuse.attention {{.*}}causal = true{{.*}} -> tensor<?x?x8xf32, ["batch", "seq"]>
// CHECK-NOT: fuse.trilu
func.func @causal_over_a_range(%q: tensor<?x?x8xf32, ["batch", "seq"]>, %kt: tensor<?x8x?xf32, ["batch", "seq"]>, %v: tensor<?x?x8xf32, ["batch", "seq"]>) -> tensor<?x?x8xf32, ["batch", "seq"]> {
  %one = fuse.constant dense<1.0> : tensor<f32>
  %zero = fuse.constant dense<0.0> : tensor<f32>
  %fill = fuse.constant dense<-3.40282347E+38> : tensor<f32>
  %ones = fuse.expand %one {shape = array<i64: -2, -2>, symbols = ["seq"]} : (tensor<f32>) -> tensor<?x?xf32, ["seq", "seq"]>
  %lower = fuse.trilu %ones {k = 0 : i64, upper = false} : (tensor<?x?xf32, ["seq", "seq"]>) -> tensor<?x?xf32, ["seq", "seq"]>
  %above = fuse.equal %lower, %zero : (tensor<?x?xf32, ["seq", "seq"]>, tensor<f32>) -> tensor<?x?xi1, ["seq", "seq"]>
  %mask = fuse.where %above, %fill, %zero : (tensor<?x?xi1, ["seq", "seq"]>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32, ["seq", "seq"]>
  %s = fuse.matmul %q, %kt : (tensor<?x?x8xf32, ["batch", "seq"]>, tensor<?x8x?xf32, ["batch", "seq"]>) -> tensor<?x?x?xf32, ["batch", "seq", "seq"]>
  %c = fuse.constant dense<0.35355339> : tensor<f32>
  %scaled = fuse.mul %s, %c : (tensor<?x?x?xf32, ["batch", "seq", "seq"]>, tensor<f32>) -> tensor<?x?x?xf32, ["batch", "seq", "seq"]>
  %masked = fuse.add %scaled, %mask : (tensor<?x?x?xf32, ["batch", "seq", "seq"]>, tensor<?x?xf32, ["seq", "seq"]>) -> tensor<?x?x?xf32, ["batch", "seq", "seq"]>
  %p = fuse.softmax %masked {axis = 2 : i64} : (tensor<?x?x?xf32, ["batch", "seq", "seq"]>) -> tensor<?x?x?xf32, ["batch", "seq", "seq"]>
  %o = fuse.matmul %p, %v : (tensor<?x?x?xf32, ["batch", "seq", "seq"]>, tensor<?x?x8xf32, ["batch", "seq"]>) -> tensor<?x?x8xf32, ["batch", "seq"]>
  return %o : tensor<?x?x8xf32, ["batch", "seq"]>
}
