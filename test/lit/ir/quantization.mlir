// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// QuantizeLinear to i8 or u8 (the zero point's type) and DequantizeLinear
// back to f32, per tensor (scalar parameters) and per axis (parameters
// shaped to broadcast along the axis, here the channels of NCHW).
// CHECK-LABEL: func.func @round_trip
// CHECK: fuse.quantize_linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x4x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4x2x2xui8>
// CHECK: fuse.dequantize_linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x4x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x4x2x2xf32>
// CHECK: fuse.quantize_linear %{{.*}} : (tensor<?x4x2x2xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xi8>) -> tensor<?x4x2x2xi8>
func.func @round_trip(%x: tensor<?x4x2x2xf32>, %s: tensor<f32>, %z: tensor<ui8>, %sc: tensor<1x4x1x1xf32>,
                      %zc: tensor<1x4x1x1xi8>) -> (tensor<?x4x2x2xf32>, tensor<?x4x2x2xi8>) {
  %q = fuse.quantize_linear %x, %s, %z : (tensor<?x4x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4x2x2xui8>
  %d = fuse.dequantize_linear %q, %s, %z : (tensor<?x4x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x4x2x2xf32>
  %c = fuse.quantize_linear %d, %sc, %zc : (tensor<?x4x2x2xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xi8>) -> tensor<?x4x2x2xi8>
  return %d, %c : tensor<?x4x2x2xf32>, tensor<?x4x2x2xi8>
}

// -----

func.func @scale_not_f32(%x: tensor<4xf16>, %s: tensor<f16>, %z: tensor<i8>) -> tensor<4xi8> {
  // expected-error @+1 {{'fuse.quantize_linear' op the scale must be f32, got 'f16'}}
  %q = fuse.quantize_linear %x, %s, %z : (tensor<4xf16>, tensor<f16>, tensor<i8>) -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @parameters_differ(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %z: tensor<i8>) -> tensor<2x4xi8> {
  // expected-error @+1 {{'fuse.quantize_linear' op the scale [4] and the zero point [] must have one shape}}
  %q = fuse.quantize_linear %x, %s, %z : (tensor<2x4xf32>, tensor<4xf32>, tensor<i8>) -> tensor<2x4xi8>
  return %q : tensor<2x4xi8>
}

// -----

func.func @not_along_an_axis(%x: tensor<2x4xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x4xi8> {
  // expected-error @+1 {{'fuse.quantize_linear' op the scale [3] does not broadcast to the input [2, 4]}}
  %q = fuse.quantize_linear %x, %s, %z : (tensor<2x4xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x4xi8>
  return %q : tensor<2x4xi8>
}

// -----

func.func @widening_parameters(%x: tensor<4xf32>, %s: tensor<2x4xf32>, %z: tensor<2x4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{'fuse.quantize_linear' op the scale [2, 4] does not broadcast to the input [4]}}
  %q = fuse.quantize_linear %x, %s, %z : (tensor<4xf32>, tensor<2x4xf32>, tensor<2x4xi8>) -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @mixed_quantized_types(%q: tensor<4xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.dequantize_linear' op the input ('i8') and the zero point ('ui8') must share one quantized type}}
  %d = fuse.dequantize_linear %q, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @float_zero_point(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<f32>) -> tensor<4xi8> {
  // expected-error @+1 {{'fuse.quantize_linear' op operand #2 must be ranked tensor of 8-bit signless integer or 8-bit unsigned integer values}}
  %q = fuse.quantize_linear %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xi8>
  return %q : tensor<4xi8>
}
