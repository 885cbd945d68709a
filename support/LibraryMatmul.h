//===- LibraryMatmul.h - A matrix product a vendor library runs -----------===//
//
// A fused GEMM group that a vendor library can compute whole is written into
// the plan as a library variant (format 5.2, docs/plan-format.md): this
// description, in the plan's own row-major terms and independent of any
// library's conventions. The compiler derives it from a fused kernel's ops
// (ir/LibraryMatmul.h), the plan reader reads it back, and each library
// backend (cuBLASLt, runtime/cuda/CublasLtMatmul.h) maps it onto its API.
//
//   D[b] = act(alpha * op(A[b]) op(B[b]) + bias + beta * C[b]),  0 <= b < batchCount
//
// op(A) is m x k (A is stored k x m when transA), op(B) is k x n (stored
// n x k when transB), C and D are m x n; every matrix is dense and
// row-major. Matrix b of X starts b * strideX elements after X's first (0:
// one matrix shared by every b). `bias` holds n values added to every row
// of every matrix. The element types are those of the buffers the operands
// name; C, when present, has D's.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_SUPPORT_LIBRARYMATMUL_H
#define FUSEC_SUPPORT_LIBRARYMATMUL_H

#include "support/BatchLinear.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace fusec {

struct LibraryMatmul {
  /// The activation applied last: cuBLASLt's epilogues (GELU is its tanh
  /// approximation, as `Gelu` with approximate = "tanh" computes).
  enum class Activation { None, Relu, GeluTanh };
  /// How the products are computed: f32 arithmetic (f32 operands: as
  /// accurately as fusec's 3xTF32 templates; f16/bf16 operands: their
  /// tensor cores with f32 accumulation), or TF32 tensor cores for f32
  /// operands (fusec --precision=tf32).
  enum class Compute { F32, Tf32 };

  /// Operands, as positions in the kernel's buffer list (its inputs, then
  /// its outputs).
  size_t a = 0;
  size_t b = 1;
  size_t d = 2;
  std::optional<size_t> bias;
  std::optional<size_t> c;

  /// Rows of op(A) and D (grows with the batch when the batch matrices are
  /// folded into the rows), columns of D, the reduction.
  BatchLinear m;
  int64_t n = 1;
  int64_t k = 1;
  /// Matrices per launch (grows with the batch when each batch element is
  /// its own matrix).
  BatchLinear batchCount{0, 1};
  int64_t strideA = 0;
  int64_t strideB = 0;
  int64_t strideC = 0;
  int64_t strideD = 0;
  bool transA = false;
  bool transB = false;
  double alpha = 1.0;
  double beta = 0.0;
  Activation activation = Activation::None;
  Compute compute = Compute::F32;

  friend bool operator==(const LibraryMatmul &x, const LibraryMatmul &y) {
    return x.a == y.a && x.b == y.b && x.d == y.d && x.bias == y.bias && x.c == y.c && x.m == y.m && x.n == y.n &&
           x.k == y.k && x.batchCount == y.batchCount && x.strideA == y.strideA && x.strideB == y.strideB &&
           x.strideC == y.strideC && x.strideD == y.strideD && x.transA == y.transA && x.transB == y.transB &&
           x.alpha == y.alpha && x.beta == y.beta && x.activation == y.activation && x.compute == y.compute;
  }
};

/// The library variant's `library` name cuBLASLt matmuls carry.
inline constexpr const char *kCublasLtLibrary = "cublaslt";

/// Manifest spellings of the enums: "none", "relu", "gelu_tanh"; "f32",
/// "tf32".
inline const char *activationName(LibraryMatmul::Activation activation) {
  switch (activation) {
  case LibraryMatmul::Activation::Relu:
    return "relu";
  case LibraryMatmul::Activation::GeluTanh:
    return "gelu_tanh";
  case LibraryMatmul::Activation::None:
    break;
  }
  return "none";
}
inline const char *computeName(LibraryMatmul::Compute compute) {
  return compute == LibraryMatmul::Compute::Tf32 ? "tf32" : "f32";
}

} // namespace fusec

#endif // FUSEC_SUPPORT_LIBRARYMATMUL_H
