// fuse-form-epilogues: every conv, gemm and matmul starts a group
// (`fuse.group`), and the chain of single users joins it while it is an
// activation (epilogue-activation), an arithmetic op with a constant that keeps
// the shape (bias-epilogue) or one residual add (add-to-output). Each joined op
// records its rule in `fuse.fused_by`; the anchor itself has none.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-epilogues))' \
// RUN:   | FileCheck %s
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-epilogues{disabled-rules=add-to-output}))' \
// RUN:   | FileCheck %s --check-prefix=NOADD
// RUN: fusec-opt %s -split-input-file '--fuse-form-epilogues=disabled-rules=add-to-output' \
// RUN:   | FileCheck %s --check-prefix=NOADD
// RUN: fusec-opt %s -split-input-file '--fuse-form-epilogues=disabled-rules=epilogue-activation,bias-epilogue' \
// RUN:   | FileCheck %s --check-prefix=NOACT

// CHECK-LABEL: func.func @conv_relu
// CHECK: %[[C:.*]] = fuse.conv
// CHECK-NOT: fuse.fused_by
// CHECK-SAME: fuse.group = 0 : i64
// CHECK-NEXT: fuse.relu %[[C]] {fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// CHECK-NEXT: return
// NOADD-LABEL: func.func @conv_relu
// NOADD: fuse.relu {{.*}}{fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// NOACT-LABEL: func.func @conv_relu
// NOACT: fuse.conv {{.*}}fuse.group = 0 : i64
// NOACT: fuse.relu %{{[0-9]+}} :
func.func @conv_relu(%x: tensor<?x3x8x8xf32>) -> tensor<?x4x6x6xf32> {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %r = fuse.relu %c : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  return %r : tensor<?x4x6x6xf32>
}

// -----

// PRelu with a constant per-channel slope is an activation; with a slope
// computed at run time it is left to the planner.
// CHECK-LABEL: func.func @conv_prelu
// CHECK: %[[C:.*]] = fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: %[[P:.*]] = fuse.prelu %[[C]], %{{.*}} {fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// CHECK: fuse.conv {{.*}}fuse.group = 1 : i64
// CHECK-NEXT: fuse.prelu %{{[0-9]+}}, %arg1 :
func.func @conv_prelu(%x: tensor<?x3x8x8xf32>, %s: tensor<4x1x1xf32>) -> (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %slope = fuse.constant dense<0.25> : tensor<4x1x1xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %p = fuse.prelu %c, %slope : (tensor<?x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<?x4x6x6xf32>
  %c2 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %p2 = fuse.prelu %c2, %s : (tensor<?x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<?x4x6x6xf32>
  return %p, %p2 : tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>
}

// -----

// A bias added as a separate Add of a constant with the conv's output shape
// (per-channel [4,1,1] broadcasts to it without changing it), then a Clip (ReLU6).
// The constant is not grouped (constants are never members).
// CHECK-LABEL: func.func @conv_bias_clip
// CHECK: %[[B:.*]] = fuse.constant dense<5.000000e-01> : tensor<4x1x1xf32>{{$}}
// CHECK: %[[C:.*]] = fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: %[[A:.*]] = fuse.add %[[C]], %[[B]] {fuse.fused_by = "bias-epilogue", fuse.group = 0 : i64}
// CHECK-NEXT: fuse.clip %[[A]] {fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64, max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
// NOACT-LABEL: func.func @conv_bias_clip
// NOACT: fuse.add %{{[0-9]+}}, %{{[0-9]+}} :
// NOACT: fuse.clip %{{[0-9]+}} {max
func.func @conv_bias_clip(%x: tensor<?x3x8x8xf32>) -> tensor<?x4x6x6xf32> {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %b = fuse.constant dense<0.5> : tensor<4x1x1xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %a = fuse.add %c, %b : (tensor<?x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<?x4x6x6xf32>
  %r = fuse.clip %a {min = 0.0 : f32, max = 6.0 : f32} : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  return %r : tensor<?x4x6x6xf32>
}

// -----

// A biased GEMM: MatMul + Add(bias) + Relu; the bias is the Add's first
// operand (as the ONNX exporter writes it). Sub, Mul and Div by a constant
// join as well.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK: %[[M:.*]] = fuse.matmul {{.*}}{fuse.group = 0 : i64}
// CHECK-NEXT: %[[A:.*]] = fuse.add %{{.*}}, %[[M]] {fuse.fused_by = "bias-epilogue", fuse.group = 0 : i64}
// CHECK-NEXT: %[[R:.*]] = fuse.relu %[[A]] {fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// CHECK-NEXT: %[[S:.*]] = fuse.sub %[[R]], %{{.*}} {fuse.fused_by = "bias-epilogue", fuse.group = 0 : i64}
// CHECK-NEXT: %[[U:.*]] = fuse.mul %[[S]], %{{.*}} {fuse.fused_by = "bias-epilogue", fuse.group = 0 : i64}
// CHECK-NEXT: %[[D:.*]] = fuse.div %[[U]], %{{.*}} {fuse.fused_by = "bias-epilogue", fuse.group = 0 : i64}
// CHECK-NEXT: return %[[D]]
func.func @matmul_bias_relu(%x: tensor<?x8x32xf32>) -> tensor<?x8x64xf32> {
  %w = fuse.constant dense<1.0> : tensor<32x64xf32>
  %b = fuse.constant dense<0.5> : tensor<64xf32>
  %m = fuse.matmul %x, %w : (tensor<?x8x32xf32>, tensor<32x64xf32>) -> tensor<?x8x64xf32>
  %a = fuse.add %b, %m : (tensor<64xf32>, tensor<?x8x64xf32>) -> tensor<?x8x64xf32>
  %r = fuse.relu %a : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32>
  %s = fuse.sub %r, %b : (tensor<?x8x64xf32>, tensor<64xf32>) -> tensor<?x8x64xf32>
  %u = fuse.mul %s, %b : (tensor<?x8x64xf32>, tensor<64xf32>) -> tensor<?x8x64xf32>
  %d = fuse.div %u, %b : (tensor<?x8x64xf32>, tensor<64xf32>) -> tensor<?x8x64xf32>
  return %d : tensor<?x8x64xf32>
}

// -----

// Gemm anchors a group too; Sigmoid, Tanh and Gelu are activations.
// CHECK-LABEL: func.func @gemm_activations
// CHECK: fuse.gemm {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: fuse.sigmoid {{.*}}{fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// CHECK-NEXT: fuse.tanh {{.*}}{fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// CHECK-NEXT: fuse.gelu {{.*}}{fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// CHECK-NEXT: return
func.func @gemm_activations(%x: tensor<?x16xf32>) -> tensor<?x8xf32> {
  %w = fuse.constant dense<1.0> : tensor<8x16xf32>
  %g = fuse.gemm %x, %w {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<?x16xf32>, tensor<8x16xf32>) -> tensor<?x8xf32>
  %s = fuse.sigmoid %g : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %t = fuse.tanh %s : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %e = fuse.gelu %t : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %e : tensor<?x8xf32>
}

// -----

// A residual: conv -> add(shortcut) -> relu. The shortcut (%x) is computed
// outside the group; the add joins by add-to-output, and the relu after it.
// With add-to-output disabled the chain ends at the conv.
// CHECK-LABEL: func.func @residual_add_relu
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8x8xf32>)
// CHECK: %[[C:.*]] = fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: %[[A:.*]] = fuse.add %[[C]], %[[X]] {fuse.fused_by = "add-to-output", fuse.group = 0 : i64}
// CHECK-NEXT: fuse.relu %[[A]] {fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// NOADD-LABEL: func.func @residual_add_relu
// NOADD: %[[C:.*]] = fuse.conv {{.*}}fuse.group = 0 : i64
// NOADD-NEXT: %[[A:.*]] = fuse.add %[[C]], %{{[a-z0-9]+}} : (tensor
// NOADD-NEXT: fuse.relu %[[A]] : (tensor
func.func @residual_add_relu(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  %w = fuse.constant dense<1.0> : tensor<4x4x3x3xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x8x8xf32>
  %a = fuse.add %c, %x : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %r = fuse.relu %a : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %r : tensor<?x4x8x8xf32>
}

// -----

// Only one residual add per kernel: the second add of a computed value ends
// the chain (and what follows it stays out).
// CHECK-LABEL: func.func @one_residual_per_group
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8x8xf32>, %[[Y:.*]]: tensor<?x4x8x8xf32>)
// CHECK: %[[C:.*]] = fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: %[[A:.*]] = fuse.add %[[C]], %[[X]] {fuse.fused_by = "add-to-output", fuse.group = 0 : i64}
// CHECK-NEXT: %[[B:.*]] = fuse.add %[[A]], %[[Y]] : (tensor
// CHECK-NEXT: fuse.relu %[[B]] : (tensor
func.func @one_residual_per_group(%x: tensor<?x4x8x8xf32>, %y: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  %w = fuse.constant dense<1.0> : tensor<4x4x3x3xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x8x8xf32>
  %a = fuse.add %c, %x : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %b = fuse.add %a, %y : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %r = fuse.relu %b : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %r : tensor<?x4x8x8xf32>
}

// -----

// Two residual blocks: each conv gets its own group, numbered in program
// order; the second conv's residual is the first group's output.
// CHECK-LABEL: func.func @two_blocks
// CHECK: %[[C0:.*]] = fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: %[[R0:.*]] = fuse.relu %[[C0]] {fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// CHECK-NEXT: %[[C1:.*]] = fuse.conv %[[R0]], {{.*}}fuse.group = 1 : i64
// CHECK-NEXT: %[[A1:.*]] = fuse.add %[[C1]], %[[R0]] {fuse.fused_by = "add-to-output", fuse.group = 1 : i64}
// CHECK-NEXT: fuse.relu %[[A1]] {fuse.fused_by = "epilogue-activation", fuse.group = 1 : i64}
func.func @two_blocks(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  %w = fuse.constant dense<1.0> : tensor<4x4x3x3xf32>
  %c0 = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x8x8xf32>
  %r0 = fuse.relu %c0 : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %c1 = fuse.conv %r0, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x8x8xf32>
  %a1 = fuse.add %c1, %r0 : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %r1 = fuse.relu %a1 : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %r1 : tensor<?x4x8x8xf32>
}

// -----

// The conv result has two users: the chain ends at the conv, neither user joins.
// CHECK-LABEL: func.func @two_users_end_chain
// CHECK: %[[C:.*]] = fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: fuse.relu %[[C]] : (tensor
// CHECK-NEXT: fuse.sigmoid %[[C]] : (tensor
func.func @two_users_end_chain(%x: tensor<?x3x8x8xf32>) -> (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %r = fuse.relu %c : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %s = fuse.sigmoid %c : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  return %r, %s : tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>
}

// -----

// A value that is returned (a graph output) has a second user, the return:
// the relu joins, the sigmoid reading the returned relu does not.
// CHECK-LABEL: func.func @returned_value_ends_chain
// CHECK: %[[C:.*]] = fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: %[[R:.*]] = fuse.relu %[[C]] {fuse.fused_by = "epilogue-activation", fuse.group = 0 : i64}
// CHECK-NEXT: %[[S:.*]] = fuse.sigmoid %[[R]] : (tensor
// CHECK-NEXT: return %[[R]], %[[S]]
func.func @returned_value_ends_chain(%x: tensor<?x3x8x8xf32>) -> (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %r = fuse.relu %c : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %s = fuse.sigmoid %r : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  return %r, %s : tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>
}

// -----

// An add that broadcasts the conv output to a larger shape computes more
// elements than the conv: it does not join, neither with a constant
// (bias-epilogue) nor with a computed value (add-to-output).
// CHECK-LABEL: func.func @broadcasting_add_stays_out
// CHECK: %[[C:.*]] = fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: fuse.add %[[C]], %{{.*}} : (tensor<1x4x6x6xf32>, tensor<3x1x1x1xf32>) -> tensor<3x4x6x6xf32>
// CHECK-NEXT: %[[D:.*]] = fuse.conv {{.*}}fuse.group = 1 : i64
// CHECK-NEXT: fuse.add %[[D]], %{{.*}} : (tensor<1x4x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
// CHECK-NEXT: return
func.func @broadcasting_add_stays_out(%x: tensor<1x3x8x8xf32>, %y: tensor<2x4x6x6xf32>) -> (tensor<3x4x6x6xf32>, tensor<2x4x6x6xf32>) {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %s = fuse.constant dense<2.0> : tensor<3x1x1x1xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %a = fuse.add %c, %s : (tensor<1x4x6x6xf32>, tensor<3x1x1x1xf32>) -> tensor<3x4x6x6xf32>
  %d = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %e = fuse.add %d, %y : (tensor<1x4x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  return %a, %e : tensor<3x4x6x6xf32>, tensor<2x4x6x6xf32>
}

// -----

// What else ends a chain: an add of the value with itself (two uses), a
// Sub/Mul/Div by a computed value, ops that are not activations (erf).
// CHECK-LABEL: func.func @non_epilogue_ops
// CHECK: %[[C:.*]] = fuse.conv {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: %[[A:.*]] = fuse.add %[[C]], %[[C]] : (tensor
// CHECK: %[[D:.*]] = fuse.conv {{.*}}fuse.group = 1 : i64
// CHECK-NEXT: fuse.mul %[[D]], %{{.*}} : (tensor
// CHECK: %[[E:.*]] = fuse.conv {{.*}}fuse.group = 2 : i64
// CHECK-NEXT: fuse.erf %[[E]] : (tensor
func.func @non_epilogue_ops(%x: tensor<?x3x8x8xf32>, %y: tensor<?x4x6x6xf32>) -> (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) {
  %w = fuse.constant dense<1.0> : tensor<4x3x3x3xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %a = fuse.add %c, %c : (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %d = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %m = fuse.mul %d, %y : (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %e = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %f = fuse.erf %e : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  return %a, %m, %f : tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>
}
