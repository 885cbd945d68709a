// fuse-form-epilogues' conv-prologue rule: the ops that compute a conv's
// input element by element from per-channel constants (ir/ConvPrologue.h),
// each read by the next only, join the conv's group; its template applies
// them to each element it loads.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-epilogues))' \
// RUN:   | FileCheck %s
// RUN: fusec-opt %s -split-input-file '--fuse-form-epilogues=disabled-rules=conv-prologue' \
// RUN:   | FileCheck %s --check-prefix=OFF

// DenseNet's pre-activation: BatchNorm -> ReLU -> 3x3 conv with padding
// (the template applies the prologue to loaded elements, never to padding).
// CHECK-LABEL: func.func @pre_activation
// CHECK: fuse.batch_norm {{.*}}fuse.fused_by = "conv-prologue", fuse.group = [[G:[0-9]+]] : i64
// CHECK: fuse.relu {{.*}}{fuse.fused_by = "conv-prologue", fuse.group = [[G]] : i64}
// CHECK: fuse.conv {{.*}}fuse.group = [[G]] : i64
// OFF-LABEL: func.func @pre_activation
// OFF-NOT: conv-prologue
// OFF: return
func.func @pre_activation(%x: tensor<?x4x8x8xf32>) -> tensor<?x2x8x8xf32> {
  %s = fuse.constant dense<1.5> : tensor<4xf32>
  %b = fuse.constant dense<0.25> : tensor<4xf32>
  %m = fuse.constant dense<0.1> : tensor<4xf32>
  %v = fuse.constant dense<2.0> : tensor<4xf32>
  %w = fuse.constant dense<0.5> : tensor<2x4x3x3xf32>
  %n = fuse.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-5 : f32} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  %r = fuse.relu %n : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %c = fuse.conv %r, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<?x2x8x8xf32>
  return %c : tensor<?x2x8x8xf32>
}

// -----

// A per-channel scale and shift ([C, 1, 1]) joins; a full-image constant
// ([1, 4, 8, 8]) is not per channel and stops the chain; so does a value
// another op reads (the relu, also returned).
// CHECK-LABEL: func.func @stops
// CHECK: fuse.mul %{{.*}}, %{{.*}} :
// CHECK-NOT: fuse.group
// CHECK: fuse.add {{.*}}{fuse.fused_by = "conv-prologue", fuse.group = [[A:[0-9]+]] : i64}
// CHECK: fuse.conv {{.*}}fuse.group = [[A]] : i64
// CHECK: fuse.relu %{{.*}} : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
// CHECK: fuse.conv {{.*}}fuse.group = {{[0-9]+}} : i64
func.func @stops(%x: tensor<?x4x8x8xf32>) -> (tensor<?x2x8x8xf32>, tensor<?x2x8x8xf32>, tensor<?x4x8x8xf32>) {
  %image = fuse.constant dense<1.5> : tensor<1x4x8x8xf32>
  %shift = fuse.constant dense<0.25> : tensor<4x1x1xf32>
  %w = fuse.constant dense<0.5> : tensor<2x4x1x1xf32>
  %m = fuse.mul %x, %image : (tensor<?x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %a = fuse.add %m, %shift : (tensor<?x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<?x4x8x8xf32>
  %c = fuse.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<2x4x1x1xf32>) -> tensor<?x2x8x8xf32>
  %r = fuse.relu %x : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %d = fuse.conv %r, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<2x4x1x1xf32>) -> tensor<?x2x8x8xf32>
  return %c, %d, %r : tensor<?x2x8x8xf32>, tensor<?x2x8x8xf32>, tensor<?x4x8x8xf32>
}

// -----

// An earlier conv's epilogue keeps its activation: the relu between two
// convs is the first conv's.
// CHECK-LABEL: func.func @epilogue_first
// CHECK: %[[C0:.*]] = fuse.conv {{.*}}fuse.group = [[E:[0-9]+]] : i64
// CHECK: fuse.relu %[[C0]] {fuse.fused_by = "epilogue-activation", fuse.group = [[E]] : i64}
// CHECK-NOT: conv-prologue
// CHECK: return
func.func @epilogue_first(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  %w = fuse.constant dense<0.5> : tensor<4x4x1x1xf32>
  %c0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<?x4x8x8xf32>
  %r = fuse.relu %c0 : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %c1 = fuse.conv %r, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<?x4x8x8xf32>
  return %c1 : tensor<?x4x8x8xf32>
}
