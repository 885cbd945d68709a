//===- LibraryMatmul.cpp - Which fused GEMMs a vendor library computes ----===//

#include "ir/LibraryMatmul.h"

#include "ir/ElementTypes.h"
#include "ir/KernelConfig.h"
#include "ir/OpClassification.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace fusec::fuse {

namespace {

ArrayRef<int64_t> shapeOf(Value value) { return llvm::cast<RankedTensorType>(value.getType()).getShape(); }

/// Elements of `shape` as a function of the batch (one dimension at most is
/// the batch, as everywhere in a plan).
BatchLinear numelOf(ArrayRef<int64_t> shape) {
  int64_t constant = 1;
  bool batched = false;
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      batched = true;
    else
      constant *= dim;
  }
  return batched ? BatchLinear{constant, 0} : BatchLinear{0, constant};
}

bool productElement(Type type) { return type.isF32() || type.isF16() || type.isBF16(); }

LibraryMatmulMatch refuse(std::string reason) { return LibraryMatmulMatch{std::nullopt, std::move(reason)}; }

/// Whether `operand` holds one value per output column: [N], or [1, ..., N].
bool isColumnVector(Value operand, int64_t columns) {
  ArrayRef<int64_t> shape = shapeOf(operand);
  if (shape.empty() || shape.back() != columns)
    return false;
  return llvm::all_of(shape.drop_back(), [](int64_t dim) { return dim == 1; });
}

} // namespace

LibraryMatmulMatch matchLibraryMatmul(SuperkernelOp kernel) {
  Block &body = kernel.getBody().front();
  Operation *core = nullptr;
  for (Operation &op : body.without_terminator()) {
    const OpClass opClass = classifyOp(&op);
    if (opClass == OpClass::Conv)
      return refuse("a convolution is not a matrix product (ir/LibraryConv.h)");
    if (opClass == OpClass::Attention)
      return refuse("attention has no library variant");
    if (opClass == OpClass::Gemm) {
      if (core)
        return refuse("the kernel holds two matrix products");
      core = &op;
    } else if (!core) {
      return refuse("'" + op.getName().stripDialect().str() +
                    "' before the product (a library reads its operands as "
                    "they are in memory)");
    }
  }
  if (!core)
    return refuse("no matrix product");
  if (body.getTerminator()->getNumOperands() != 1)
    return refuse("the kernel writes " + std::to_string(body.getTerminator()->getNumOperands()) +
                  " values (a library call writes one)");
  Value lhs = core->getOperand(0), rhs = core->getOperand(1);
  auto lhsArg = llvm::dyn_cast<BlockArgument>(lhs), rhsArg = llvm::dyn_cast<BlockArgument>(rhs);
  if (!lhsArg || !rhsArg)
    return refuse("a product operand is computed inside the kernel");
  const Type aType = elementTypeOf(lhs);
  if (aType != elementTypeOf(rhs) || !productElement(aType))
    return refuse("the product's operands are not both f32, f16 or bf16");

  LibraryMatmul m;
  m.a = lhsArg.getArgNumber();
  m.b = rhsArg.getArgNumber();
  const MatrixProductShape product = matrixProductShape(core);
  m.transA = product.transA;
  m.transB = product.transB;
  m.k = product.k;
  m.n = product.n;
  ArrayRef<int64_t> lhsShape = shapeOf(lhs), rhsShape = shapeOf(rhs), out = shapeOf(core->getResult(0));
  if (lhsShape.size() < 2 || rhsShape.size() < 2)
    return refuse("a product operand has rank below 2");
  if (ShapedType::isDynamic(m.k) || ShapedType::isDynamic(m.n))
    return refuse("k or n is the batch size");
  const size_t rank = out.size();
  const ArrayRef<int64_t> batchDims = out.drop_back(2);
  if (rhsShape.size() == 2) {
    // B has no batch matrices: A's consecutive matrices are one tall one.
    m.m = numelOf(out.drop_back(1));
  } else {
    // One product per batch matrix; A may be one matrix shared by all.
    if (rhsShape.drop_back(2) != batchDims || (lhsShape.size() != 2 && lhsShape.drop_back(2) != batchDims))
      return refuse("the batch dimensions broadcast");
    m.m = numelOf(out.slice(rank - 2, 1));
    if (!m.m.isFixed())
      return refuse("the rows of each batch matrix are the batch size");
    m.batchCount = numelOf(batchDims);
    m.strideA = lhsShape.size() == 2 ? 0 : m.m.fixed * m.k;
    m.strideB = m.k * m.n;
    m.strideD = m.m.fixed * m.n;
  }

  // The epilogue, in order: bias and residual (each once, before the
  // activation: cuBLASLt computes act(alpha AB + beta C + bias)), an
  // activation, and casts of the value being computed.
  Value chain = core->getResult(0);
  std::optional<size_t> residualArg;
  bool activated = false;
  if (auto gemm = llvm::dyn_cast<GemmOp>(core)) {
    m.alpha = gemm.getAlpha().convertToDouble();
    if (Value c = gemm.getC()) {
      auto cArg = llvm::dyn_cast<BlockArgument>(c);
      if (!cArg)
        return refuse("Gemm's C is computed inside the kernel");
      if (isColumnVector(c, m.n) && gemm.getBeta().convertToDouble() == 1.0) {
        m.bias = cArg.getArgNumber();
      } else if (shapeOf(c) == out) {
        residualArg = cArg.getArgNumber();
        m.beta = gemm.getBeta().convertToDouble();
      } else {
        return refuse("Gemm's C is neither a bias row nor of the output's shape");
      }
    }
  }
  for (Operation *op = core->getNextNode(); op && op != body.getTerminator(); op = op->getNextNode()) {
    if (!chain.hasOneUse())
      return refuse("an epilogue value feeds several ops (a GELU written out in its erf form, say), which no library "
                    "epilogue computes");
    if (*chain.getUsers().begin() != op)
      return refuse("'" + op->getName().stripDialect().str() + "' does not continue the product's epilogue");
    const std::string name = op->getName().stripDialect().str();
    if (auto add = llvm::dyn_cast<AddOp>(op)) {
      Value other = add.getLhs() == chain ? add.getRhs() : add.getLhs();
      auto otherArg = llvm::dyn_cast<BlockArgument>(other);
      if (!otherArg || other == chain)
        return refuse("an add of a value computed inside the kernel");
      if (activated)
        return refuse("an add after the activation (cuBLASLt adds bias and residual before it)");
      if (!m.bias && isColumnVector(other, m.n) && productElement(elementTypeOf(other))) {
        m.bias = otherArg.getArgNumber();
      } else if (!residualArg && shapeOf(other) == out) {
        residualArg = otherArg.getArgNumber();
        m.beta = 1.0;
      } else {
        return refuse("an add that is neither a bias row nor a residual of the output's shape");
      }
    } else if (llvm::isa<ReluOp>(op)) {
      if (activated)
        return refuse("two activations");
      m.activation = LibraryMatmul::Activation::Relu;
      activated = true;
    } else if (auto gelu = llvm::dyn_cast<GeluOp>(op)) {
      if (gelu.getApproximate() != "tanh")
        return refuse("GELU in its erf form (cuBLASLt's GELU is the tanh approximation)");
      if (activated)
        return refuse("two activations");
      m.activation = LibraryMatmul::Activation::GeluTanh;
      activated = true;
    } else if (!llvm::isa<CastOp>(op)) {
      return refuse("'" + name + "' in the epilogue (cuBLASLt fuses bias, residual, ReLU and tanh-GELU)");
    }
    chain = op->getResult(0);
  }
  Operation *yield = body.getTerminator();
  if (yield->getNumOperands() != 1 || yield->getOperand(0) != chain)
    return refuse("the kernel writes a value besides the epilogue's last");
  const Type dType = elementTypeOf(chain);
  if (!productElement(dType) || (aType.isF32() && !dType.isF32()))
    return refuse("an output type cuBLASLt does not write from these operands");
  if (residualArg) {
    if (elementTypeOf(body.getArgument(*residualArg)) != dType)
      return refuse("the residual's type differs from the output's");
    m.c = residualArg;
    m.strideC = m.strideD;
  }
  m.d = kernel.getNumOperands();
  if (aType.isF32() && kernel.getConfigAttr() && kernel.getConfigAttr().getPrecision() == "tf32")
    m.compute = LibraryMatmul::Compute::Tf32;
  return LibraryMatmulMatch{m, ""};
}

} // namespace fusec::fuse
