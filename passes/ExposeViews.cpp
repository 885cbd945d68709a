//===- ExposeViews.cpp - Data movement around attention as views ----------===//
//
// torch's nn.MultiheadAttention computes in sequence-first order: a
// batch-first layer transposes its input to [seq, batch, embed] before the
// QKV projection and transposes the projected output back after the output
// projection. Between the two, the heads are split and merged by reshapes
// and transposes that the attention kernel reads and writes through
// (fuse-form-attention-views), but only as strided views with static
// strides: in [seq, batch, ...] order the sequence stride is a multiple of
// the batch, and every transpose stays a copy kernel.
//
// A projection (a MatMul by a 2-D weight) and its bias add compute each row
// on its own, so they commute with any transpose that keeps the last axis.
// The pass moves such a transpose across them, towards the attention's
// views: the input transpose sinks below the projection (which then reads
// the batch-first rows as they are, and writes a batch-first result that
// the head split views with static strides), and the output transpose
// rises above the output projection, where it becomes the last step of the
// attention's store view. A transpose moves only when it ends where it is
// absorbed: in an attention's view chain, or cancelled by its inverse;
// elsewhere a moved transpose could copy more bytes than it did (a
// projection that widens the rows), so it stays.
//
// The pass also writes a Gather of one constant index (torch's `select`:
// `qkv[0]`) as the Slice and Reshape it is, so the head split is a chain
// of views only; drops an Expand whose element-wise consumer would
// broadcast its operand the same way (a padding mask made from
// `zeros_like` expanded to the batch): a copy kernel computing nothing; and
// gives each attention its own views of a mask several of them read.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "ir/FuseOps.h"
#include "ir/OpClassification.h"
#include "ir/ShapeUtils.h"
#include "ir/StridedView.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace fusec {
#define GEN_PASS_DEF_EXPOSEVIEWS
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

RankedTensorType tensorType(Value value) { return llvm::cast<RankedTensorType>(value.getType()); }

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> result(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    result[perm[i]] = int64_t(i);
  return result;
}

/// The number of trailing axes `perm` leaves in place: an operand of at most
/// that rank broadcasts the same way before and after it.
size_t fixedTrailingAxes(ArrayRef<int64_t> perm) {
  size_t count = 0;
  while (count < perm.size() && perm[perm.size() - 1 - count] == int64_t(perm.size() - 1 - count))
    ++count;
  return count;
}

/// Whether `op` computes each row of `operand` on its own, the same way in
/// any order of the axes a transpose `perm` moves: a MatMul of `operand` by
/// a 2-D matrix, or an element-wise op whose other operands broadcast along
/// the axes `perm` keeps in place only (a bias). Its one result has the
/// operand's rank.
bool commutesWithTranspose(Operation *op, Value operand, ArrayRef<int64_t> perm) {
  const size_t fixed = fixedTrailingAxes(perm);
  if (fixed == 0 || fixed == perm.size() || op->getNumResults() != 1)
    return false;
  if (auto matmul = llvm::dyn_cast<MatMulOp>(op))
    return matmul.getLhs() == operand && matmul.getRhs() != operand && tensorType(matmul.getRhs()).getRank() == 2;
  if (classifyOp(op) != OpClass::Elementwise || tensorType(op->getResult(0)).getRank() != int64_t(perm.size()) ||
      symbolicShape(op->getResult(0).getType()) != symbolicShape(operand.getType()))
    return false;
  return llvm::all_of(op->getOperands(),
                      [&](Value other) { return other == operand || tensorType(other).getRank() <= int64_t(fixed); });
}

/// The op that now computes `op`'s result from `operand` (which `op` read
/// transposed by `perm`, and which it now reads untransposed): a clone with
/// its result un-permuted.
Operation *cloneUntransposed(PatternRewriter &rewriter, Operation *op, Value transposed, Value operand,
                             ArrayRef<int64_t> perm) {
  Operation *clone = rewriter.clone(*op);
  for (OpOperand &use : clone->getOpOperands())
    if (use.get() == transposed)
      use.set(operand);
  Value result = clone->getResult(0);
  result.setType(permutedTensorType(tensorType(result), inverse(perm)));
  return clone;
}

/// Whether every path from `value` ends where a transpose by `perm` placed
/// at `value` disappears: in an attention operand, through views only
/// (fuse-form-attention-views reads through them), or in a transpose that
/// undoes it.
bool absorbedBelow(Value value, ArrayRef<int64_t> perm) {
  if (value.use_empty())
    return false;
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    if (llvm::isa<AttentionOp>(user))
      return true;
    if (auto transpose = llvm::dyn_cast<TransposeOp>(user)) {
      SmallVector<int64_t> composed;
      for (int64_t axis : transpose.getPerm())
        composed.push_back(perm[axis]);
      if (llvm::equal(composed, llvm::seq<int64_t>(0, int64_t(composed.size()))))
        return true;
    }
    return isViewOp(user) && absorbedBelow(user->getResult(0), perm);
  });
}

/// Whether `value` is an attention's result seen through single-use views
/// (the merge of its heads), where a transpose placed on it becomes one
/// more step of the attention's store view.
bool attentionViewAbove(Value value) {
  Operation *producer = value.getDefiningOp();
  if (!producer || !value.hasOneUse())
    return false;
  if (llvm::isa<AttentionOp>(producer))
    return true;
  return isViewOp(producer) && !llvm::isa<SliceOp, ExpandOp>(producer) && attentionViewAbove(producer->getOperand(0));
}

/// The one operand of `op` of rank `rank` (what an element-wise op computes
/// row by row; the others are broadcast biases), or null.
Value fullRankOperand(Operation *op, size_t rank) {
  Value found;
  for (Value operand : op->getOperands())
    if (tensorType(operand).getRank() == int64_t(rank)) {
      if (found)
        return Value();
      found = operand;
    }
  return found;
}

/// The ops a transpose by `perm` of `transposed` sinks through from its
/// use by `user` (each op's result read by the next only), with `end` the
/// value the transpose would then be applied to.
SmallVector<Operation *> sinkPath(Value transposed, Operation *user, ArrayRef<int64_t> perm, Value &end) {
  SmallVector<Operation *> path;
  Value value = transposed;
  while (commutesWithTranspose(user, value, perm)) {
    path.push_back(user);
    value = user->getResult(0);
    if (!value.hasOneUse())
      break;
    user = *value.getUsers().begin();
  }
  end = value;
  return path;
}

/// transpose(x) -> projection -> bias  ==>  projection -> bias -> transpose,
/// when the transpose ends absorbed (absorbedBelow).
struct SinkTranspose : OpRewritePattern<TransposeOp> {
  SinkTranspose(MLIRContext *context, llvm::Statistic &numMoved) : OpRewritePattern(context), numMoved(numMoved) {}

  LogicalResult matchAndRewrite(TransposeOp transpose, PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> perm = transpose.getPerm();
    Value end;
    if (!transpose->hasOneUse()) {
      // A value transposed once for several consumers (CSE merged them):
      // a use whose path ends absorbed gets a transpose of its own, which
      // then sinks.
      for (OpOperand &use : transpose->getUses()) {
        if (sinkPath(transpose.getOutput(), use.getOwner(), perm, end).empty() || !absorbedBelow(end, perm))
          continue;
        rewriter.setInsertionPointAfter(transpose);
        Operation *own = rewriter.clone(*transpose);
        rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(own->getResult(0)); });
        return success();
      }
      return rewriter.notifyMatchFailure(transpose, "no use sinks to where it is absorbed");
    }
    SmallVector<Operation *> path = sinkPath(transpose.getOutput(), *transpose->getUsers().begin(), perm, end);
    if (path.empty() || !absorbedBelow(end, perm))
      return rewriter.notifyMatchFailure(transpose, "does not end absorbed");
    Value transposed = transpose.getOutput(), operand = transpose.getInput();
    for (Operation *op : path) {
      rewriter.setInsertionPoint(op);
      Operation *clone = cloneUntransposed(rewriter, op, transposed, operand, perm);
      transposed = op->getResult(0);
      operand = clone->getResult(0);
    }
    Operation *last = path.back();
    rewriter.setInsertionPointAfter(operand.getDefiningOp());
    Value moved = rewriter.create<TransposeOp>(transpose.getLoc(), tensorType(last->getResult(0)), operand,
                                               rewriter.getDenseI64ArrayAttr(perm));
    rewriter.replaceOp(last, moved);
    for (Operation *op : llvm::reverse(ArrayRef(path).drop_back()))
      rewriter.eraseOp(op);
    rewriter.eraseOp(transpose);
    ++numMoved;
    return success();
  }

  llvm::Statistic &numMoved;
};

/// attention views -> projection -> bias -> transpose  ==>
/// attention views -> transpose -> projection -> bias.
struct HoistTranspose : OpRewritePattern<TransposeOp> {
  HoistTranspose(MLIRContext *context, llvm::Statistic &numMoved) : OpRewritePattern(context), numMoved(numMoved) {}

  LogicalResult matchAndRewrite(TransposeOp transpose, PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> perm = transpose.getPerm();
    // The ops the transpose rises above, nearest first, each the only user
    // of the operand it computes from.
    SmallVector<Operation *> path;
    Value value = transpose.getInput();
    while (value.hasOneUse()) {
      Operation *producer = value.getDefiningOp();
      if (!producer)
        break;
      Value source;
      if (auto reshape = llvm::dyn_cast<ReshapeOp>(producer);
          reshape && reshape.getInput().getType() == reshape.getOutput().getType())
        source = reshape.getInput();
      else if (auto matmul = llvm::dyn_cast<MatMulOp>(producer))
        source = matmul.getLhs();
      else if (classifyOp(producer) == OpClass::Elementwise)
        source = fullRankOperand(producer, perm.size());
      if (!source || !(llvm::isa<ReshapeOp>(producer) || commutesWithTranspose(producer, source, perm)))
        break;
      path.push_back(producer);
      value = source;
    }
    if (path.empty() || !attentionViewAbove(value))
      return rewriter.notifyMatchFailure(transpose, "does not start at an attention's views");
    rewriter.setInsertionPointAfterValue(value);
    Value operand = rewriter.create<TransposeOp>(transpose.getLoc(), permutedTensorType(tensorType(value), perm), value,
                                                 rewriter.getDenseI64ArrayAttr(perm));
    Value source = value;
    for (Operation *op : llvm::reverse(path)) {
      rewriter.setInsertionPoint(op);
      if (llvm::isa<ReshapeOp>(op)) { // the identity: nothing to compute
        source = op->getResult(0);
        continue;
      }
      Operation *clone = rewriter.clone(*op);
      for (OpOperand &use : clone->getOpOperands())
        if (use.get() == source)
          use.set(operand);
      clone->getResult(0).setType(permutedTensorType(tensorType(op->getResult(0)), perm));
      source = op->getResult(0);
      operand = clone->getResult(0);
    }
    rewriter.replaceOp(transpose, operand);
    for (Operation *op : path) // nearest first: each is its successor's only operand
      rewriter.eraseOp(op);
    ++numMoved;
    return success();
  }

  llvm::Statistic &numMoved;
};

/// gather(x, i, axis) with i one constant index  ==>  reshape(slice(x)),
/// the axis sliced to [i, i + 1) and dropped.
struct ScalarGatherAsSlice : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp gather, PatternRewriter &rewriter) const override {
    DenseIntElementsAttr indices;
    if (!matchPattern(gather.getIndices(), m_Constant(&indices)) || tensorType(gather.getIndices()).getRank() != 0)
      return rewriter.notifyMatchFailure(gather, "not one constant index");
    const SmallVector<int64_t> shape = symbolicShape(gather.getInput().getType());
    const int64_t axis = gather.getAxis();
    if (isSymbolic(shape[axis]))
      return rewriter.notifyMatchFailure(gather, "gathers along a run-time dimension");
    int64_t index = (*indices.value_begin<APInt>()).getSExtValue();
    if (index < 0)
      index += shape[axis];
    if (index < 0 || index >= shape[axis])
      return rewriter.notifyMatchFailure(gather, "index outside the axis (the CPU backend reports it)");
    SmallVector<int64_t> starts(shape.size(), 0), ends, steps(shape.size(), 1), sliced(shape);
    for (int64_t dim : shape)
      ends.push_back(isSymbolic(dim) ? std::numeric_limits<int64_t>::max() : dim);
    starts[axis] = index;
    ends[axis] = index + 1;
    sliced[axis] = 1;
    Type element = tensorType(gather.getInput()).getElementType();
    auto slice = rewriter.create<SliceOp>(gather.getLoc(), symbolicTensorType(sliced, element), gather.getInput(),
                                          rewriter.getDenseI64ArrayAttr(starts), rewriter.getDenseI64ArrayAttr(ends),
                                          rewriter.getDenseI64ArrayAttr(steps), /*symbols=*/nullptr);
    // Static sizes as they are; each -1 takes the next run-time dimension.
    SmallVector<int64_t> target;
    for (int64_t dim : symbolicShape(gather.getOutput().getType()))
      target.push_back(isSymbolic(dim) ? -1 : dim);
    rewriter.replaceOpWithNewOp<ReshapeOp>(gather, gather.getOutput().getType(), slice,
                                           rewriter.getDenseI64ArrayAttr(target));
    return success();
  }
};

/// op(..., expand(m), ...)  ==>  op(..., m, ...) for an element-wise op
/// whose operands, with m in place of the expansion, still broadcast to its
/// result's shape.
struct DropBroadcastExpand : RewritePattern {
  DropBroadcastExpand(MLIRContext *context) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (classifyOp(op) != OpClass::Elementwise || op->getNumResults() != 1)
      return failure();
    const SmallVector<int64_t> result = symbolicShape(op->getResult(0).getType());
    for (OpOperand &use : op->getOpOperands()) {
      auto expand = use.get().getDefiningOp<ExpandOp>();
      if (!expand)
        continue;
      std::optional<SmallVector<int64_t>> shape = SmallVector<int64_t>();
      for (OpOperand &other : op->getOpOperands()) {
        Value operand = &other == &use ? expand.getInput() : other.get();
        shape = broadcastShapes(*shape, symbolicShape(operand.getType()));
        if (!shape)
          break;
      }
      if (!shape || *shape != result)
        continue;
      rewriter.modifyOpInPlace(op, [&] { use.set(expand.getInput()); });
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no expansion it would not broadcast itself");
  }
};

/// Whether every path from `value` ends in an attention's mask through
/// views only.
bool feedsAttentionMasksOnly(Value value) {
  if (value.use_empty())
    return false;
  return llvm::all_of(value.getUses(), [](OpOperand &use) {
    if (auto attention = llvm::dyn_cast<AttentionOp>(use.getOwner()))
      return use.get() == attention.getMask() && attention.getQuery() != use.get() && attention.getKey() != use.get() &&
             attention.getValue() != use.get();
    return isViewOp(use.getOwner()) && feedsAttentionMasksOnly(use.getOwner()->getResult(0));
  });
}

/// A view of a mask that several attention ops read (one padding mask for
/// every layer) is made once per reader: each attention kernel then reads
/// the mask through its own views instead of a copy kernel expanding it.
struct DuplicateSharedMaskViews : RewritePattern {
  DuplicateSharedMaskViews(MLIRContext *context) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isViewOp(op) || op->hasOneUse() || !feedsAttentionMasksOnly(op->getResult(0)))
      return failure();
    OpOperand &use = *op->getUses().begin();
    rewriter.setInsertionPointAfter(op);
    Operation *own = rewriter.clone(*op);
    rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(own->getResult(0)); });
    return success();
  }
};

struct ExposeViewsPass : fusec::impl::ExposeViewsBase<ExposeViewsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkTranspose>(&getContext(), numMoved);
    patterns.add<HoistTranspose>(&getContext(), numMoved);
    patterns.add<ScalarGatherAsSlice, DropBroadcastExpand, DuplicateSharedMaskViews>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
