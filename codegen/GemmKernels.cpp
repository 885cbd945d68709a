//===- GemmKernels.cpp - Matrix-product kernels ---------------------------===//
//
// MatMul (numpy batching with broadcast) and Gemm (2-D, transposes, alpha,
// beta * C), blockIdx.z over the batch dimensions of the result, the
// epilogue (bias, activations, residual add) in registers before the store.
// Two templates:
//
//  * the tensor-core template of fusec_gemm.h (3xTF32, fp32-accurate) when A
//    is not transposed and K and N are static: the kernel only binds the
//    matrices and generates the epilogue functor the template calls per
//    accumulator element;
//  * otherwise the SIMT tiled kernel: square output tiles (chooseTile), A and
//    B tiles staged in shared memory, one output element per thread.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"

#include <optional>

using namespace mlir;

namespace fusec::codegen {

namespace {

/// A FusecGemmTf32 instantiation (see fusec_gemm.h for the parameters).
struct TensorCoreGemmConfig {
  int64_t blockM = 64, blockN = 64, blockK = 16, warpM = 32, warpN = 32, stages = 4, vector = 4;
  bool bTransposed = false;
  int64_t passes = 3;

  int64_t threads() const { return 32 * (blockM / warpM) * (blockN / warpN); }
  std::string typeName() const {
    return "FusecGemmTf32<" + std::to_string(blockM) + ", " + std::to_string(blockN) + ", " + std::to_string(blockK) +
           ", " + std::to_string(warpM) + ", " + std::to_string(warpN) + ", " + std::to_string(stages) + ", " +
           std::to_string(vector) + ", " + (bTransposed ? "true" : "false") + ", " + std::to_string(passes) + ">";
  }
};

/// The batch the 32-bit index math of the tensor-core template must still
/// hold at: far above the largest batch bucket.
constexpr int64_t kLargestBatch = int64_t(1) << 16;

/// The tensor-core configuration for a product of M x K by K x N matrices
/// (M at most `largestM` at any batch), or nothing when the template does
/// not apply: A transposed, K or N known only at run time, or offsets inside
/// one matrix beyond 32 bits. Tiles stay within 48 KiB of static shared
/// memory (4 stages of 64 x 16 A and B).
std::optional<TensorCoreGemmConfig> chooseTensorCoreConfig(bool transA, bool transB, int64_t largestM, int64_t n,
                                                           int64_t k) {
  if (transA || ShapedType::isDynamic(n) || ShapedType::isDynamic(k))
    return std::nullopt;
  const int64_t limit = int64_t(1) << 31;
  if (largestM * k >= limit || k * n >= limit || (largestM + 64) * k >= limit)
    return std::nullopt;
  TensorCoreGemmConfig config;
  config.bTransposed = transB;
  if (n <= 32) { // a narrow product: half the columns per block, the same 4 warps
    config.blockN = 32;
    config.warpN = 16;
  }
  // 16-byte copies need rows of whole vectors: lda = K, ldb = N (or K).
  const int64_t ldb = transB ? k : n;
  config.vector = k % 4 == 0 && ldb % 4 == 0 ? 4 : 1;
  return config;
}

/// The batch coordinates of blockIdx.z and the matching (broadcast) A and B
/// matrices, as `A` and `B`.
std::vector<std::string> emitMatrixBases(KernelBuilder &builder, std::string &code, Value lhs, Value rhs,
                                         ArrayRef<int64_t> outShape) {
  std::vector<std::string> coords = emitCoordinates(code, "  ", outShape.drop_back(2), "(long long)blockIdx.z", "b");
  auto matrixBase = [&](ArrayRef<int64_t> shape) {
    std::string offset = broadcastOffset(shape.drop_back(2), coords);
    return "(" + offset + ") * " + dimExpr(shape[shape.size() - 2]) + " * " + dimExpr(shape.back());
  };
  code += "  const float *A = " + builder.inputName(lhs) + " + " + matrixBase(shapeOf(lhs)) + ";\n";
  code += "  const float *B = " + builder.inputName(rhs) + " + " + matrixBase(shapeOf(rhs)) + ";\n";
  return coords;
}

/// alpha * acc + beta * C for Gemm, then the fused epilogue and the stores,
/// at (row, col) of the batch matrix `coords`.
LogicalResult emitEpilogue(KernelBuilder &builder, std::string &code, const std::string &indent, Operation *core,
                           ArrayRef<Operation *> epilogue, std::vector<std::string> coords) {
  coords.push_back("row");
  coords.push_back("col");
  if (auto gemm = llvm::dyn_cast<fuse::GemmOp>(core)) {
    code += indent + "acc *= " + floatLiteral(gemm.getAlpha().convertToDouble()) + ";\n";
    if (gemm.getC())
      code += indent + "acc += " + floatLiteral(gemm.getBeta().convertToDouble()) + " * " +
              builder.valueAt(gemm.getC(), coords) + ";\n";
  }
  Value result = core->getResult(0);
  builder.bind(result, "acc");
  if (failed(builder.emitElementwise(code, indent, epilogue, coords)))
    return failure();
  auto outShape = shapeOf(result);
  builder.emitStores(code, indent, outShape, linearOffset(outShape, coords), coords);
  return success();
}

/// The rows of every batch matrix of a product whose B has no batch
/// dimensions, as one matrix: A's matrices are consecutive in memory, and so
/// are C's, so a batch of M x K by K x N products is one (batch M) x K by
/// K x N product that fills the M tiles (an MLP's [batch, 8, 32] by [32, 64]
/// is 8 rows per matrix, but 8 * batch rows together). Null when the batch
/// cannot be folded: B batched, or the rows per matrix known only at run time.
std::optional<BatchLinear> foldedRows(ArrayRef<int64_t> lhsShape, ArrayRef<int64_t> rhsShape,
                                      ArrayRef<int64_t> outShape) {
  if (outShape.size() < 3 || rhsShape.size() != 2 || lhsShape.size() != outShape.size() ||
      ShapedType::isDynamic(outShape[outShape.size() - 2]))
    return std::nullopt;
  return linearNumel(outShape.drop_back(1));
}

/// The tensor-core kernel: the template's main loop, the generated epilogue
/// as a lambda it calls per accumulator element inside M x N. Blocks: M
/// tiles on grid.x (M grows with the batch), N tiles on grid.y, the batch
/// matrices on grid.z unless they are folded into M.
FailureOr<GeneratedKernel> emitTensorCoreGemm(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> epilogue,
                                              const TensorCoreGemmConfig &config, std::optional<BatchLinear> folded) {
  Value lhs = core->getOperand(0), rhs = core->getOperand(1);
  auto outShape = shapeOf(core->getResult(0)), lhsShape = shapeOf(lhs);
  const size_t outRank = outShape.size();
  const std::string rowsPerMatrix = dimExpr(outShape[outRank - 2]);
  std::string code;
  code += "  using Gemm = " + config.typeName() + ";\n";
  code += "  __shared__ float4 gemmShared[Gemm::kSmemFloats / 4]; // float4: 16-byte aligned\n";
  std::vector<std::string> coords;
  if (folded) {
    code += "  const int M = int(" + std::to_string(folded->perBatch) + "LL * batch + " +
            std::to_string(folded->fixed) + "LL), N = int(" + dimExpr(outShape[outRank - 1]) + "), K = int(" +
            dimExpr(lhsShape.back()) + ");\n";
    code += "  const float *A = " + builder.inputName(lhs) + ";\n";
    code += "  const float *B = " + builder.inputName(rhs) + ";\n";
    // The epilogue recovers the batch coordinates and the row in its matrix.
    code += "  auto epilogue = [&](int foldedRow, int col, float acc) {\n";
    code += "    const long long row = foldedRow % " + rowsPerMatrix + ";\n";
    coords =
        emitCoordinates(code, "    ", outShape.drop_back(2), "(long long)(foldedRow / " + rowsPerMatrix + ")", "b");
  } else {
    code += "  const int M = int(" + rowsPerMatrix + "), N = int(" + dimExpr(outShape[outRank - 1]) + "), K = int(" +
            dimExpr(lhsShape.back()) + ");\n";
    coords = emitMatrixBases(builder, code, lhs, rhs, outShape);
    code += "  auto epilogue = [&](int row, int col, float acc) {\n";
  }
  if (failed(emitEpilogue(builder, code, "    ", core, epilogue, coords)))
    return failure();
  code += "  };\n";
  code += "  Gemm::run(A, K, B, " + std::string(config.bTransposed ? "K" : "N") +
          ", M, N, K, blockIdx.x * Gemm::kBlockM, blockIdx.y * Gemm::kBlockN, reinterpret_cast<float *>(gemmShared), "
          "epilogue);\n";

  KernelLaunch launch;
  launch.block = {config.threads(), 1, 1};
  launch.grid[0] = gridFor(folded ? *folded : linearNumel(outShape.drop_back(1).take_back(1)), config.blockM);
  launch.grid[1] = gridFor(linearNumel(outShape.take_back(1)), config.blockN);
  launch.grid[2] = folded ? GridDim{} : gridFor(linearNumel(outShape.drop_back(2)), 1);
  return builder.finish(code, launch, {"fusec_gemm.h"});
}

/// The SIMT kernel, for what the tensor-core template does not take.
FailureOr<GeneratedKernel> emitTiledGemm(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> epilogue) {
  Value lhs = core->getOperand(0), rhs = core->getOperand(1), result = core->getResult(0);
  auto lhsShape = shapeOf(lhs), outShape = shapeOf(result);
  auto gemm = llvm::dyn_cast<fuse::GemmOp>(core);
  bool transA = gemm && gemm.getTransA(), transB = gemm && gemm.getTransB();
  size_t outRank = outShape.size();
  std::string M = dimExpr(outShape[outRank - 2]), N = dimExpr(outShape[outRank - 1]);
  std::string K = dimExpr(transA ? lhsShape[lhsShape.size() - 2] : lhsShape.back());
  // A batch-sized side grows with the batch: it never makes the tile small.
  auto extent = [](int64_t dim) { return ShapedType::isDynamic(dim) ? int64_t(1) << 30 : dim; };
  const int64_t tile = chooseTile(extent(outShape[outRank - 2]), extent(outShape[outRank - 1]));
  const std::string T = std::to_string(tile);

  std::string code;
  code += "  __shared__ float tileA[" + T + "][" + std::to_string(tile + 1) + "];\n  __shared__ float tileB[" + T +
          "][" + std::to_string(tile + 1) + "];\n";
  code += "  const int tx = threadIdx.x, ty = threadIdx.y;\n";
  code += "  const long long row = (long long)blockIdx.y * " + T + " + ty;\n";
  code += "  const long long col = (long long)blockIdx.x * " + T + " + tx;\n";
  code += "  const long long M = " + M + ", N = " + N + ", K = " + K + ";\n";
  std::vector<std::string> coords = emitMatrixBases(builder, code, lhs, rhs, outShape);
  code += "  float acc = 0.0f;\n";
  code += "  for (long long k0 = 0; k0 < K; k0 += " + T + ") {\n";
  std::string aIndex = transA ? "(k0 + tx) * M + row" : "row * K + k0 + tx";
  std::string bIndex = transB ? "col * K + k0 + ty" : "(k0 + ty) * N + col";
  code += "    tileA[ty][tx] = (row < M && k0 + tx < K) ? __ldg(&A[" + aIndex + "]) : 0.0f;\n";
  code += "    tileB[ty][tx] = (col < N && k0 + ty < K) ? __ldg(&B[" + bIndex + "]) : 0.0f;\n";
  code += "    __syncthreads();\n";
  code += "#pragma unroll\n";
  code += "    for (int kk = 0; kk < " + T + "; ++kk)\n";
  code += "      acc += tileA[ty][kk] * tileB[kk][tx];\n";
  code += "    __syncthreads();\n";
  code += "  }\n";
  code += "  if (row < M && col < N) {\n";
  if (failed(emitEpilogue(builder, code, "    ", core, epilogue, coords)))
    return failure();
  code += "  }\n";

  KernelLaunch launch;
  launch.block = {tile, tile, 1};
  launch.grid[0] = gridFor(linearNumel(outShape.take_back(1)), tile);
  launch.grid[1] = gridFor(linearNumel(outShape.drop_back(1).take_back(1)), tile);
  launch.grid[2] = gridFor(linearNumel(outShape.drop_back(2)), 1);
  return builder.finish(code, launch);
}

} // namespace

FailureOr<GeneratedKernel> emitGemmKernel(KernelBuilder &builder) {
  std::vector<Operation *> epilogue;
  auto found = findTemplateCore(builder, fuse::OpClass::Gemm, epilogue);
  if (failed(found))
    return failure();
  Operation *core = *found;
  auto lhsShape = shapeOf(core->getOperand(0)), rhsShape = shapeOf(core->getOperand(1));
  auto outShape = shapeOf(core->getResult(0));
  if (lhsShape.size() < 2 || rhsShape.size() < 2)
    return core->emitError() << "codegen supports matrix products of rank >= 2 operands";
  auto gemm = llvm::dyn_cast<fuse::GemmOp>(core);
  const bool transA = gemm && gemm.getTransA(), transB = gemm && gemm.getTransB();
  const size_t outRank = outShape.size();
  const int64_t k = transA ? lhsShape[lhsShape.size() - 2] : lhsShape.back();
  std::optional<BatchLinear> folded = foldedRows(lhsShape, rhsShape, outShape);
  // The most rows the template's matrix A has at any batch.
  const int64_t rows = outShape[outRank - 2];
  const int64_t largestM = folded ? folded->at(kLargestBatch) : ShapedType::isDynamic(rows) ? kLargestBatch : rows;
  if (auto config = chooseTensorCoreConfig(transA, transB, largestM, outShape[outRank - 1], k))
    return emitTensorCoreGemm(builder, core, epilogue, *config, folded);
  return emitTiledGemm(builder, core, epilogue);
}

} // namespace fusec::codegen
