//===- ConstantData.h - Read and create fuse.constant data ------*- C++ -*-===//
#ifndef FUSEC_IR_CONSTANTDATA_H
#define FUSEC_IR_CONSTANTDATA_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <vector>

namespace fusec::fuse {

/// Tensors with more elements than this are stored as dense_resource blobs,
/// which the context neither uniques nor hashes.
inline constexpr int64_t kInlineConstantLimit = 16;

/// Creates a fuse.constant holding `data` (f32, C order) of `shape`. `name`
/// keys the resource blob (made unique by MLIR when it repeats).
mlir::Value createConstant(mlir::OpBuilder &builder, mlir::Location loc, llvm::StringRef name,
                           llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> data);

/// Creates a fuse.constant of `shape` whose data `fill` writes in place (no
/// intermediate copy of large weights).
mlir::Value createConstant(mlir::OpBuilder &builder, mlir::Location loc, llvm::StringRef name,
                           llvm::ArrayRef<int64_t> shape, llvm::function_ref<void(llvm::MutableArrayRef<float>)> fill);

/// The attribute createConstant stores: dense for small, dense_resource for
/// large tensors.
mlir::ElementsAttr makeConstantData(mlir::RankedTensorType type, llvm::StringRef name, llvm::ArrayRef<float> data);

/// Like makeConstantData, but a large tensor's blob views `data` where it
/// lies (a mapped weights file) instead of copying it; `owner` keeps that
/// memory alive and is released with the blob. Small tensors are copied
/// inline as makeConstantData does.
mlir::ElementsAttr makeConstantDataInPlace(mlir::RankedTensorType type, llvm::StringRef name,
                                           llvm::ArrayRef<float> data, std::shared_ptr<const void> owner);

/// A resource name for a constant derived at `loc`: the first node name in
/// `loc` plus `suffix` (unique names keep MLIR's blob manager from probing
/// for a free name, which is quadratic in the number of equal names).
std::string constantNameAt(mlir::Location loc, llvm::StringRef suffix);

/// The f32 data of an ElementsAttr held by a fuse.constant, in C order.
std::optional<std::vector<float>> getConstantData(mlir::ElementsAttr value);

/// The f32 data of `value` without copying it, when it is stored densely
/// (resource blobs and non-splat dense attributes); std::nullopt otherwise.
std::optional<llvm::ArrayRef<float>> viewConstantData(mlir::ElementsAttr value);

/// The bytes of `value` as a plan stores them, whatever its element type: C
/// order, little-endian, each element in its type's size (i1: one byte, 0 or
/// 1). Resource blobs are viewed in place and `storage` is left alone; other
/// attributes are written into `storage`, which the result then views.
/// std::nullopt if the data is unavailable (an elided resource).
std::optional<llvm::ArrayRef<uint8_t>> constantBytes(mlir::ElementsAttr value, std::vector<uint8_t> &storage);

/// The data of `value` when a fuse.constant defines it.
std::optional<std::vector<float>> getConstantData(mlir::Value value);

} // namespace fusec::fuse

#endif // FUSEC_IR_CONSTANTDATA_H
