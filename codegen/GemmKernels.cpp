//===- GemmKernels.cpp - Matrix-product kernels ---------------------------===//
//
// MatMul (numpy batching with broadcast) and Gemm (2-D, transposes, alpha,
// beta * C), blockIdx.z over the batch dimensions of the result, the
// epilogue (bias, activations, residual add) in registers before the store.
// Two templates, as the kernel's #fuse.config says (ir/KernelConfig.h
// decides which applies):
//
//  * tensor_core_gemm, fusec_gemm.h (3xTF32 fp32-accurate, or plain TF32)
//    or, for f16/bf16 operands, fusec_gemm_half.h (mma.m16n8k16):
//    the kernel only binds the matrices and generates the epilogue functor
//    the template calls per accumulator element;
//  * simt_gemm, fusec_simt.h, for what the tensor-core template does not
//    take (A transposed, K or N known only at run time): square output
//    tiles, A and B tiles staged in shared memory, one output element per
//    thread; the kernel generates the operands' addressing and the epilogue
//    as the template's functors;
//  * simt_gemv, fusec_gemv.h, for products of few rows (a variant the
//    runtime may choose, see KernelConfig.h): shaped by B's layout, with
//    the same generated epilogue as the tensor-core templates;
//  * wgmma_gemm, fusec_gemm_sm90.h (sm_90a plans): the same epilogue, the
//    operands read through two tensor maps (A: M x K; B as stored, N x K or
//    K x N) that the runtime encodes for each launch
//    (KernelLaunch::tensorMaps).
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"
#include "ir/ElementTypes.h"
#include "ir/StridedView.h"

#include <optional>

using namespace mlir;

namespace fusec::codegen {

namespace {

/// The batch coordinates of blockIdx.z and the matching (broadcast) A and B
/// matrices, as `A` and `B`, and `lda`, A's row stride as stored. A matrix
/// A that the kernel reads as rows of its input (rule operand-views:
/// ir/StridedView.h, matrixRowsOf) starts at the view's offset, its rows
/// the view's stride apart.
std::vector<std::string> emitMatrixBases(KernelBuilder &builder, std::string &code, Value lhs, Value rhs,
                                         ArrayRef<int64_t> outShape) {
  std::vector<std::string> coords = emitCoordinates(code, "  ", outShape.drop_back(2), "(long long)blockIdx.z", "b");
  auto matrixBase = [&](ArrayRef<int64_t> shape) {
    std::string offset = broadcastOffset(shape.drop_back(2), coords);
    return "(" + offset + ") * " + dimExpr(shape[shape.size() - 2]) + " * " + dimExpr(shape.back());
  };
  if (std::optional<fuse::MatrixRows> rows = fuse::matrixRowsOf(lhs)) {
    code += "  const auto *A = " + builder.inputName(rows->input) + " + " + std::to_string(rows->offset) + "LL;\n";
    code += "  const long long lda = " + std::to_string(rows->rowStride) + "LL;\n";
  } else {
    code += "  const auto *A = " + builder.inputName(lhs) + " + " + matrixBase(shapeOf(lhs)) + ";\n";
    code += "  const long long lda = " + dimExpr(shapeOf(lhs).back()) + ";\n";
  }
  code += "  const auto *B = " + builder.inputName(rhs) + " + " + matrixBase(shapeOf(rhs)) + ";\n";
  return coords;
}

/// alpha * acc + beta * C for Gemm, then the fused epilogue and the stores,
/// at (row, col) of the batch matrix `coords`.
LogicalResult emitEpilogue(KernelBuilder &builder, std::string &code, const std::string &indent, Operation *core,
                           ArrayRef<Operation *> epilogue, std::vector<std::string> coords,
                           std::optional<std::string> storeOffset = std::nullopt) {
  coords.push_back("row");
  coords.push_back("col");
  if (auto gemm = llvm::dyn_cast<fuse::GemmOp>(core)) {
    code += indent + "acc *= " + floatLiteral(gemm.getAlpha().convertToDouble()) + ";\n";
    if (gemm.getC())
      code += indent + "acc += " + floatLiteral(gemm.getBeta().convertToDouble()) + " * " +
              builder.valueAt(gemm.getC(), coords) + ";\n";
  }
  Value result = core->getResult(0);
  builder.bind(result, roundedTo(fuse::elementTypeOf(result), "acc"));
  if (failed(builder.emitElementwise(code, indent, epilogue, coords)))
    return failure();
  auto outShape = shapeOf(result);
  builder.emitStores(code, indent, outShape, storeOffset ? *storeOffset : linearOffset(outShape, coords), coords);
  return success();
}

/// Whether a folded product's rows can be scalar arguments: the M terms and
/// the rows per matrix fit them (FusecDivisor divides by less than 2^31).
bool genericRows(const BatchLinear &folded, int64_t rowsPerMatrix) {
  return folded.perBatch >= 0 && folded.perBatch <= int64_t{UINT32_MAX} && folded.fixed >= 0 &&
         folded.fixed <= int64_t{UINT32_MAX} && rowsPerMatrix >= 1 && rowsPerMatrix < (int64_t{1} << 31);
}

/// A header template's kernel (tensor-core GEMM, or the few-row GEMV): the
/// template's main loop, the generated epilogue as a lambda it calls per
/// element of C inside M x N. Blocks: M tiles on grid.x (M grows with the
/// batch), N tiles on grid.y, the batch matrices on grid.z unless they are
/// folded into M.
FailureOr<GeneratedKernel> emitTemplateGemm(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> epilogue,
                                            const fuse::KernelConfig &config, std::optional<BatchLinear> folded) {
  Value lhs = core->getOperand(0), rhs = core->getOperand(1);
  auto outShape = shapeOf(core->getResult(0)), lhsShape = shapeOf(lhs);
  const size_t outRank = outShape.size();
  const std::string rowsPerMatrix = dimExpr(outShape[outRank - 2]);
  std::string code;
  const bool transB = fuse::matrixProductShape(core).transB;
  const bool gemv = config.kind == fuse::KernelTemplate::SimtGemv;
  const bool wgmma = config.kind == fuse::KernelTemplate::WgmmaGemm;
  const std::string operand = "FusecDenseB<" + std::string(transB ? "true" : "false") + ", " +
                              std::to_string(config.bVector) + operandElementArgument(config) + ">";
  KernelLaunch launch;
  if (wgmma) {
    // Operands through TMA (tensor maps the runtime encodes), stages in
    // dynamic shared memory; the launch reserves what the config says. B
    // as stored: N x K (K-major) for transB, else K x N (kBNMajor).
    code +=
        "  using Gemm = FusecGemmSm90<" + builder.declareTile(TileDescription::hopperGemm(config, !transB)) + ">;\n";
    code += "  static_assert(Gemm::kSmemBytes == " + std::to_string(config.sharedBytes(true)) +
            ", \"the config's shared size\");\n";
    launch.sharedBytes = config.sharedBytes(true);
    const bool bf16 = config.operands == fuse::OperandType::BF16;
    const BatchLinear rows = folded ? *folded : linearNumel(outShape.drop_back(1));
    const int64_t k = lhsShape.back(), n = outShape[outRank - 1];
    auto position = [](Value input) { return uint32_t(llvm::cast<BlockArgument>(input).getArgNumber()); };
    launch.tensorMaps.push_back(TensorMapDesc::matrix(position(lhs), bf16, rows, k, uint32_t(config.blockM)));
    // B as stored: N x K (K-major) for transB, else K x N (N-major, read
    // in 64-wide N blocks).
    if (transB)
      launch.tensorMaps.push_back(
          TensorMapDesc::matrix(position(rhs), bf16, BatchLinear{0, n}, k, uint32_t(config.blockN)));
    else
      launch.tensorMaps.push_back(TensorMapDesc::matrix(position(rhs), bf16, BatchLinear{0, k}, n, 64));
    builder.setLaunchBounds(config.threads(), 1);
  } else if (gemv) {
    // The rows, columns and copy width are the config's; B's layout and
    // the tensors' element type the op's.
    code += "  using Gemm = FusecGemv<" +
            builder.declareTile(TileDescription::gemv(config, transB, storageType(fuse::elementTypeOf(lhs)))) + ">;\n";
    code += "  __shared__ float gemmShared[Gemm::kSmemFloats];\n";
  } else {
    code +=
        "  using Gemm = " + tensorCoreGemmType(config, builder.declareTile(TileDescription(config)), operand) + ";\n";
    emitPipelineSharedMemory(code, config.sharedBytes(transB), launch);
  }
  std::vector<std::string> coords;
  std::optional<std::string> storeOffset;
  // Rows folded over a range dimension (a [batch, seq, 32] activation by a
  // weight) count with its size, which the kernel reads (rangeVariable).
  const bool rangedRows = llvm::any_of(outShape.drop_back(1), isRangeDim);
  if (folded && !rangedRows && genericRows(*folded, outShape[outRank - 2])) {
    // The rows are scalar arguments: the kernels of a model compiled for
    // several sequence lengths (shape variants) differ only in them, so
    // they share one compiled program, as do same-sized layers of a model.
    const std::string rowsPerBatch = builder.scalarArgument(uint32_t(folded->perBatch));
    const std::string fixedRows = builder.scalarArgument(uint32_t(folded->fixed));
    const std::string matrixRows = builder.divisorArgument(uint32_t(outShape[outRank - 2]));
    code += "  const int M = int((long long)" + rowsPerBatch + " * batch + " + fixedRows + "), N = int(" +
            dimExpr(outShape[outRank - 1]) + "), K = int(" + dimExpr(lhsShape.back()) + ");\n";
    code += "  const FusecDivisor matrixRows = " + matrixRows + ";\n";
    code += "  const auto *A = " + builder.inputName(lhs) + ";\n";
    code += "  const long long lda = K;\n";
    code += "  const auto *B = " + builder.inputName(rhs) + ";\n";
    // The epilogue recovers the batch coordinates and the row in its matrix;
    // C's matrices are consecutive, so a folded row is a row of C.
    code += "  auto epilogue = [&](int foldedRow, int col, float acc) {\n";
    code += "    const unsigned matrix = matrixRows.divide(unsigned(foldedRow));\n";
    code += "    [[maybe_unused]] const long long row = foldedRow - (long long)matrix * matrixRows.divisor;\n";
    coords = emitCoordinates(code, "    ", outShape.drop_back(2), "(long long)matrix", "b");
    std::vector<std::string> dims;
    for (int64_t dim : outShape)
      dims.push_back(dimExpr(dim));
    dims[outRank - 2] = "(long long)matrixRows.divisor";
    builder.setIterationDims(outShape, dims);
    storeOffset = "(long long)foldedRow * N + col";
  } else if (folded) {
    code += "  const int M = int(" + productExpr(outShape, 0, outRank - 1) + "), N = int(" +
            dimExpr(outShape[outRank - 1]) + "), K = int(" + dimExpr(lhsShape.back()) + ");\n";
    code += "  const auto *A = " + builder.inputName(lhs) + ";\n";
    code += "  const long long lda = K;\n";
    code += "  const auto *B = " + builder.inputName(rhs) + ";\n";
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
  if (failed(emitEpilogue(builder, code, "    ", core, epilogue, coords, storeOffset)))
    return failure();
  code += "  };\n";
  if (wgmma) {
    code += "  (void)A;\n  (void)B;\n  (void)lda;\n";
    code += "  Gemm::run(&fusec_map0, &fusec_map1, M, N, K, blockIdx.x * Gemm::kBlockM, blockIdx.y * Gemm::kBlockN, "
            "epilogue);\n";
  } else if (gemv) {
    code += "  Gemm::run(A, lda, B, M, N, K, blockIdx.x * Gemm::kBlockM, blockIdx.y * Gemm::kBlockN, gemmShared, "
            "epilogue);\n";
  } else {
    code += "  " + operand + " bOperand(B, " + (transB ? "K" : "N") + ");\n";
    // Split-K takes no batch matrices on grid.z (KernelConfig checks).
    const std::string split = emitSplitK(code, config, fuse::kTileCount(core, config), launch);
    code += "  Gemm::run(A, lda, bOperand, M, N, K, blockIdx.x * Gemm::kBlockM, blockIdx.y * Gemm::kBlockN, "
            "reinterpret_cast<float *>(gemmShared), epilogue" +
            split + ");\n";
  }

  launch.block = {config.threads(), 1, 1};
  setGrid(launch, 0, folded ? outShape.drop_back(1) : outShape.drop_back(1).take_back(1), config.blockM);
  setGrid(launch, 1, outShape.take_back(1), config.blockN);
  if (!folded)
    setGrid(launch, 2, outShape.drop_back(2), 1);
  return builder.finish(code, launch,
                        {wgmma  ? std::string("fusec_gemm_sm90.h")
                         : gemv ? std::string("fusec_gemv.h")
                                : tensorCoreGemmHeader(config)});
}

/// The SIMT kernel (fusec_simt.h), for what the tensor-core template does
/// not take: the operands' addressing (transposes, batch matrices) and the
/// epilogue as functors of FusecSimtGemm, T x T tiles of C, rows on grid.y,
/// columns on grid.x, the batch matrices on grid.z.
FailureOr<GeneratedKernel> emitTiledGemm(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> epilogue,
                                         const fuse::KernelConfig &config) {
  Value lhs = core->getOperand(0), rhs = core->getOperand(1), result = core->getResult(0);
  auto lhsShape = shapeOf(lhs), outShape = shapeOf(result);
  auto gemm = llvm::dyn_cast<fuse::GemmOp>(core);
  bool transA = gemm && gemm.getTransA(), transB = gemm && gemm.getTransB();
  size_t outRank = outShape.size();
  std::string M = dimExpr(outShape[outRank - 2]), N = dimExpr(outShape[outRank - 1]);
  std::string K = dimExpr(transA ? lhsShape[lhsShape.size() - 2] : lhsShape.back());
  const int64_t tile = config.blockM;

  std::string code = "  using Gemm = FusecSimtGemm<" + builder.declareTile(TileDescription(config)) + ">;\n";
  code += "  __shared__ Gemm::Tile tileA, tileB;\n";
  code += "  static_assert(Gemm::kSmemBytes == " + std::to_string(config.sharedBytes(transB)) +
          ", \"the config's shared size\");\n";
  code += "  const long long M = " + M + ", N = " + N + ", K = " + K + ";\n";
  std::vector<std::string> coords = emitMatrixBases(builder, code, lhs, rhs, outShape);
  code += "  (void)lda;\n";
  code += "  auto loadA = [&](long long row, long long k) { return fusec_ld(&A[" +
          std::string(transA ? "k * M + row" : "row * lda + k") + "]); };\n";
  code += "  auto loadB = [&](long long k, long long col) { return fusec_ld(&B[" +
          std::string(transB ? "col * K + k" : "k * N + col") + "]); };\n";
  code += "  auto epilogue = [&](long long row, long long col, float acc) {\n";
  if (failed(emitEpilogue(builder, code, "    ", core, epilogue, coords)))
    return failure();
  code += "  };\n";
  code +=
      "  Gemm::run(M, N, K, (long long)blockIdx.y * Gemm::kTile, (long long)blockIdx.x * Gemm::kTile, tileA, tileB, "
      "loadA, loadB, epilogue);\n";

  KernelLaunch launch;
  launch.block = {tile, tile, 1};
  setGrid(launch, 0, outShape.take_back(1), tile);
  setGrid(launch, 1, outShape.drop_back(1).take_back(1), tile);
  setGrid(launch, 2, outShape.drop_back(2), 1);
  return builder.finish(code, launch, {"fusec_simt.h"});
}

} // namespace

FailureOr<GeneratedKernel> emitGemmKernel(KernelBuilder &builder) {
  std::vector<Operation *> epilogue;
  auto found = findTemplateCore(builder, fuse::OpClass::Gemm, epilogue);
  if (failed(found))
    return failure();
  Operation *core = *found;
  if (shapeOf(core->getOperand(0)).size() < 2 || shapeOf(core->getOperand(1)).size() < 2)
    return core->emitError() << "codegen supports matrix products of rank >= 2 operands";
  auto config = kernelConfigFor(builder, core);
  if (failed(config))
    return failure();
  if (config->kind == fuse::KernelTemplate::WgmmaGemm) // B is one matrix: A's rows always fold
    return emitTemplateGemm(builder, core, epilogue, *config, linearNumel(shapeOf(core->getResult(0)).drop_back(1)));
  if (config->kind == fuse::KernelTemplate::TensorCoreGemm || config->kind == fuse::KernelTemplate::SimtGemv) {
    // The rows of every batch matrix as one matrix when B has no batch
    // dimensions: A's matrices are consecutive in memory, and so are C's, so
    // a batch of M x K by K x N products is one (batch M) x K by K x N
    // product that fills the M tiles (an MLP's [batch, 8, 32] by [32, 64] is
    // 8 rows per matrix, but 8 * batch rows together).
    std::optional<BatchLinear> folded;
    if (fuse::matrixProductShape(core).foldedBatch)
      folded = linearNumel(shapeOf(core->getResult(0)).drop_back(1));
    return emitTemplateGemm(builder, core, epilogue, *config, folded);
  }
  return emitTiledGemm(builder, core, epilogue, *config);
}

} // namespace fusec::codegen
