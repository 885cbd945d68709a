//===- SliceViews.cpp - Kernel results stored into a concatenation --------===//

#include "ir/SliceViews.h"

#include "ir/ConvPrologue.h"
#include "ir/ShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace fusec::fuse {

std::optional<SliceView> sliceViewOf(Value value) {
  auto result = llvm::dyn_cast<OpResult>(value);
  if (!result)
    return std::nullopt;
  auto views = result.getOwner()->getAttrOfType<ArrayAttr>(kSliceViewsAttr);
  if (!views || result.getResultNumber() >= views.size())
    return std::nullopt;
  auto entry = llvm::dyn_cast<DenseI64ArrayAttr>(views[result.getResultNumber()]);
  if (!entry || entry.size() != 3)
    return std::nullopt;
  return SliceView{entry[0], entry[1], entry[2]};
}

void setSliceView(SuperkernelOp kernel, unsigned index, const SliceView &view) {
  Builder builder(kernel.getContext());
  SmallVector<Attribute> entries(kernel.getNumResults(), builder.getDenseI64ArrayAttr({}));
  if (auto existing = kernel->getAttrOfType<ArrayAttr>(kSliceViewsAttr))
    for (auto [i, entry] : llvm::enumerate(existing.getValue()))
      if (i < entries.size())
        entries[i] = entry;
  entries[index] = builder.getDenseI64ArrayAttr({view.axis, view.offset, view.extent});
  kernel->setAttr(kSliceViewsAttr, builder.getArrayAttr(entries));
}

bool isInPlace(SuperkernelOp kernel) { return kernel->hasAttr(kInPlaceAttr); }

bool isAlias(SuperkernelOp kernel) { return kernel->hasAttr(kAliasAttr); }

Value sliceViewRoot(Value value) {
  while (sliceViewOf(value)) {
    Value next;
    for (Operation *user : value.getUsers())
      if (auto concat = llvm::dyn_cast<SuperkernelOp>(user); concat && isInPlace(concat))
        next = concat.getResult(0);
    if (!next)
      break;
    value = next;
  }
  return value;
}

int64_t innerElements(ArrayRef<int64_t> shape, int64_t axis) {
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d)
    inner *= shape[d];
  return inner;
}

std::string sliceViewOffset(ArrayRef<int64_t> shape, const SliceView &view, const std::string &linear) {
  const int64_t inner = innerElements(shape, view.axis);
  const int64_t chunk = shape[view.axis] * inner, pitch = view.extent * inner;
  if (chunk == pitch)
    return linear;
  const std::string index = "(long long)(" + linear + ")";
  return "(" + index + " / " + std::to_string(chunk) + "LL * " + std::to_string(pitch) + "LL + " + index + " % " +
         std::to_string(chunk) + "LL)";
}

namespace {

bool refuse(std::string *why, const std::string &reason) {
  if (why)
    *why = reason;
  return false;
}

} // namespace

bool canStoreToSliceView(SuperkernelOp kernel, StringRef target, std::string *why) {
  if (target == "cpu")
    return true;
  StringRef kind = kernel.getKind();
  if (kind != "elementwise" && kind != "data_movement" && kind != "pool" && kind != "conv")
    return refuse(why, ("a generated " + kind + " kernel stores its results contiguously").str());
  return true;
}

bool canLoadFromSliceView(SuperkernelOp kernel, unsigned index, int64_t axis, StringRef target, std::string *why) {
  if (target == "cpu")
    return true;
  StringRef kind = kernel.getKind();
  if (kind == "conv") {
    ConvOp conv;
    kernel.getBody().walk([&](ConvOp op) { conv = op; });
    if (conv && convInputSource(conv) == kernel.getBody().getArgument(index) && axis == inputChannelAxis(conv))
      return true;
    return refuse(why, "a generated conv kernel reads its operand " + std::to_string(index) +
                           " as a contiguous tensor (it takes slices of its input's channels only)");
  }
  if (kind != "elementwise" && kind != "data_movement")
    return refuse(
        why, ("a generated " + kind + " kernel reads its operand " + std::to_string(index) + " as a contiguous tensor")
                 .str());
  return true;
}

} // namespace fusec::fuse
