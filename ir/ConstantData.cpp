//===- ConstantData.cpp - Read and create fuse.constant data -------------===//
#include "ir/ConstantData.h"
#include "ir/FuseOps.h"
#include "ir/NodeNames.h"
#include "ir/ShapeUtils.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/ErrorHandling.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

using namespace mlir;

namespace fusec::fuse {
namespace {
/// Resource keys are printed as bare identifiers; keep them simple.
std::string resourceKey(llvm::StringRef name) {
  std::string key = identifierFrom(name);
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0])))
    key = "w_" + key;
  return key;
}

/// Blobs of at least this many bytes are allocated in whole huge pages.
constexpr size_t kHugePage = size_t(2) << 20;

/// A mutable blob of `bytes` for a constant's data. A model's weights are
/// ~100 MB of fresh memory each time they are made (imported, folded), and
/// with 4 KiB pages a machine spends more time faulting that memory in than
/// writing it (~25 000 faults per 100 MB; far more than the arithmetic of
/// folding, and worse under virtualization). Large blobs are therefore
/// aligned to 2 MiB and advised as huge pages, which cuts the faults 512-fold
/// where the kernel allows transparent huge pages on request.
AsmResourceBlob allocateBlob(size_t bytes) {
  if (bytes < kHugePage)
    return HeapAsmResourceBlob::allocate(bytes, alignof(float));
  size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void *memory = std::aligned_alloc(kHugePage, rounded);
  if (!memory)
    llvm::report_bad_alloc_error("cannot allocate a constant's data");
#ifdef MADV_HUGEPAGE
  (void)::madvise(memory, rounded, MADV_HUGEPAGE); // advice only: without it, 4 KiB pages
#endif
  return UnmanagedAsmResourceBlob::allocateWithAlign(
      ArrayRef<char>(static_cast<const char *>(memory), bytes), alignof(float),
      [](void *data, size_t, size_t) { std::free(data); }, /*dataIsMutable=*/true);
}

} // namespace

ElementsAttr makeConstantData(RankedTensorType type, StringRef name, ArrayRef<float> data) {
  if (static_cast<int64_t>(data.size()) <= kInlineConstantLimit)
    return DenseElementsAttr::get(type, data);
  AsmResourceBlob blob = allocateBlob(data.size() * sizeof(float));
  std::memcpy(blob.getMutableData().data(), data.data(), data.size() * sizeof(float));
  return llvm::cast<ElementsAttr>(DenseF32ResourceElementsAttr::get(type, resourceKey(name), std::move(blob)));
}

ElementsAttr makeConstantDataInPlace(RankedTensorType type, StringRef name, ArrayRef<float> data,
                                     std::shared_ptr<const void> owner) {
  if (static_cast<int64_t>(data.size()) <= kInlineConstantLimit)
    return DenseElementsAttr::get(type, data);
  AsmResourceBlob blob = UnmanagedAsmResourceBlob::allocateInferAlign(
      data, [owner = std::move(owner)](void *, size_t, size_t) mutable { owner.reset(); });
  return llvm::cast<ElementsAttr>(DenseF32ResourceElementsAttr::get(type, resourceKey(name), std::move(blob)));
}

Value createConstant(OpBuilder &builder, Location loc, StringRef name, ArrayRef<int64_t> shape, ArrayRef<float> data) {
  auto type = f32TensorType(builder.getContext(), shape);
  return builder.create<ConstantOp>(loc, makeConstantData(type, name, data));
}

Value createConstant(OpBuilder &builder, Location loc, StringRef name, ArrayRef<int64_t> shape,
                     function_ref<void(MutableArrayRef<float>)> fill) {
  auto type = f32TensorType(builder.getContext(), shape);
  int64_t count = type.getNumElements();
  if (count <= kInlineConstantLimit) {
    std::vector<float> data(count);
    fill(data);
    return createConstant(builder, loc, name, shape, data);
  }
  AsmResourceBlob blob = allocateBlob(count * sizeof(float));
  MutableArrayRef<char> bytes = blob.getMutableData();
  fill(MutableArrayRef<float>(reinterpret_cast<float *>(bytes.data()), count));
  auto value = llvm::cast<ElementsAttr>(DenseF32ResourceElementsAttr::get(type, resourceKey(name), std::move(blob)));
  return builder.create<ConstantOp>(loc, value);
}

std::optional<ArrayRef<float>> viewConstantData(ElementsAttr value) {
  if (auto resource = llvm::dyn_cast<DenseF32ResourceElementsAttr>(value))
    return resource.tryGetAsArrayRef();
  if (auto dense = llvm::dyn_cast<DenseElementsAttr>(value))
    if (dense.getElementType().isF32() && !dense.isSplat())
      return ArrayRef<float>(reinterpret_cast<const float *>(dense.getRawData().data()), dense.getNumElements());
  return std::nullopt;
}

std::string constantNameAt(Location loc, StringRef suffix) {
  std::string name = firstNodeName(loc);
  return name.empty() ? suffix.str() : name + "_" + suffix.str();
}

std::optional<std::vector<float>> getConstantData(ElementsAttr value) {
  if (auto resource = llvm::dyn_cast<DenseF32ResourceElementsAttr>(value)) {
    auto data = resource.tryGetAsArrayRef();
    if (!data)
      return std::nullopt; // the blob was dropped (e.g. --mlir-elide-resource)
    return std::vector<float>(data->begin(), data->end());
  }
  if (auto dense = llvm::dyn_cast<DenseElementsAttr>(value)) {
    if (!dense.getElementType().isF32())
      return std::nullopt;
    auto values = dense.getValues<float>();
    return std::vector<float>(values.begin(), values.end());
  }
  return std::nullopt;
}

std::optional<ArrayRef<uint8_t>> constantBytes(ElementsAttr value, std::vector<uint8_t> &storage) {
  if (auto resource = llvm::dyn_cast<DenseResourceElementsAttr>(value)) {
    const AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    ArrayRef<char> data = blob->getData();
    return ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data.data()), data.size());
  }
  auto dense = llvm::dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return std::nullopt;
  Type elementType = dense.getElementType();
  // Non-splat data of byte-sized types is stored as the plan stores it; MLIR
  // packs i1 as bits and keeps a splat once, so those are expanded here.
  if (!dense.isSplat() && !elementType.isInteger(1)) {
    ArrayRef<char> raw = dense.getRawData();
    return ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(raw.data()), raw.size());
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  size_t elementBytes = width == 1 ? 1 : width / 8;
  storage.clear();
  storage.reserve(static_cast<size_t>(dense.getNumElements()) * elementBytes);
  auto append = [&](const llvm::APInt &bits) {
    for (size_t byte = 0; byte < elementBytes; ++byte)
      storage.push_back(width == 1 ? static_cast<uint8_t>(bits.getZExtValue())
                                   : static_cast<uint8_t>(bits.extractBitsAsZExtValue(8, byte * 8)));
  };
  if (llvm::isa<FloatType>(elementType)) {
    for (const llvm::APFloat &element : dense.getValues<llvm::APFloat>())
      append(element.bitcastToAPInt());
  } else {
    for (const llvm::APInt &element : dense.getValues<llvm::APInt>())
      append(element);
  }
  return ArrayRef<uint8_t>(storage);
}

std::optional<std::vector<float>> getConstantData(Value value) {
  auto constant = value ? value.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!constant)
    return std::nullopt;
  return getConstantData(constant.getValue());
}

} // namespace fusec::fuse
