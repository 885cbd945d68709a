//===- FormAttention.cpp - MatMul/scale/mask/Softmax/MatMul -> attention --===//
//
// Recognises scaled dot-product attention as importers produce it,
//   MatMul(Q, Kt) -> Mul|Div by a scalar -> [Add mask] -> Softmax(last axis)
//   -> MatMul(., V),
// Q and Kt each possibly scaled by a scalar first (the scale folds in),
// and replaces the chain by one fuse.attention, whose kernel never writes the
// S x Sk scores to memory. A constant mask that is 0 on and below the
// (offset) diagonal and very negative above it becomes `causal` (no mask
// tensor read at all). Every intermediate must have the chain as its only
// user: a score tensor that something else reads has to be materialised.
//
//===----------------------------------------------------------------------===//
#include "passes/FusionAttributes.h"
#include "passes/Passes.h"

#include "ir/ConstantData.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/OpClassification.h"
#include "ir/ShapeUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <numeric>

namespace fusec {
#define GEN_PASS_DEF_FORMATTENTION
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

/// Masked-out scores at or below this are treated as -inf: exp() of them
/// minus any row maximum a real score reaches is 0 in f32.
constexpr float kMaskedOut = -1e4f;

/// With its symbols (ShapeUtils.h): a sequence that runs over a range
/// (fusec --dim seq=1:512) is a symbol of its own, not the batch.
SmallVector<int64_t> shapeOf(Value value) { return symbolicShape(value.getType()); }

/// The value of a one-element constant (any rank, every dim 1).
std::optional<float> scalarConstant(Value value) {
  auto data = getConstantData(value);
  if (!data || data->size() != 1)
    return std::nullopt;
  return data->front();
}

/// Whether `mask` (a constant) is the causal mask of scores [..., S, Sk]:
/// in every matrix, 0 where j <= i + (Sk - S) and <= kMaskedOut elsewhere.
bool isCausalMask(Value mask, int64_t seq, int64_t keySeq) {
  auto shape = shapeOf(mask);
  if (shape.size() < 2 || shape[shape.size() - 2] != seq || shape.back() != keySeq || seq > keySeq)
    return false;
  auto data = getConstantData(mask);
  if (!data)
    return false;
  const int64_t offset = keySeq - seq;
  for (size_t index = 0; index < data->size(); ++index) {
    const int64_t j = static_cast<int64_t>(index) % keySeq, i = static_cast<int64_t>(index) / keySeq % seq;
    const float entry = (*data)[index];
    if (j <= i + offset ? entry != 0.0f : !(entry <= kMaskedOut))
      return false;
  }
  return true;
}

/// Whether `mask` is a causal mask of a square [S, S] score matrix built at
/// run time, as PyTorch exports `is_causal=True` for a sequence that runs
/// over a range: Where(Trilu(Expand(c)) == 0, fill, 0) with c a nonzero
/// constant, a lower Trilu at k = 0 and fill <= kMaskedOut. (At a fixed size
/// the importer folds it to the constant isCausalMask reads.)
bool isBuiltCausalMask(Value mask, int64_t seq, int64_t keySeq) {
  auto shape = shapeOf(mask);
  if (seq != keySeq || shape.size() < 2 || shape[shape.size() - 2] != seq || shape.back() != keySeq)
    return false;
  auto where = mask.getDefiningOp<WhereOp>();
  std::optional<float> fill = where ? scalarConstant(where.getLhs()) : std::nullopt;
  std::optional<float> kept = where ? scalarConstant(where.getRhs()) : std::nullopt;
  auto equal = where ? where.getCondition().getDefiningOp<EqualOp>() : EqualOp();
  if (!fill || !(*fill <= kMaskedOut) || kept != 0.0f || !equal)
    return false;
  Value triangle = equal.getLhs(), zero = equal.getRhs();
  if (scalarConstant(triangle) == 0.0f)
    std::swap(triangle, zero);
  auto trilu = triangle.getDefiningOp<TriluOp>();
  if (scalarConstant(zero) != 0.0f || !trilu || trilu.getUpper() || trilu.getK() != 0)
    return false;
  auto expand = trilu.getInput().getDefiningOp<ExpandOp>();
  std::optional<float> ones = expand ? scalarConstant(expand.getInput()) : std::nullopt;
  return ones && *ones != 0.0f;
}

/// Whether `condition` (a constant i1 tensor) is, in every [S, Sk] matrix,
/// `keptWhen` exactly where j <= i + (Sk - S): the masked_fill of a causal
/// mask, which exporters write as Where(mask, fill, scores) or
/// Where(mask, scores, fill).
bool isCausalCondition(Value condition, bool keptWhen, int64_t seq, int64_t keySeq) {
  auto constant = condition.getDefiningOp<ConstantOp>();
  auto shape = shapeOf(condition);
  if (!constant || !elementTypeOf(condition).isInteger(1) || shape.size() < 2 || shape[shape.size() - 2] != seq ||
      shape.back() != keySeq || seq > keySeq)
    return false;
  std::vector<uint8_t> storage;
  auto bytes = constantBytes(constant.getValue(), storage);
  if (!bytes)
    return false;
  const int64_t offset = keySeq - seq;
  for (size_t index = 0; index < bytes->size(); ++index) {
    const int64_t j = static_cast<int64_t>(index) % keySeq, i = static_cast<int64_t>(index) / keySeq % seq;
    const bool kept = ((*bytes)[index] != 0) == keptWhen;
    if (kept != (j <= i + offset))
      return false;
  }
  return true;
}

struct FormAttentionPattern : OpRewritePattern<MatMulOp> {
  FormAttentionPattern(MLIRContext *context, llvm::Statistic &numFormed, llvm::Statistic &numCausal)
      : OpRewritePattern(context), numFormed(numFormed), numCausal(numCausal) {}

  LogicalResult matchAndRewrite(MatMulOp output, PatternRewriter &rewriter) const override {
    auto softmax = output.getLhs().getDefiningOp<SoftmaxOp>();
    if (!softmax)
      return rewriter.notifyMatchFailure(output, "lhs is not a softmax");
    const int64_t rank = shapeOf(softmax.getInput()).size();
    if (rank < 2 || static_cast<int64_t>(softmax.getAxis()) != rank - 1)
      return rewriter.notifyMatchFailure(output, "softmax is not over the last axis of a matrix");
    if (!softmax->hasOneUse())
      return rewriter.notifyMatchFailure(output, "the probabilities have other users");

    // [Add mask]: the scores are the operand that a scale or MatMul gives.
    Value scaled = softmax.getInput(), mask;
    bool causalWhere = false;
    if (auto where = scaled.getDefiningOp<WhereOp>()) {
      // masked_fill(mask, fill): only the causal form is taken, where every
      // row keeps key 0, so filling with a very negative value and adding it
      // give the same probabilities.
      if (!where->hasOneUse())
        return rewriter.notifyMatchFailure(output, "the masked scores have other users");
      std::optional<float> fillLhs = scalarConstant(where.getLhs()), fillRhs = scalarConstant(where.getRhs());
      const bool fillFirst = fillLhs && *fillLhs <= kMaskedOut;
      if (!fillFirst && !(fillRhs && *fillRhs <= kMaskedOut))
        return rewriter.notifyMatchFailure(output, "a Where over the scores that does not fill with -inf");
      scaled = fillFirst ? where.getRhs() : where.getLhs();
      if (shapeOf(scaled) != shapeOf(where.getResult()))
        return rewriter.notifyMatchFailure(output, "the Where mask widens the scores");
      const int64_t scoreRank = shapeOf(scaled).size();
      if (!isCausalCondition(where.getCondition(), /*keptWhen=*/!fillFirst, shapeOf(scaled)[scoreRank - 2],
                             shapeOf(scaled)[scoreRank - 1]))
        return rewriter.notifyMatchFailure(output, "a Where mask that is not a constant causal mask");
      causalWhere = true;
    } else if (auto add = scaled.getDefiningOp<AddOp>()) {
      if (!add->hasOneUse())
        return rewriter.notifyMatchFailure(output, "the masked scores have other users");
      bool lhsScores = add.getLhs().getDefiningOp<MulOp>() || add.getLhs().getDefiningOp<DivOp>() ||
                       add.getLhs().getDefiningOp<MatMulOp>();
      scaled = lhsScores ? add.getLhs() : add.getRhs();
      mask = lhsScores ? add.getRhs() : add.getLhs();
      if (shapeOf(scaled) != shapeOf(add.getResult()))
        return rewriter.notifyMatchFailure(output, "the mask widens the scores");
    }

    // Mul or Div by a scalar constant (or no scale at all).
    double scale = 1.0;
    Value scores = scaled;
    Operation *scaleOp = scaled.getDefiningOp();
    if (llvm::isa_and_nonnull<MulOp, DivOp>(scaleOp)) {
      if (!scaleOp->hasOneUse())
        return rewriter.notifyMatchFailure(output, "the scaled scores have other users");
      Value lhs = scaleOp->getOperand(0), rhs = scaleOp->getOperand(1);
      std::optional<float> factor = scalarConstant(rhs);
      scores = lhs;
      if (!factor && llvm::isa<MulOp>(scaleOp)) {
        factor = scalarConstant(lhs);
        scores = rhs;
      }
      if (!factor)
        return rewriter.notifyMatchFailure(output, "the scale is not a one-element constant");
      if (*factor == 0.0f || !std::isfinite(*factor))
        return rewriter.notifyMatchFailure(output, "the scale is zero or not finite");
      scale = llvm::isa<DivOp>(scaleOp) ? 1.0 / *factor : *factor;
    }
    auto product = scores.getDefiningOp<MatMulOp>();
    if (!product)
      return rewriter.notifyMatchFailure(output, "the scores are not a matrix product");
    if (!product->hasOneUse())
      return rewriter.notifyMatchFailure(output, "the raw scores have other users");

    // Q and Kt, each possibly pre-scaled by a scalar (PyTorch's
    // scaled_dot_product_attention decomposes into Mul(Q, sqrt(scale)) and
    // Mul(Kt, sqrt(scale))): the factors join the scale.
    Value query = absorbScalarFactor(product.getLhs(), scale);
    Value keyT = absorbScalarFactor(product.getRhs(), scale), value = output.getRhs();
    auto qShape = shapeOf(query), ktShape = shapeOf(keyT), vShape = shapeOf(value);
    if (static_cast<int64_t>(qShape.size()) != rank || ktShape.size() != qShape.size() ||
        vShape.size() != qShape.size() ||
        ArrayRef<int64_t>(qShape).drop_back(2) != ArrayRef<int64_t>(ktShape).drop_back(2) ||
        ArrayRef<int64_t>(qShape).drop_back(2) != ArrayRef<int64_t>(vShape).drop_back(2))
      return rewriter.notifyMatchFailure(output, "Q, Kt and V do not share their rank and leading dimensions");
    const int64_t seq = qShape[rank - 2], headDim = qShape[rank - 1], keySeq = ktShape[rank - 1];
    const int64_t valueDim = vShape[rank - 1];
    if (headDim > kMaxAttentionHeadDim || valueDim > kMaxAttentionHeadDim)
      return rewriter.notifyMatchFailure(output, "head dimension " + std::to_string(std::max(headDim, valueDim)) +
                                                     " exceeds the attention kernel's " +
                                                     std::to_string(kMaxAttentionHeadDim));
    // Head dimensions are the kernel's tile; the sequences may run over a
    // range (a symbol), not be the batch.
    if (isSymbolic(headDim) || isSymbolic(valueDim) || seq == kDynamic || keySeq == kDynamic)
      return rewriter.notifyMatchFailure(output, "a head dimension is dynamic, or a sequence is the batch");

    bool causal = causalWhere;
    if (causalWhere)
      ++numCausal;
    if (mask && (isCausalMask(mask, seq, keySeq) || isBuiltCausalMask(mask, seq, keySeq))) {
      causal = true;
      mask = {};
      ++numCausal;
    }
    Location loc = rewriter.getFusedLoc({product.getLoc(), softmax.getLoc(), output.getLoc()});
    Value key = keyOf(rewriter, loc, keyT);
    auto attention =
        rewriter.create<AttentionOp>(loc, output.getType(), query, key, value, mask,
                                     rewriter.getF32FloatAttr(static_cast<float>(scale)), rewriter.getBoolAttr(causal));
    // The fusion report names the rule that formed the kernel.
    attention->setAttr(fusec::kFusedByAttr, rewriter.getStringAttr("form-attention"));
    rewriter.replaceOp(output, attention.getResult());
    ++numFormed;
    return success();
  }

  /// `operand`'s other input where it is Mul(operand', c) by a finite,
  /// nonzero one-element constant with no other user, `scale` multiplied by
  /// c; else `operand` itself.
  static Value absorbScalarFactor(Value operand, double &scale) {
    auto mul = operand.getDefiningOp<MulOp>();
    if (!mul || !mul->hasOneUse())
      return operand;
    for (auto [factorSide, other] : {std::pair(mul.getRhs(), mul.getLhs()), std::pair(mul.getLhs(), mul.getRhs())})
      if (std::optional<float> factor = scalarConstant(factorSide);
          factor && *factor != 0.0f && std::isfinite(*factor) && shapeOf(other) == shapeOf(operand)) {
        scale *= *factor;
        return other;
      }
    return operand;
  }

  /// K [..., Sk, D] from Kt [..., D, Sk]: the input of a Transpose that
  /// swapped the last two axes, or a Transpose composed with the swap.
  static Value keyOf(PatternRewriter &rewriter, Location loc, Value keyT) {
    const size_t rank = shapeOf(keyT).size();
    SmallVector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[rank - 2], perm[rank - 1]);
    Value source = keyT;
    if (auto transpose = keyT.getDefiningOp<TransposeOp>()) {
      // key[.., a, b] = keyT[.., b, a] = source[perm of keyT applied].
      SmallVector<int64_t> composed;
      for (int64_t axis : perm)
        composed.push_back(transpose.getPerm()[axis]);
      perm = composed;
      source = transpose.getInput();
    }
    bool identity = llvm::all_of(llvm::enumerate(perm),
                                 [](auto entry) { return entry.value() == static_cast<int64_t>(entry.index()); });
    if (identity)
      return source;
    SmallVector<int64_t> shape;
    for (int64_t axis : perm)
      shape.push_back(shapeOf(source)[axis]);
    auto type = symbolicTensorType(shape, llvm::cast<RankedTensorType>(keyT.getType()).getElementType());
    return rewriter.create<TransposeOp>(loc, type, source, rewriter.getDenseI64ArrayAttr(perm));
  }

  llvm::Statistic &numFormed;
  llvm::Statistic &numCausal;
};

struct FormAttentionPass : fusec::impl::FormAttentionBase<FormAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FormAttentionPattern>(&getContext(), numFormed, numCausal);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
