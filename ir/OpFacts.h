//===- OpFacts.h - What the compiler knows of each fuse op ------*- C++ -*-===//
//
// Each ONNX-semantics op of the dialect declares its facts once, in ODS
// (FuseOps.td: a Fuse_Facts argument of Fuse_OnnxOp), and every stage reads
// them through OpFactsInterface instead of keeping its own list of op
// types: classification (the kernel an op needs, ir/OpClassification.h),
// the cost model (FLOPs per element), epilogue formation (which ops are a
// conv/GEMM epilogue's activation) and mixed precision (which ops compute
// in f16/bf16, which stay in f32). An op without facts does not compile.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_OPFACTS_H
#define FUSEC_IR_OPFACTS_H

namespace fusec::fuse {

/// The kind of kernel an op needs.
enum class OpClass {
  /// Convolution (implicit GEMM or direct).
  Conv,
  /// Matrix products: Gemm, MatMul.
  Gemm,
  /// One output element from the same-index input elements (with broadcasting).
  Elementwise,
  /// Reductions along axes: Softmax, LayerNormalization, Reduce*, GAP.
  Reduction,
  /// Sliding-window pooling.
  Pool,
  /// Copies and index shuffles: Pad, Reshape, Flatten, Transpose, Concat.
  DataMovement,
  /// Fused scaled dot-product attention (flash-attention template).
  Attention,
  /// Not a compute op (constants, terminators, superkernels).
  Other,
};

/// What fuse-auto-mixed-precision does with an op.
enum class AmpPrecision {
  /// Computes in f16/bf16: the products (conv, matmul, attention), whose
  /// accumulators stay f32 in every template.
  Half,
  /// Stays in f32: reductions and functions whose error or range f16/bf16
  /// would spoil (softmax, norms, exp, log, pow, erf, trigonometry).
  F32,
  /// Takes the precision of its inputs (data movement, arithmetic,
  /// comparisons, piecewise-linear activations).
  Follow,
};

} // namespace fusec::fuse

#endif // FUSEC_IR_OPFACTS_H
