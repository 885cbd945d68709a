// RUN: fusec-opt %s -canonicalize | FileCheck %s

// QuantizeLinear and DequantizeLinear of constants fold, per tensor and per
// axis, with the CPU reference's arithmetic: 0.25 / 0.5 = 0.5 rounds to 0
// (ties to even) and 1.25 / 0.5 = 2.5 to 2, 300 saturates at 127; then
// (q - zero point) * scale along axis 0.
// CHECK-LABEL: func.func @constants
// CHECK-DAG: fuse.constant dense<[3, 3, 5, 127]> : tensor<4xi8>
// CHECK-DAG: fuse.constant dense<{{\[}}[-1.500000e+00, 5.000000e-01], [2.500000e-01, 7.500000e-01]]> : tensor<2x2xf32>
// CHECK-NOT: fuse.quantize_linear
// CHECK-NOT: fuse.dequantize_linear
func.func @constants() -> (tensor<4xi8>, tensor<2x2xf32>) {
  %x = fuse.constant dense<[0.25, 0.0, 1.25, 300.0]> : tensor<4xf32>
  %s = fuse.constant dense<0.5> : tensor<f32>
  %z = fuse.constant dense<3> : tensor<i8>
  %q = fuse.quantize_linear %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %w = fuse.constant dense<[[-2, 2], [1, 3]]> : tensor<2x2xi8>
  %ws = fuse.constant dense<[[0.5], [0.25]]> : tensor<2x1xf32>
  %wz = fuse.constant dense<[[1], [0]]> : tensor<2x1xi8>
  %d = fuse.dequantize_linear %w, %ws, %wz : (tensor<2x2xi8>, tensor<2x1xf32>, tensor<2x1xi8>) -> tensor<2x2xf32>
  return %q, %d : tensor<4xi8>, tensor<2x2xf32>
}

// A run-time input does not fold.
// CHECK-LABEL: func.func @runtime
// CHECK: fuse.dequantize_linear
func.func @runtime(%q: tensor<?x2xui8>) -> tensor<?x2xf32> {
  %s = fuse.constant dense<0.5> : tensor<f32>
  %z = fuse.constant dense<128> : tensor<ui8>
  %d = fuse.dequantize_linear %q, %s, %z : (tensor<?x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x2xf32>
  return %d : tensor<?x2xf32>
}
