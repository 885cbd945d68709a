// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The ops that build and apply masks: comparisons of any one element type
// give i1, logic combines i1, Where selects with numpy broadcasting.
// CHECK-LABEL: func.func @masks
// CHECK: fuse.equal {{.*}} : (tensor<?x8xi64>, tensor<1xi64>) -> tensor<?x8xi1>
// CHECK: fuse.less {{.*}} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xi1>
// CHECK: fuse.greater_or_equal {{.*}} -> tensor<?x8xi1>
// CHECK: fuse.not {{.*}} : (tensor<?x8xi1>) -> tensor<?x8xi1>
// CHECK: fuse.and {{.*}} -> tensor<?x8xi1>
// CHECK: fuse.xor {{.*}} -> tensor<?x8xi1>
// CHECK: fuse.where {{.*}} : (tensor<?x8xi1>, tensor<?x8xf32>, tensor<1xf32>) -> tensor<?x8xf32>
func.func @masks(%ids: tensor<?x8xi64>, %x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %pad = fuse.constant dense<0> : tensor<1xi64>
  %e = fuse.equal %ids, %pad : (tensor<?x8xi64>, tensor<1xi64>) -> tensor<?x8xi1>
  %l = fuse.less %x, %x : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xi1>
  %g = fuse.greater_or_equal %x, %x : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xi1>
  %n = fuse.not %e : (tensor<?x8xi1>) -> tensor<?x8xi1>
  %a = fuse.and %n, %l : (tensor<?x8xi1>, tensor<?x8xi1>) -> tensor<?x8xi1>
  %o = fuse.xor %a, %g : (tensor<?x8xi1>, tensor<?x8xi1>) -> tensor<?x8xi1>
  %inf = fuse.constant dense<0xFF800000> : tensor<1xf32>
  %w = fuse.where %o, %x, %inf : (tensor<?x8xi1>, tensor<?x8xf32>, tensor<1xf32>) -> tensor<?x8xf32>
  return %w : tensor<?x8xf32>
}

// -----

// The float elementwise ops of transformers and mobile CNNs.
// CHECK-LABEL: func.func @float_ops
// CHECK: fuse.leaky_relu {{.*}} {alpha = 1.000000e-01 : f32}
// CHECK: fuse.hard_sigmoid {{.*}} {alpha = 0.166666672 : f32} :
// CHECK: fuse.mod {{.*}} {fmod = true}
func.func @float_ops(%x: tensor<?x8xf16>) -> tensor<?x8xf16> {
  %0 = fuse.neg %x : (tensor<?x8xf16>) -> tensor<?x8xf16>
  %1 = fuse.exp %0 : (tensor<?x8xf16>) -> tensor<?x8xf16>
  %2 = fuse.log %1 : (tensor<?x8xf16>) -> tensor<?x8xf16>
  %3 = fuse.abs %2 : (tensor<?x8xf16>) -> tensor<?x8xf16>
  %4 = fuse.reciprocal %3 : (tensor<?x8xf16>) -> tensor<?x8xf16>
  %5 = fuse.leaky_relu %4 {alpha = 0.1 : f32} : (tensor<?x8xf16>) -> tensor<?x8xf16>
  %6 = fuse.hard_sigmoid %5 {alpha = 0.166666672 : f32, beta = 0.5 : f32} : (tensor<?x8xf16>) -> tensor<?x8xf16>
  %7 = fuse.hard_swish %6 : (tensor<?x8xf16>) -> tensor<?x8xf16>
  %8 = fuse.min %7, %x : (tensor<?x8xf16>, tensor<?x8xf16>) -> tensor<?x8xf16>
  %9 = fuse.max %8, %x : (tensor<?x8xf16>, tensor<?x8xf16>) -> tensor<?x8xf16>
  %10 = fuse.mod %9, %x {fmod = true} : (tensor<?x8xf16>, tensor<?x8xf16>) -> tensor<?x8xf16>
  return %10 : tensor<?x8xf16>
}

// -----

func.func @compare_mixed_types(%a: tensor<4xi64>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{'fuse.equal' op operands must share one element type: 'i64' and 'i32'}}
  %0 = fuse.equal %a, %b : (tensor<4xi64>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_no_broadcast(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'fuse.less' op operands do not broadcast: [4] and [3]}}
  %0 = fuse.less %a, %b : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_result_not_bool(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.greater' op result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = fuse.greater %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_condition_not_bool(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.where' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = fuse.where %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_mixed_values(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.where' op the selected operands must share one element type: 'f32' and 'f16'}}
  %0 = fuse.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_no_broadcast(%c: tensor<3xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.where' op operands do not broadcast: [3], [4] and [4]}}
  %0 = fuse.where %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @logic_on_floats(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'fuse.and' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = fuse.and %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @exp_on_integers(%a: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'fuse.exp' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = fuse.exp %a : (tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @hard_sigmoid_infinite(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.hard_sigmoid' op 'alpha' and 'beta' must be finite, got INF and 5.000000e-01}}
  %0 = fuse.hard_sigmoid %a {alpha = 0x7F800000 : f32, beta = 0.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
