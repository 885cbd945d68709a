//===- KernelInterpreter.cpp - Run one plan kernel on the host ------------===//
#include "runtime/cpu/KernelInterpreter.h"

#include "runtime/ElementConversion.h"
#include "runtime/Error.h"
#include "runtime/cpu/OpRegistry.h"
#include "runtime/plan/OpTypeVerifier.h"

#include <cstring>

namespace fusec::runtime::cpu {

namespace {

/// A kernel value in its computation type: float32 for float types, int64_t
/// for integer types.
struct Value {
  ElementType type = ElementType::F32;
  Shape shape;
  size_t count = 0;
  const float *floats = nullptr;
  const int64_t *integers = nullptr;
  std::vector<float> floatStorage;
  std::vector<int64_t> integerStorage;
};

/// Cast: every conversion of docs/plan-format.md ("Element types").
void castValue(const Value &from, Value &to) {
  const bool fromFloat = isFloatElementType(from.type);
  if (isFloatElementType(to.type)) {
    for (size_t i = 0; i < to.count; ++i)
      to.floatStorage[i] =
          fromFloat ? floatToFloat(from.floats[i], to.type) : integerToFloat(from.integers[i], to.type);
    return;
  }
  for (size_t i = 0; i < to.count; ++i)
    to.integerStorage[i] =
        fromFloat ? floatToInteger(from.floats[i], to.type) : integerToInteger(from.integers[i], to.type);
}

/// Copies `rows` rows of `chunk` elements of `elementBytes` between a dense
/// tensor and a view whose rows are `pitch` elements apart.
void copyRows(const BufferDesc::View &view, int64_t rows, size_t elementBytes, const uint8_t *from, uint8_t *to,
              bool toView) {
  const size_t chunk = static_cast<size_t>(view.chunk) * elementBytes,
               pitch = static_cast<size_t>(view.pitch) * elementBytes;
  for (int64_t row = 0; row < rows; ++row) {
    const size_t r = static_cast<size_t>(row);
    std::memcpy(to + r * (toView ? pitch : chunk), from + r * (toView ? chunk : pitch), chunk);
  }
}

} // namespace

void interpretKernel(const KernelDesc &kernel, int64_t batch, const std::vector<void *> &buffers,
                     const std::vector<BufferDesc> &descs) {
  // Op results live in temporaries and are written to the output buffers at
  // the end: a memory plan may let a kernel's output share bytes with one of
  // its inputs, which is only safe once every op has read its operands.
  const size_t numValues = kernel.values.size();
  std::vector<Value> values(numValues);
  for (size_t i = 0; i < numValues; ++i) {
    values[i].type = kernel.valueTypes[i];
    values[i].shape = resolveShape(kernel.values[i], batch);
    values[i].count = static_cast<size_t>(numElements(values[i].shape));
  }
  // Views are gathered into dense copies first.
  std::vector<std::vector<uint8_t>> gathered(kernel.inputs.size());
  auto rowsOf = [&](const Value &value, const BufferDesc::View &view) {
    return static_cast<int64_t>(value.count) / view.chunk;
  };
  // Kernel inputs: f32 buffers are read in place, others converted.
  for (size_t i = 0; i < kernel.inputs.size(); ++i) {
    Value &value = values[i];
    const void *source = buffers[kernel.inputs[i]];
    if (const auto &view = descs[kernel.inputs[i]].view; view && !view->alias && value.count > 0) {
      const size_t elementBytes = elementSize(value.type);
      gathered[i].resize(value.count * elementBytes);
      copyRows(*view, rowsOf(value, *view), elementBytes, static_cast<const uint8_t *>(source), gathered[i].data(),
               /*toView=*/false);
      source = gathered[i].data();
    }
    if (value.type == ElementType::F32) {
      value.floats = static_cast<const float *>(source);
    } else if (isFloatElementType(value.type)) {
      value.floatStorage.resize(value.count);
      loadFloats(source, value.type, value.count, value.floatStorage.data());
      value.floats = value.floatStorage.data();
    } else {
      value.integerStorage.resize(value.count);
      loadIntegers(source, value.type, value.count, value.integerStorage.data());
      value.integers = value.integerStorage.data();
    }
  }

  for (const OpDesc &op : kernel.ops) {
    for (size_t result : op.results) {
      Value &value = values[result];
      if (isFloatElementType(value.type)) {
        value.floatStorage.assign(value.count, 0.0f);
        value.floats = value.floatStorage.data();
      } else {
        value.integerStorage.assign(value.count, 0);
        value.integers = value.integerStorage.data();
      }
    }
    if (op.op == kCastOp) {
      if (op.operands.size() != 1 || op.results.size() != 1)
        throw Error("kernel '" + kernel.name + "' op " + op.op + " '" + op.name +
                    "': needs one operand and one result");
      const Value &from = values[op.operands[0]];
      Value &to = values[op.results[0]];
      if (to.count != from.count)
        throw Error("kernel '" + kernel.name + "' op " + op.op + " '" + op.name + "': the result has " +
                    std::to_string(to.count) + " elements, the operand " + std::to_string(from.count));
      castValue(from, to);
      continue;
    }
    std::vector<ConstView> operands;
    operands.reserve(op.operands.size());
    for (size_t index : op.operands)
      operands.push_back(
          ConstView{values[index].floats, values[index].shape, values[index].type, values[index].integers});
    std::vector<MutableView> results;
    results.reserve(op.results.size());
    for (size_t index : op.results)
      results.push_back(MutableView{values[index].floatStorage.data(), values[index].shape, values[index].type,
                                    values[index].integerStorage.data()});
    executeOp(kernel, op, std::move(operands), std::move(results));
    // Float ops computed in float32; their results take their values' types.
    for (size_t index : op.results)
      if (isFloatElementType(values[index].type))
        roundFloats(values[index].floatStorage.data(), values[index].count, values[index].type);
  }

  for (size_t i = 0; i < kernel.outputs.size(); ++i) {
    const Value &value = values[kernel.yields[i]];
    // An alias is dense: only slices are scattered.
    const std::optional<BufferDesc::View> &declared = descs[kernel.outputs[i]].view;
    const BufferDesc::View *view = declared && !declared->alias ? &*declared : nullptr;
    std::vector<uint8_t> dense;
    void *target = buffers[kernel.outputs[i]];
    if (view)
      dense.resize(value.count * elementSize(value.type));
    // The verifier checked that the value's type is the output buffer's.
    if (isFloatElementType(value.type))
      storeFloats(value.floats, value.count, value.type, view ? dense.data() : target);
    else
      storeIntegers(value.integers, value.count, value.type, view ? dense.data() : target);
    if (view && value.count > 0)
      copyRows(*view, rowsOf(value, *view), elementSize(value.type), dense.data(), static_cast<uint8_t *>(target),
               /*toView=*/true);
  }
}

} // namespace fusec::runtime::cpu
