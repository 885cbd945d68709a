// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-convert-to-channels-last))' | FileCheck %s

// A residual block: conv -> bias -> relu -> conv -> add(input) -> relu ->
// max_pool. Only the model's input and output change layout; between them
// every op works on NHWC, the weights are OHWI constants and the [C, 1, 1]
// bias a [1, 1, 1, C] one. The residual add reads the block's input in
// NHWC too: the first conv already needed it so (CSE then merges the two
// transposes of %x, which this pass alone leaves apart).
// CHECK-LABEL: func.func @residual_block
// CHECK-SAME: (%[[X:.*]]: tensor<?x8x6x6xf32>)
// CHECK-DAG: %[[W1:.*]] = fuse.constant {{.*}} : tensor<8x3x3x8xf32>
// CHECK-DAG: %[[W2:.*]] = fuse.constant {{.*}} : tensor<8x1x1x8xf32>
// CHECK-DAG: %[[B:.*]] = fuse.constant {{.*}} : tensor<1x1x1x8xf32>
// CHECK: %[[IN:.*]] = fuse.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<?x8x6x6xf32>) -> tensor<?x6x6x8xf32>
// CHECK: %[[C1:.*]] = fuse.conv %[[IN]], %[[W1]] {channels_last = true, {{.*}}} : (tensor<?x6x6x8xf32>, tensor<8x3x3x8xf32>) -> tensor<?x6x6x8xf32>
// CHECK: %[[A1:.*]] = fuse.add %[[C1]], %[[B]] : (tensor<?x6x6x8xf32>, tensor<1x1x1x8xf32>) -> tensor<?x6x6x8xf32>
// CHECK: %[[R1:.*]] = fuse.relu %[[A1]] : (tensor<?x6x6x8xf32>) -> tensor<?x6x6x8xf32>
// CHECK: %[[C2:.*]] = fuse.conv %[[R1]], %[[W2]] {channels_last = true, {{.*}}} : (tensor<?x6x6x8xf32>, tensor<8x1x1x8xf32>) -> tensor<?x6x6x8xf32>
// CHECK: %[[IN2:.*]] = fuse.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[SUM:.*]] = fuse.add %[[C2]], %[[IN2]] : (tensor<?x6x6x8xf32>, tensor<?x6x6x8xf32>) -> tensor<?x6x6x8xf32>
// CHECK: %[[R2:.*]] = fuse.relu %[[SUM]]
// CHECK: %[[P:.*]] = fuse.max_pool %[[R2]] {ceil_mode = false, channels_last = true, {{.*}}} : (tensor<?x6x6x8xf32>) -> tensor<?x3x3x8xf32>
// CHECK: %[[OUT:.*]] = fuse.transpose %[[P]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<?x3x3x8xf32>) -> tensor<?x8x3x3xf32>
// CHECK-NOT: fuse.transpose
// CHECK: return %[[OUT]]
func.func @residual_block(%x: tensor<?x8x6x6xf32>) -> tensor<?x8x3x3xf32> {
  %w1 = fuse.constant dense<0.5> : tensor<8x8x3x3xf32>
  %w2 = fuse.constant dense<0.25> : tensor<8x8x1x1xf32>
  %b = fuse.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]]]> : tensor<8x1x1xf32>
  %c1 = fuse.conv %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<?x8x6x6xf32>
  %a1 = fuse.add %c1, %b : (tensor<?x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<?x8x6x6xf32>
  %r1 = fuse.relu %a1 : (tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %c2 = fuse.conv %r1, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x8x6x6xf32>, tensor<8x8x1x1xf32>) -> tensor<?x8x6x6xf32>
  %sum = fuse.add %c2, %x : (tensor<?x8x6x6xf32>, tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %r2 = fuse.relu %sum : (tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %p = fuse.max_pool %r2 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x8x6x6xf32>) -> tensor<?x8x3x3xf32>
  return %p : tensor<?x8x3x3xf32>
}

// -----

// The classifier tail: global average pooling becomes a mean over the NHWC
// spatial axes, and the transpose of its [N, 1, 1, C] result moves only unit
// axes, so the flatten reads the mean directly: no transpose is left after
// the conv.
// CHECK-LABEL: func.func @classifier_tail
// CHECK: fuse.transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C:.*]] = fuse.conv {{.*}}channels_last = true
// CHECK: %[[M:.*]] = fuse.reduce_mean %[[C]] {axes = array<i64: 1, 2>, keepdims = true} : (tensor<?x4x4x16xf32>) -> tensor<?x1x1x16xf32>
// CHECK: %[[F:.*]] = fuse.reshape %[[M]] {shape = array<i64: 0, 16>} : (tensor<?x1x1x16xf32>) -> tensor<?x16xf32>
// CHECK-NOT: fuse.transpose
// CHECK: return %[[F]]
func.func @classifier_tail(%x: tensor<?x3x4x4xf32>) -> tensor<?x16xf32> {
  %w = fuse.constant dense<0.5> : tensor<16x3x3x3xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x4x4xf32>, tensor<16x3x3x3xf32>) -> tensor<?x16x4x4xf32>
  %g = fuse.global_average_pool %c : (tensor<?x16x4x4xf32>) -> tensor<?x16x1x1xf32>
  %f = fuse.flatten %g {axis = 1 : i64} : (tensor<?x16x1x1xf32>) -> tensor<?x16xf32>
  return %f : tensor<?x16xf32>
}

// -----

// Concat along channels is concat along the NHWC channel axis (3); a
// reflect pad's amounts move with their axes.
// CHECK-LABEL: func.func @concat_and_pad
// CHECK: %[[A:.*]] = fuse.conv {{.*}}channels_last = true
// CHECK: %[[B:.*]] = fuse.conv {{.*}}channels_last = true
// CHECK: %[[CAT:.*]] = fuse.concat %[[A]], %[[B]] {axis = 3 : i64} : (tensor<?x4x4x2xf32>, tensor<?x4x4x2xf32>) -> tensor<?x4x4x4xf32>
// CHECK: %[[PAD:.*]] = fuse.pad %[[CAT]] {mode = "reflect", pads = array<i64: 0, 1, 2, 0, 0, 1, 2, 0>} : (tensor<?x4x4x4xf32>) -> tensor<?x6x8x4xf32>
// CHECK: fuse.conv %[[PAD]], {{.*}}channels_last = true
func.func @concat_and_pad(%x: tensor<?x3x4x4xf32>) -> tensor<?x2x6x8xf32> {
  %w = fuse.constant dense<0.5> : tensor<2x3x1x1xf32>
  %v = fuse.constant dense<0.25> : tensor<2x4x1x1xf32>
  %a = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<?x2x4x4xf32>
  %b = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, group = 1 : i64} : (tensor<?x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<?x2x4x4xf32>
  %cat = fuse.concat %a, %b {axis = 1 : i64} : (tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>) -> tensor<?x4x4x4xf32>
  %pad = fuse.pad %cat {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 2>, mode = "reflect"} : (tensor<?x4x4x4xf32>) -> tensor<?x4x6x8xf32>
  %c = fuse.conv %pad, %v {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x6x8xf32>, tensor<2x4x1x1xf32>) -> tensor<?x2x6x8xf32>
  return %c : tensor<?x2x6x8xf32>
}

// -----

// Batch norm normalises axis 1: with statistics that are not constants (a
// model input here) it stays NCHW between two transposes; an
// operand that is neither the transpose nor a constant (a second model
// input) stops the sinking too.
// CHECK-LABEL: func.func @layout_sensitive_users
// CHECK: %[[C:.*]] = fuse.conv {{.*}}channels_last = true
// CHECK: %[[T:.*]] = fuse.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: fuse.batch_norm %[[T]]
// CHECK: fuse.add %[[T]], %{{.*}} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>)
func.func @layout_sensitive_users(%x: tensor<1x3x4x4xf32>, %y: tensor<1x2x4x4xf32>, %s: tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = fuse.constant dense<0.5> : tensor<2x3x1x1xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = fuse.batch_norm %c, %s, %s, %s, %s {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %a = fuse.add %c, %y : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %n, %a : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A batch norm with constant statistics is a per-channel scale and shift,
// which on NHWC are [C] constants on the last axis (a = 2 / sqrt(4 + 0) = 1,
// b = 0.5 - 1.5 * 1 = -1): the transpose sinks through it, and through the
// ReLU, into the next conv.
// CHECK-LABEL: func.func @pre_activation
// CHECK-DAG: %[[A:.*]] = fuse.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[B:.*]] = fuse.constant dense<-1.000000e+00> : tensor<2xf32>
// CHECK: %[[C:.*]] = fuse.conv {{.*}}channels_last = true
// CHECK-NOT: fuse.transpose
// CHECK: %[[M:.*]] = fuse.mul %[[C]], %[[A]] : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
// CHECK: %[[S:.*]] = fuse.add %[[M]], %[[B]]
// CHECK: %[[R:.*]] = fuse.relu %[[S]]
// CHECK: fuse.conv %[[R]], {{.*}}channels_last = true
func.func @pre_activation(%x: tensor<1x3x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = fuse.constant dense<0.5> : tensor<2x3x1x1xf32>
  %w2 = fuse.constant dense<0.5> : tensor<2x2x1x1xf32>
  %scale = fuse.constant dense<2.0> : tensor<2xf32>
  %bias = fuse.constant dense<0.5> : tensor<2xf32>
  %mean = fuse.constant dense<1.5> : tensor<2xf32>
  %var = fuse.constant dense<4.0> : tensor<2xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = fuse.batch_norm %c, %scale, %bias, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = fuse.relu %n : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %d = fuse.conv %r, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %d : tensor<1x2x4x4xf32>
}


// -----

// Pooling written as a ReduceMean over H and W (PyTorch's adaptive average
// pool): without keepdims the result [N, C] is the same tensor from NHWC,
// so the transpose back disappears; with keepdims it moves past the mean.
// CHECK-LABEL: func.func @spatial_means
// CHECK: %[[C:.*]] = fuse.conv {{.*}}channels_last = true
// CHECK: fuse.reduce_mean %[[C]] {axes = array<i64: 1, 2>, keepdims = false} : (tensor<1x4x4x2xf32>) -> tensor<1x2xf32>
// CHECK: %[[K:.*]] = fuse.reduce_mean %[[C]] {axes = array<i64: 1, 2>, keepdims = true} : (tensor<1x4x4x2xf32>) -> tensor<1x1x1x2xf32>
// CHECK: fuse.reshape %[[K]]
func.func @spatial_means(%x: tensor<1x3x4x4xf32>) -> (tensor<1x2xf32>, tensor<1x2x1x1xf32>) {
  %w = fuse.constant dense<0.5> : tensor<2x3x1x1xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %m = fuse.reduce_mean %c {axes = array<i64: 2, 3>, keepdims = false} : (tensor<1x2x4x4xf32>) -> tensor<1x2xf32>
  %k = fuse.reduce_mean %c {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  return %m, %k : tensor<1x2xf32>, tensor<1x2x1x1xf32>
}

// -----

// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-convert-to-channels-last{input-convs-nchw=true}))' | FileCheck %s --check-prefix=INPUT
// With input-convs-nchw, a conv that alone reads the model's input stays
// NCHW; the next conv's transpose of its result remains (fuse-form-epilogues
// then stores it from the first conv's kernel: epilogue-transpose).
// INPUT-LABEL: func.func @input_conv
// INPUT: %[[A:.*]] = fuse.conv %arg0, {{.*}} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
// INPUT: %[[T:.*]] = fuse.transpose %[[A]] {perm = array<i64: 0, 2, 3, 1>}
// INPUT: fuse.conv %[[T]], {{.*}}channels_last = true
func.func @input_conv(%x: tensor<1x3x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = fuse.constant dense<0.5> : tensor<2x3x1x1xf32>
  %w2 = fuse.constant dense<0.5> : tensor<2x2x1x1xf32>
  %a = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b = fuse.conv %a, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %b : tensor<1x2x4x4xf32>
}

// -----

// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-convert-to-channels-last{input-convs-nchw=true pad-channels=8}))' | FileCheck %s --check-prefix=PADDED
// With pad-channels (the fusion pipeline's for sm_90a f16/bf16: the Hopper
// conv reads rows of at least 8 channels), a conv on fewer channels is made
// channels-last even when it alone reads the model's input: its input
// transposed and padded with zeros to 8 channels, its weights an OHWI
// constant padded with zero channels. A conv on 8 or more channels is
// converted as usual.
// PADDED-LABEL: func.func @rgb_stem
// PADDED-DAG: %[[W:.*]] = fuse.constant {{.*}} : tensor<8x1x1x8xf32>
// PADDED-DAG: %[[T:.*]] = fuse.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
// PADDED: %[[P:.*]] = fuse.pad %[[T]] {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 5>} : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x8xf32>
// PADDED: fuse.conv %[[P]], %[[W]] {{.*}}channels_last = true{{.*}} : (tensor<1x4x4x8xf32>, tensor<8x1x1x8xf32>) -> tensor<1x4x4x8xf32>
func.func @rgb_stem(%x: tensor<1x3x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = fuse.constant dense<0.5> : tensor<8x3x1x1xf32>
  %a = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<8x3x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %a : tensor<1x8x4x4xf32>
}
