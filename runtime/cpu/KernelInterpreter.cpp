//===- KernelInterpreter.cpp - Run one plan kernel on the host ------------===//
#include "runtime/cpu/KernelInterpreter.h"

#include "runtime/ElementConversion.h"
#include "runtime/Error.h"
#include "runtime/cpu/OpRegistry.h"
#include "runtime/plan/OpTypeVerifier.h"

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

} // namespace

void interpretKernel(const KernelDesc &kernel, int64_t batch, const std::vector<void *> &buffers) {
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
  // Kernel inputs: f32 buffers are read in place, others converted.
  for (size_t i = 0; i < kernel.inputs.size(); ++i) {
    Value &value = values[i];
    const void *source = buffers[kernel.inputs[i]];
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
    // The verifier checked that the value's type is the output buffer's.
    if (isFloatElementType(value.type))
      storeFloats(value.floats, value.count, value.type, buffers[kernel.outputs[i]]);
    else
      storeIntegers(value.integers, value.count, value.type, buffers[kernel.outputs[i]]);
  }
}

} // namespace fusec::runtime::cpu
