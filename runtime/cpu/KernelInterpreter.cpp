//===- KernelInterpreter.cpp - Run one plan kernel on the host ------------===//
#include "runtime/cpu/KernelInterpreter.h"

#include "runtime/cpu/OpRegistry.h"

#include <cstring>

namespace fusec::runtime::cpu {

void interpretKernel(const KernelDesc &kernel, int64_t batch, const std::vector<float *> &buffers) {
  // Op results live in temporaries and are copied to the output buffers at
  // the end: a memory plan may let a kernel's output share bytes with one of
  // its inputs, which is only safe once every op has read its operands.
  const size_t numValues = kernel.values.size();
  std::vector<const float *> data(numValues, nullptr);
  std::vector<Shape> shapes(numValues);
  std::vector<std::vector<float>> temporaries(numValues);
  for (size_t i = 0; i < numValues; ++i)
    shapes[i] = resolveShape(kernel.values[i], batch);
  for (size_t i = 0; i < kernel.inputs.size(); ++i)
    data[i] = buffers[kernel.inputs[i]];

  for (const OpDesc &op : kernel.ops) {
    std::vector<ConstView> operands;
    operands.reserve(op.operands.size());
    for (size_t value : op.operands)
      operands.push_back(ConstView{data[value], shapes[value]});
    std::vector<MutableView> results;
    for (size_t value : op.results) {
      temporaries[value].assign(static_cast<size_t>(numElements(shapes[value])), 0.0f);
      data[value] = temporaries[value].data();
      results.push_back(MutableView{temporaries[value].data(), shapes[value]});
    }
    executeOp(kernel, op, std::move(operands), std::move(results));
  }

  for (size_t i = 0; i < kernel.outputs.size(); ++i) {
    const size_t value = kernel.yields[i];
    const int64_t count = numElements(shapes[value]);
    if (count > 0)
      std::memmove(buffers[kernel.outputs[i]], data[value], static_cast<size_t>(count) * sizeof(float));
  }
}

} // namespace fusec::runtime::cpu
