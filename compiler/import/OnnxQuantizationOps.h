//===- OnnxQuantizationOps.h - QuantizeLinear and DequantizeLinear -*- C++ -*-===//
//
// ONNX's quantization operators (opsets 10 to 21) as fuse.quantize_linear
// and fuse.dequantize_linear: per tensor (a scalar scale and zero point) or
// per axis (vectors along `axis`, reshaped here to broadcast along it), to
// and from i8 or u8. A missing zero point is a zero of the quantized type;
// scales of f16 or bf16 are widened to f32, and a DequantizeLinear with
// such a scale rounds its result back to that type, as ONNX types it.
// Blocked quantization (opset 21's block_size) and other quantized types
// (int4, int16, float8) are refused with the reason. ONNX Runtime's
// operator form (QuantFormat.QOperator) is lowered to the same ops:
// QLinearConv to DequantizeLinear (input, and weights along axis 0) ->
// Conv (its int32 bias as f32, scaled by x_scale * w_scale) ->
// QuantizeLinear, QLinearMatMul to DequantizeLinear (A, and B per column)
// -> MatMul -> QuantizeLinear. Listed in OnnxOpBuilders.cpp's op table.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXQUANTIZATIONOPS_H
#define FUSEC_COMPILER_IMPORT_ONNXQUANTIZATIONOPS_H

#include "compiler/import/OnnxBuildContext.h"

namespace fusec::import {

FailureOr<Results> buildQuantizeLinear(BuildContext &ctx);
FailureOr<Results> buildDequantizeLinear(BuildContext &ctx);
FailureOr<Results> buildQLinearConv(BuildContext &ctx);
FailureOr<Results> buildQLinearMatMul(BuildContext &ctx);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXQUANTIZATIONOPS_H
