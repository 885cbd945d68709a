// fuse-form-epilogues' conv-into-norm rule: a channels-last depthwise conv
// whose only user is a LayerNorm over the channels joins the norm's group;
// the norm kernel evaluates each conv element once as its prologue
// (ConvNeXt's block: depthwise 7x7, then LayerNorm).
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-epilogues))' \
// RUN:   | FileCheck %s
// RUN: fusec-opt %s -split-input-file '--fuse-form-epilogues=disabled-rules=conv-into-norm' \
// RUN:   | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @convnext_block
// CHECK: fuse.conv {{.*}}fuse.fused_by = "conv-into-norm", fuse.group = [[G:[0-9]+]] : i64
// CHECK-NEXT: fuse.layer_norm {{.*}}fuse.group = [[G]] : i64
// OFF-LABEL: func.func @convnext_block
// OFF-NOT: conv-into-norm
// OFF: fuse.layer_norm
// OFF-NOT: fuse.group
// OFF: return
func.func @convnext_block(%x: tensor<?x8x8x16xf32>, %w: tensor<16x7x7x1xf32>, %b: tensor<16xf32>, %g: tensor<16xf32>) -> tensor<?x8x8x16xf32> {
  %c = fuse.conv %x, %w, %b {channels_last = true, dilations = array<i64: 1, 1>, group = 16 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 1, 1>} : (tensor<?x8x8x16xf32>, tensor<16x7x7x1xf32>, tensor<16xf32>) -> tensor<?x8x8x16xf32>
  %n = fuse.layer_norm %c, %g, %b {axis = 3 : i64, epsilon = 1.0e-6 : f32} : (tensor<?x8x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x8x8x16xf32>
  return %n : tensor<?x8x8x16xf32>
}

// -----

// Not taken: a dense (not depthwise) conv, whose element costs all its input
// channels; a norm over more than the channels; a conv result read twice;
// an NCHW conv (its channels are not the last axis).
// CHECK-LABEL: func.func @not_taken
// CHECK-NOT: conv-into-norm
// CHECK: return
func.func @not_taken(%x: tensor<?x8x8x16xf32>, %dense: tensor<16x3x3x16xf32>, %w: tensor<16x7x7x1xf32>, %g: tensor<16xf32>, %g2: tensor<8x16xf32>, %nchw: tensor<?x16x8x8xf32>, %wn: tensor<16x1x7x7xf32>, %g8: tensor<8xf32>) -> (tensor<?x8x8x16xf32>, tensor<?x8x8x16xf32>, tensor<?x8x8x16xf32>, tensor<?x8x8x16xf32>, tensor<?x16x8x8xf32>) {
  %c1 = fuse.conv %x, %dense {channels_last = true, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x8x16xf32>, tensor<16x3x3x16xf32>) -> tensor<?x8x8x16xf32>
  %n1 = fuse.layer_norm %c1, %g {axis = 3 : i64, epsilon = 1.0e-6 : f32} : (tensor<?x8x8x16xf32>, tensor<16xf32>) -> tensor<?x8x8x16xf32>
  %c2 = fuse.conv %x, %w {channels_last = true, dilations = array<i64: 1, 1>, group = 16 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 1, 1>} : (tensor<?x8x8x16xf32>, tensor<16x7x7x1xf32>) -> tensor<?x8x8x16xf32>
  %n2 = fuse.layer_norm %c2, %g2 {axis = 2 : i64, epsilon = 1.0e-6 : f32} : (tensor<?x8x8x16xf32>, tensor<8x16xf32>) -> tensor<?x8x8x16xf32>
  %c3 = fuse.conv %x, %w {channels_last = true, dilations = array<i64: 1, 1>, group = 16 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 1, 1>} : (tensor<?x8x8x16xf32>, tensor<16x7x7x1xf32>) -> tensor<?x8x8x16xf32>
  %n3 = fuse.layer_norm %c3, %g {axis = 3 : i64, epsilon = 1.0e-6 : f32} : (tensor<?x8x8x16xf32>, tensor<16xf32>) -> tensor<?x8x8x16xf32>
  %c4 = fuse.conv %nchw, %wn {dilations = array<i64: 1, 1>, group = 16 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 1, 1>} : (tensor<?x16x8x8xf32>, tensor<16x1x7x7xf32>) -> tensor<?x16x8x8xf32>
  %n4 = fuse.layer_norm %c4, %g8 {axis = 3 : i64, epsilon = 1.0e-6 : f32} : (tensor<?x16x8x8xf32>, tensor<8xf32>) -> tensor<?x16x8x8xf32>
  return %n1, %n2, %n3, %c3, %n4 : tensor<?x8x8x16xf32>, tensor<?x8x8x16xf32>, tensor<?x8x8x16xf32>, tensor<?x8x8x16xf32>, tensor<?x16x8x8xf32>
}
