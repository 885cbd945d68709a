//===- GemmKernels.cpp - Matrix-product kernels ---------------------------===//
//
// MatMul (numpy batching with broadcast) and Gemm (2-D, transposes, alpha,
// beta * C) as one tiled kernel: square output tiles (chooseTile), A and B tiles staged in
// shared memory, one output element per thread, blockIdx.z over the batch
// dimensions of the result. The epilogue (bias, activations, residual add)
// runs in registers before the store.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"

using namespace mlir;

namespace fusec::codegen {

FailureOr<GeneratedKernel> emitGemmKernel(KernelBuilder &builder) {
  std::vector<Operation *> epilogue;
  auto found = findTemplateCore(builder, fuse::OpClass::Gemm, epilogue);
  if (failed(found))
    return failure();
  Operation *core = *found;

  Value lhs = core->getOperand(0), rhs = core->getOperand(1), result = core->getResult(0);
  auto lhsShape = shapeOf(lhs), rhsShape = shapeOf(rhs), outShape = shapeOf(result);
  if (lhsShape.size() < 2 || rhsShape.size() < 2)
    return core->emitError() << "codegen supports matrix products of rank >= 2 operands";
  auto gemm = llvm::dyn_cast<fuse::GemmOp>(core);
  bool transA = gemm && gemm.getTransA(), transB = gemm && gemm.getTransB();
  size_t outRank = outShape.size();
  std::string M = dimExpr(outShape[outRank - 2]), N = dimExpr(outShape[outRank - 1]);
  std::string K = dimExpr(transA ? lhsShape[lhsShape.size() - 2] : lhsShape.back());
  std::string a = builder.inputName(lhs), b = builder.inputName(rhs);
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
  // Batch coordinates of this block's output matrix, and the matching
  // (broadcast) matrices of A and B.
  llvm::ArrayRef<int64_t> batchShape = outShape.drop_back(2);
  std::vector<std::string> coords = emitCoordinates(code, "  ", batchShape, "(long long)blockIdx.z", "b");
  auto matrixBase = [&](ArrayRef<int64_t> shape) {
    std::string offset = broadcastOffset(shape.drop_back(2), coords);
    return "(" + offset + ") * " + dimExpr(shape[shape.size() - 2]) + " * " + dimExpr(shape.back());
  };
  code += "  const float *A = " + a + " + " + matrixBase(lhsShape) + ";\n";
  code += "  const float *B = " + b + " + " + matrixBase(rhsShape) + ";\n";
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
  std::vector<std::string> outCoords = coords;
  outCoords.push_back("row");
  outCoords.push_back("col");
  if (gemm) {
    code += "    acc *= " + floatLiteral(gemm.getAlpha().convertToDouble()) + ";\n";
    if (gemm.getC())
      code += "    acc += " + floatLiteral(gemm.getBeta().convertToDouble()) + " * " +
              builder.valueAt(gemm.getC(), outCoords) + ";\n";
  }
  builder.bind(result, "acc");
  if (failed(builder.emitElementwise(code, "    ", epilogue, outCoords)))
    return failure();
  builder.emitStores(code, "    ", outShape, linearOffset(outShape, outCoords), outCoords);
  code += "  }\n";

  KernelLaunch launch;
  launch.block = {tile, tile, 1};
  launch.grid[0] = gridFor(linearNumel(outShape.take_back(1)), tile);
  launch.grid[1] = gridFor(linearNumel(outShape.drop_back(1).take_back(1)), tile);
  launch.grid[2] = gridFor(linearNumel(batchShape), 1);
  return builder.finish(code, launch);
}

} // namespace fusec::codegen
