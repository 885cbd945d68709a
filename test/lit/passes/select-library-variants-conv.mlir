// fuse-select-library-variants on conv kernels: one cuDNN graph computes a
// 2-D convolution with its folded bias, then a bias per channel, a residual
// of the output's shape and ReLU (casts anywhere); the kernel gets `library
// = "cudnn"`, or `no_library` with the reason.
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-library-variants))' | FileCheck %s
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-library-variants{tactics=generated}))' \
// RUN:   | FileCheck %s --check-prefix=GENERATED
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-library-variants{tactics=library}))' \
// RUN:   | FileCheck %s --check-prefix=LIBRARY
// GENERATED-NOT: library
// LIBRARY-LABEL: func.func @resnet_tail
// LIBRARY: library = "cudnn", library_default

// The end of a ResNet block: conv (BN folded into its bias), cast, residual,
// ReLU.
// CHECK-LABEL: func.func @resnet_tail
// CHECK: fuse.superkernel "tail" kind "conv"
// CHECK-SAME: library = "cudnn"
// CHECK-NOT: no_library
func.func @resnet_tail(%x: tensor<?x64x56x56xf16>, %w: tensor<64x64x3x3xf16>, %b: tensor<64xf16>,
                       %res: tensor<?x64x56x56xf32>) -> tensor<?x64x56x56xf32> {
  %y = fuse.superkernel "tail" kind "conv" (%x, %w, %b, %res) : (tensor<?x64x56x56xf16>, tensor<64x64x3x3xf16>, tensor<64xf16>, tensor<?x64x56x56xf32>) -> tensor<?x64x56x56xf32> {
  ^bb0(%a0: tensor<?x64x56x56xf16>, %a1: tensor<64x64x3x3xf16>, %a2: tensor<64xf16>, %a3: tensor<?x64x56x56xf32>):
    %c = fuse.conv %a0, %a1, %a2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x64x56x56xf16>, tensor<64x64x3x3xf16>, tensor<64xf16>) -> tensor<?x64x56x56xf16>
    %f = fuse.cast %c {to = "f32"} : (tensor<?x64x56x56xf16>) -> tensor<?x64x56x56xf32>
    %s = fuse.add %f, %a3 : (tensor<?x64x56x56xf32>, tensor<?x64x56x56xf32>) -> tensor<?x64x56x56xf32>
    %r = fuse.relu %s : (tensor<?x64x56x56xf32>) -> tensor<?x64x56x56xf32>
    fuse.yield %r : tensor<?x64x56x56xf32>
  }
  return %y : tensor<?x64x56x56xf32>
}

// -----

// Channels-last, depthwise, asymmetric padding, the bias as a separate add
// of an NHWC channel vector.
// CHECK-LABEL: func.func @depthwise_nhwc
// CHECK: fuse.superkernel "dw" kind "conv"
// CHECK-SAME: library = "cudnn"
func.func @depthwise_nhwc(%x: tensor<?x28x28x96xf32>, %w: tensor<96x7x7x1xf32>, %b: tensor<96xf32>) -> tensor<?x27x27x96xf32> {
  %y = fuse.superkernel "dw" kind "conv" (%x, %w, %b) : (tensor<?x28x28x96xf32>, tensor<96x7x7x1xf32>, tensor<96xf32>) -> tensor<?x27x27x96xf32> {
  ^bb0(%a0: tensor<?x28x28x96xf32>, %a1: tensor<96x7x7x1xf32>, %a2: tensor<96xf32>):
    %c = fuse.conv %a0, %a1 {channels_last = true, dilations = array<i64: 1, 1>, group = 96 : i64, pads = array<i64: 2, 2, 3, 3>, strides = array<i64: 1, 1>} : (tensor<?x28x28x96xf32>, tensor<96x7x7x1xf32>) -> tensor<?x27x27x96xf32>
    %s = fuse.add %c, %a2 : (tensor<?x27x27x96xf32>, tensor<96xf32>) -> tensor<?x27x27x96xf32>
    fuse.yield %s : tensor<?x27x27x96xf32>
  }
  return %y : tensor<?x27x27x96xf32>
}

// -----

// ReLU before the residual: the graph adds both before its activation.
// CHECK-LABEL: func.func @relu_then_add
// CHECK: no_library = "an add after the activation (the library adds bias and residual before it)"
func.func @relu_then_add(%x: tensor<?x8x4x4xf32>, %w: tensor<8x8x1x1xf32>, %res: tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32> {
  %y = fuse.superkernel "k" kind "conv" (%x, %w, %res) : (tensor<?x8x4x4xf32>, tensor<8x8x1x1xf32>, tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32> {
  ^bb0(%a0: tensor<?x8x4x4xf32>, %a1: tensor<8x8x1x1xf32>, %a2: tensor<?x8x4x4xf32>):
    %c = fuse.conv %a0, %a1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<?x8x4x4xf32>
    %r = fuse.relu %c : (tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32>
    %s = fuse.add %r, %a2 : (tensor<?x8x4x4xf32>, tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32>
    fuse.yield %s : tensor<?x8x4x4xf32>
  }
  return %y : tensor<?x8x4x4xf32>
}

// -----

// An activation cuDNN's fused convolutions do not apply.
// CHECK-LABEL: func.func @conv_sigmoid
// CHECK: no_library = "'sigmoid' in the epilogue (cuDNN's fused convolutions add a bias and a residual, then ReLU)"
func.func @conv_sigmoid(%x: tensor<?x8x4x4xf32>, %w: tensor<8x8x1x1xf32>) -> tensor<?x8x4x4xf32> {
  %y = fuse.superkernel "k" kind "conv" (%x, %w) : (tensor<?x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<?x8x4x4xf32> {
  ^bb0(%a0: tensor<?x8x4x4xf32>, %a1: tensor<8x8x1x1xf32>):
    %c = fuse.conv %a0, %a1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<?x8x4x4xf32>
    %s = fuse.sigmoid %c : (tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32>
    fuse.yield %s : tensor<?x8x4x4xf32>
  }
  return %y : tensor<?x8x4x4xf32>
}

// -----

// An NCHW [K] vector broadcasts along the width, not the channels: not a
// bias, and not of the output's shape.
// CHECK-LABEL: func.func @width_vector
// CHECK: no_library = "an add that is neither a bias per channel nor a residual of the output's shape"
func.func @width_vector(%x: tensor<?x4x4x4xf32>, %w: tensor<4x4x1x1xf32>, %v: tensor<4xf32>) -> tensor<?x4x4x4xf32> {
  %y = fuse.superkernel "k" kind "conv" (%x, %w, %v) : (tensor<?x4x4x4xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<?x4x4x4xf32> {
  ^bb0(%a0: tensor<?x4x4x4xf32>, %a1: tensor<4x4x1x1xf32>, %a2: tensor<4xf32>):
    %c = fuse.conv %a0, %a1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<?x4x4x4xf32>
    %s = fuse.add %c, %a2 : (tensor<?x4x4x4xf32>, tensor<4xf32>) -> tensor<?x4x4x4xf32>
    fuse.yield %s : tensor<?x4x4x4xf32>
  }
  return %y : tensor<?x4x4x4xf32>
}
