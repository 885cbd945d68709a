// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-auto-mixed-precision))' | FileCheck %s
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-auto-mixed-precision{precision=bf16}))' | FileCheck %s --check-prefix=BF16
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-auto-mixed-precision{concats-in-place=true}))' | FileCheck %s --check-prefix=INPLACE

// A conv block: the conv computes in f16 with its weights converted at
// compile time (1.0009765625 = 1 + 2^-10 is f16's neighbour of 1; 1.0001
// rounds to 1), the graph input gets one cast shared by both convs, the
// activation follows its input, and the result is cast back to the
// function's f32.
// CHECK-LABEL: func.func @conv_relu
// CHECK-SAME: (%[[X:.*]]: tensor<?x1x4x4xf32>) -> tensor<?x2x4x4xf32>
// CHECK: %[[XH:.*]] = fuse.cast %[[X]] {to = "f16"} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf16>
// CHECK-DAG: %[[W:.*]] = fuse.constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}1.000980e+00]]]]> : tensor<2x1x1x1xf16>
// CHECK-DAG: %[[B:.*]] = fuse.constant dense<[5.000000e-01, -4.000000e+00]> : tensor<2xf16>
// CHECK: %[[C:.*]] = fuse.conv %[[XH]], %[[W]], %[[B]] {{.*}} : (tensor<?x1x4x4xf16>, tensor<2x1x1x1xf16>, tensor<2xf16>) -> tensor<?x2x4x4xf16>
// CHECK: %[[R:.*]] = fuse.relu %[[C]] : (tensor<?x2x4x4xf16>) -> tensor<?x2x4x4xf16>
// CHECK: %[[D:.*]] = fuse.conv %[[XH]], %[[W]], %[[B]]
// CHECK: %[[S:.*]] = fuse.add %[[R]], %[[D]] : (tensor<?x2x4x4xf16>, tensor<?x2x4x4xf16>) -> tensor<?x2x4x4xf16>
// CHECK: %[[Y:.*]] = fuse.cast %[[S]] {to = "f32"} : (tensor<?x2x4x4xf16>) -> tensor<?x2x4x4xf32>
// CHECK: return %[[Y]] : tensor<?x2x4x4xf32>
// BF16-LABEL: func.func @conv_relu
// BF16: fuse.cast %{{.*}} {to = "bf16"} : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xbf16>
// BF16: fuse.conv {{.*}} -> tensor<?x2x4x4xbf16>
func.func @conv_relu(%x: tensor<?x1x4x4xf32>) -> tensor<?x2x4x4xf32> {
  %w = fuse.constant dense<[[[[1.0001]]], [[[1.0009765625]]]]> : tensor<2x1x1x1xf32>
  %b = fuse.constant dense<[0.5, -4.0]> : tensor<2xf32>
  %c = fuse.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  %r = fuse.relu %c : (tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32>
  %d = fuse.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  %s = fuse.add %r, %d : (tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32>
  return %s : tensor<?x2x4x4xf32>
}

// -----

// Softmax stays f32: the matrix product's f16 result is cast up, once, for
// both the softmax and the f32 add (an operand computed in f32 makes a
// following op f32). A constant operand does not vote: the scale is
// converted to the other operand's type.
// CHECK-LABEL: func.func @attention_scores
// CHECK: %[[P:.*]] = fuse.matmul {{.*}} -> tensor<?x4x4xf16>
// CHECK: %[[PS:.*]] = fuse.mul %[[P]], %{{.*}} : (tensor<?x4x4xf16>, tensor<1xf16>) -> tensor<?x4x4xf16>
// CHECK: %[[UP:.*]] = fuse.cast %[[PS]] {to = "f32"}
// CHECK: %[[SM:.*]] = fuse.softmax %[[UP]] {axis = 2 : i64} : (tensor<?x4x4xf32>) -> tensor<?x4x4xf32>
// CHECK: %[[A:.*]] = fuse.add %[[SM]], %[[UP]] : (tensor<?x4x4xf32>, tensor<?x4x4xf32>) -> tensor<?x4x4xf32>
// CHECK-NOT: fuse.cast
// CHECK: return %[[A]]
func.func @attention_scores(%q: tensor<?x4x8xf32>, %k: tensor<?x8x4xf32>) -> tensor<?x4x4xf32> {
  %scale = fuse.constant dense<[0.35355339]> : tensor<1xf32>
  %p = fuse.matmul %q, %k : (tensor<?x4x8xf32>, tensor<?x8x4xf32>) -> tensor<?x4x4xf32>
  %ps = fuse.mul %p, %scale : (tensor<?x4x4xf32>, tensor<1xf32>) -> tensor<?x4x4xf32>
  %sm = fuse.softmax %ps {axis = 2 : i64} : (tensor<?x4x4xf32>) -> tensor<?x4x4xf32>
  %a = fuse.add %sm, %ps : (tensor<?x4x4xf32>, tensor<?x4x4xf32>) -> tensor<?x4x4xf32>
  return %a : tensor<?x4x4xf32>
}

// -----

// Ops that only move data follow their input; a function that computes
// nothing in half precision is left alone.
// CHECK-LABEL: func.func @no_products
// CHECK-NOT: fuse.cast
// CHECK: fuse.relu %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
func.func @no_products(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = fuse.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// Casts move above data movement, next to the kernels computing the data:
// the input is cast before the reflect pad (which then moves f16), and the
// result is cast before the concat, on each conv's output. With concats in
// place the widening cast stays after the concat, which moves f16.
// INPLACE-LABEL: func.func @casts_hoisted
// INPLACE: %[[Y:.*]] = fuse.concat {{.*}} -> tensor<?x4x4x4xf16>
// INPLACE: fuse.cast %[[Y]] {to = "f32"}
// CHECK-LABEL: func.func @casts_hoisted
// CHECK: %[[XH:.*]] = fuse.cast %arg0 {to = "f16"}
// CHECK: %[[P:.*]] = fuse.pad %[[XH]] {mode = "reflect"{{.*}}} : (tensor<?x1x4x4xf16>) -> tensor<?x1x6x6xf16>
// CHECK: %[[C:.*]] = fuse.conv %[[P]]
// CHECK: %[[CF:.*]] = fuse.cast %[[C]] {to = "f32"} : (tensor<?x2x4x4xf16>) -> tensor<?x2x4x4xf32>
// CHECK: %[[D:.*]] = fuse.conv %[[XH]]
// CHECK: %[[DF:.*]] = fuse.cast %[[D]] {to = "f32"} : (tensor<?x2x4x4xf16>) -> tensor<?x2x4x4xf32>
// CHECK: %[[Y:.*]] = fuse.concat %[[CF]], %[[DF]] {axis = 1 : i64} : (tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>) -> tensor<?x4x4x4xf32>
// CHECK: return %[[Y]]
func.func @casts_hoisted(%x: tensor<?x1x4x4xf32>) -> tensor<?x4x4x4xf32> {
  %w3 = fuse.constant dense<1.0> : tensor<2x1x3x3xf32>
  %w1 = fuse.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = fuse.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "reflect"} : (tensor<?x1x4x4xf32>) -> tensor<?x1x6x6xf32>
  %c = fuse.conv %p, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x6x6xf32>, tensor<2x1x3x3xf32>) -> tensor<?x2x4x4xf32>
  %d = fuse.conv %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<?x2x4x4xf32>
  %y = fuse.concat %c, %d {axis = 1 : i64} : (tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>) -> tensor<?x4x4x4xf32>
  return %y : tensor<?x4x4x4xf32>
}

// -----

// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-auto-mixed-precision{io-precision=f16}))' | FileCheck %s --check-prefix=IO
// With io-precision, f32 arguments and results become f16: no casts at the
// boundary.
// IO-LABEL: func.func @half_io
// IO-SAME: (%[[X:.*]]: tensor<?x4xf16>) -> tensor<?x4xf16>
// IO-NOT: fuse.cast
// IO: %[[Y:.*]] = fuse.gemm %[[X]]
// IO-NOT: fuse.cast
// IO: return %[[Y]] : tensor<?x4xf16>
func.func @half_io(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %w = fuse.constant dense<1.0> : tensor<4x4xf32>
  %y = fuse.gemm %x, %w {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
