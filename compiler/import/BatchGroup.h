//===- BatchGroup.h - The batch merged with other dimensions ----*- C++ -*-===//
//
// Attention exports merge the batch with the heads: PyTorch's
// MultiheadAttention reshapes [seq, batch, embed] to [seq, batch*heads,
// head_dim] and transposes it to [batch*heads, seq, head_dim]; others write
// [seq*batch, embed] before a linear layer. A fuse tensor's one dynamic
// dimension is the batch size itself, so the importer keeps such a
// dimension split: the ONNX ("logical") tensor [seq, batch*heads, head_dim]
// is the fuse tensor [seq, batch, heads, head_dim] with the same bytes, and
// a BatchGroup records that logical axis 1 is fuse axes 1 and 2.
//
// The batch splits the flat element order of a tensor into what lies before
// it and after it; any reshape keeps that, so every logical shape the model
// reshapes to has one expanded form: [before..., L, batch, R, after...],
// where L and R are the static parts merged with the batch (either may be
// absent). expandReshape computes it; the other helpers map ONNX axes and
// permutations onto the expanded tensor.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_BATCHGROUP_H
#define FUSEC_COMPILER_IMPORT_BATCHGROUP_H

#include "compiler/import/DimExpr.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fusec::import {

/// Logical axis `axis` of an ONNX tensor is the fuse axes [axis, axis +
/// size) (size >= 2), one of which is the batch; every other logical axis is
/// one fuse axis.
struct BatchGroup {
  int64_t axis = 0;
  int64_t size = 1;
  friend bool operator==(const BatchGroup &a, const BatchGroup &b) { return a.axis == b.axis && a.size == b.size; }
};

/// The fuse axis where logical axis `axis` begins.
inline int64_t expandedAxis(const std::optional<BatchGroup> &group, int64_t axis) {
  return group && axis > group->axis ? axis + group->size - 1 : axis;
}

/// The shape Reshape gives a tensor of logical shape `input` for the target
/// `target` (ONNX semantics: 0 copies the input's dimension unless
/// `allowZero`, -1 is inferred). nullopt with the reason in `error` when the
/// target is invalid or needs a division with no polynomial result.
std::optional<std::vector<DimExpr>> resolveReshape(llvm::ArrayRef<DimExpr> input, llvm::ArrayRef<DimExpr> target,
                                                   bool allowZero, std::string &error);

/// The fuse shape of logical shape `logical` (kBatchDim marks the batch)
/// whose elements before the batch, in flat order, number `beforeBatch`,
/// and its group (none when the batch stands alone). nullopt with the
/// reason in `error` when a dimension is not c*batch or c, the batch appears
/// twice, or `beforeBatch` does not divide the way the shape needs.
struct ExpandedShape {
  std::vector<int64_t> dims;
  std::optional<BatchGroup> group;
};
std::optional<ExpandedShape> expandShape(llvm::ArrayRef<DimExpr> logical, const std::string &batch, int64_t beforeBatch,
                                         std::string &error);

/// The symbols of a fuse shape: the batch (kBatchDim) and the dimensions
/// that run over a range (rangeDim(i) is ranges[i]; fusec --dim seq=1:512).
struct ShapeSymbols {
  std::string batch;
  std::vector<std::string> ranges;

  /// A fuse dimension as an expression.
  DimExpr exprOf(int64_t dim) const;
  /// The fuse dimension of symbol `name`, or nullopt for a name that is
  /// neither the batch nor a range.
  std::optional<int64_t> codeOf(const std::string &name) const;
  /// For each symbol of fuse shape `dims`, the elements before it in flat
  /// order: what every reshape keeps.
  std::map<std::string, DimExpr> elementsBefore(llvm::ArrayRef<int64_t> dims) const;
};

/// expandShape with any symbols: every symbolic logical dimension is a
/// constant times distinct symbols, and `before[name]` gives the elements
/// before each symbol in flat order (ShapeSymbols::elementsBefore of the
/// tensor reshaped). A dimension merging symbols with each other or with
/// sizes is split into its factors in memory order; at most one such
/// dimension per tensor (its group).
std::optional<ExpandedShape> expandShape(llvm::ArrayRef<DimExpr> logical, const ShapeSymbols &symbols,
                                         const std::map<std::string, DimExpr> &before, std::string &error);

/// The logical shape of fuse shape `expanded` (kBatchDim for the batch)
/// under `group`.
std::vector<DimExpr> logicalShape(llvm::ArrayRef<int64_t> expanded, const std::optional<BatchGroup> &group,
                                  const std::string &batch);
/// The same with the range symbols too.
std::vector<DimExpr> logicalShape(llvm::ArrayRef<int64_t> expanded, const std::optional<BatchGroup> &group,
                                  const ShapeSymbols &symbols);

/// The Reshape target fusec uses for a shape with static dimensions and
/// symbols (the batch, ranges): an input dimension at the same index is
/// copied (0), a moved symbol is inferred (-1).
std::vector<int64_t> reshapeTargetFor(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// Transpose's `perm` on the logical axes as a permutation of the fuse axes,
/// and the group of the result.
std::pair<std::vector<int64_t>, std::optional<BatchGroup>> expandPermutation(llvm::ArrayRef<int64_t> perm,
                                                                             const std::optional<BatchGroup> &group);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_BATCHGROUP_H
