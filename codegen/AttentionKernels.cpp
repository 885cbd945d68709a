//===- AttentionKernels.cpp - fuse.attention as one flash-attention kernel ===//
//
// Binds the (batch, head) matrix of blockIdx.x and the query tile of
// blockIdx.y to fusec_attention.h's main loop, with the mask read through
// numpy broadcasting as a lambda and the fused epilogue (elementwise ops on
// the attention output, then the stores) as another. Matrices go on grid.x
// because their count grows with the batch; query tiles on grid.y.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"
#include "ir/ElementTypes.h"

using namespace mlir;

namespace fusec::codegen {

FailureOr<GeneratedKernel> emitAttentionKernel(KernelBuilder &builder) {
  std::vector<Operation *> epilogue;
  auto found = findTemplateCore(builder, fuse::OpClass::Attention, epilogue);
  if (failed(found))
    return failure();
  auto attention = llvm::cast<fuse::AttentionOp>(*found);
  Value query = attention.getQuery(), key = attention.getKey(), value = attention.getValue();
  Value result = attention.getResult();
  auto qShape = shapeOf(query), outShape = shapeOf(result);
  const size_t rank = qShape.size();
  const int64_t headDim = qShape.back(), valueDim = outShape.back();
  if (headDim > fuse::kMaxAttentionHeadDim || valueDim > fuse::kMaxAttentionHeadDim)
    return attention.emitError() << "the attention kernel takes head dimensions up to " << fuse::kMaxAttentionHeadDim
                                 << ", got D = " << headDim << " and Dv = " << valueDim;
  const std::string seq = dimExpr(qShape[rank - 2]), keySeq = dimExpr(shapeOf(key)[rank - 2]);
  const std::string D = std::to_string(headDim), DV = std::to_string(valueDim);

  std::string code;
  code += "  using Attention = FusecAttention<" + D + ", " + DV + ">;\n";
  code += "  __shared__ Attention::Shared attentionShared;\n";
  code += "  const long long S = " + seq + ", SK = " + keySeq + ";\n";
  code += "  const long long matrix = (long long)blockIdx.x;\n";
  std::vector<std::string> coords = emitCoordinates(code, "  ", outShape.drop_back(2), "matrix", "b");
  code += "  const auto *Q = " + builder.inputName(query) + " + matrix * S * " + D + ";\n";
  code += "  const auto *K = " + builder.inputName(key) + " + matrix * SK * " + D + ";\n";
  code += "  const auto *V = " + builder.inputName(value) + " + matrix * SK * " + DV + ";\n";
  std::vector<std::string> at = coords;
  at.push_back("row");
  at.push_back("key");
  code += "  auto mask = [&](long long row, long long key) -> float { return " +
          (attention.getMask() ? builder.valueAt(attention.getMask(), at) : std::string("0.0f")) + "; };\n";
  at.back() = "col";
  code += "  auto epilogue = [&](long long row, long long col, float acc) {\n";
  builder.bind(result, roundedTo(fuse::elementTypeOf(result), "acc"));
  if (failed(builder.emitElementwise(code, "    ", epilogue, at)))
    return failure();
  builder.emitStores(code, "    ", outShape, linearOffset(outShape, at), at);
  code += "  };\n";
  code += "  Attention::run(Q, K, V, S, SK, " + floatLiteral(attention.getScale().convertToDouble()) + ", " +
          (attention.getCausal() ? "true" : "false") +
          ", (long long)blockIdx.y * Attention::kBlockM, attentionShared, mask, epilogue);\n";

  KernelLaunch launch;
  launch.block = {128, 1, 1};
  launch.grid[0] = gridFor(linearNumel(outShape.drop_back(2)), 1);
  launch.grid[1] = gridFor(linearNumel(qShape.drop_back(1).take_back(1)), 16);
  return builder.finish(code, launch, {"fusec_attention.h"});
}

} // namespace fusec::codegen
