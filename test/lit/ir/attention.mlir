// fuse.attention: softmax(scale * Q Kt + mask, causal) V.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @attention
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = false, scale = 1.250000e-01 : f32} : (tensor<?x4x7x64xf32>, tensor<?x4x9x64xf32>, tensor<?x4x9x32xf32>) -> tensor<?x4x7x32xf32>
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal = true, scale = 5.000000e-01 : f32} : (tensor<2x3x8xf16>, tensor<2x5x8xf16>, tensor<2x5x8xf16>, tensor<3x5xf16>) -> tensor<2x3x8xf16>
func.func @attention(%q: tensor<?x4x7x64xf32>, %k: tensor<?x4x9x64xf32>, %v: tensor<?x4x9x32xf32>,
                     %q2: tensor<2x3x8xf16>, %k2: tensor<2x5x8xf16>, %v2: tensor<2x5x8xf16>, %m: tensor<3x5xf16>)
    -> (tensor<?x4x7x32xf32>, tensor<2x3x8xf16>) {
  // Sk != S and Dv != D; the batch dimension is dynamic.
  %0 = fuse.attention %q, %k, %v {scale = 0.125 : f32, causal = false} : (tensor<?x4x7x64xf32>, tensor<?x4x9x64xf32>, tensor<?x4x9x32xf32>) -> tensor<?x4x7x32xf32>
  // A mask broadcast over the batch; causal with S < Sk.
  %1 = fuse.attention %q2, %k2, %v2, %m {scale = 0.5 : f32, causal = true} : (tensor<2x3x8xf16>, tensor<2x5x8xf16>, tensor<2x5x8xf16>, tensor<3x5xf16>) -> tensor<2x3x8xf16>
  return %0, %1 : tensor<?x4x7x32xf32>, tensor<2x3x8xf16>
}

// -----

func.func @rank(%q: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'fuse.attention' op query, key and value must have one rank >= 2, got ranks 1, 1 and 1}}
  %0 = fuse.attention %q, %q, %q {scale = 1.0 : f32, causal = false} : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @leading(%q: tensor<2x4x8xf32>, %k: tensor<3x4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op query, key and value differ in leading dimension 0: 2, 3 and 3}}
  %0 = fuse.attention %q, %k, %k {scale = 1.0 : f32, causal = false} : (tensor<2x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @head_dim(%q: tensor<4x8xf32>, %k: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'fuse.attention' op key head dimension 6 differs from the query's 8}}
  %0 = fuse.attention %q, %k, %k {scale = 1.0 : f32, causal = false} : (tensor<4x8xf32>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @value_rows(%q: tensor<4x8xf32>, %k: tensor<5x8xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op value has 6 rows, the key sequence length is 5}}
  %0 = fuse.attention %q, %k, %v {scale = 1.0 : f32, causal = false} : (tensor<4x8xf32>, tensor<5x8xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @dynamic_sequence(%q: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'fuse.attention' op sequence dimensions must be static, not the batch dimension}}
  %0 = fuse.attention %q, %q, %q {scale = 1.0 : f32, causal = false} : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @mask(%q: tensor<4x8xf32>, %m: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op mask [4, 8] does not broadcast to the scores [4, 4]}}
  %0 = fuse.attention %q, %q, %q, %m {scale = 1.0 : f32, causal = false} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @scale(%q: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op 'scale' must be finite, got inf}}
  %0 = fuse.attention %q, %q, %q {scale = 0x7F800000 : f32, causal = false} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @causal(%q: tensor<5x8xf32>, %k: tensor<4x8xf32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{'fuse.attention' op causal attention needs a query length (5) <= the key length (4): earlier rows would attend to no key}}
  %0 = fuse.attention %q, %k, %k {scale = 1.0 : f32, causal = true} : (tensor<5x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

func.func @types(%q: tensor<4x8xf32>, %k: tensor<4x8xf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op operands must share one element type: operand 0 is 'f32', operand 1 is 'f16'}}
  %0 = fuse.attention %q, %k, %k {scale = 1.0 : f32, causal = false} : (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
