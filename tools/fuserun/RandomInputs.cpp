//===- RandomInputs.cpp - Deterministic inputs for smoke tests and benchmarks ===//

#include "tools/fuserun/RandomInputs.h"

#include "runtime/ElementConversion.h"

namespace fusec::runtime {

namespace {

/// SplitMix64: tiny, fast and fully specified, unlike the distributions of
/// <random>, whose output differs between standard libraries.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [-1, 1), from the top 24 bits (exact in float).
  float nextSymmetric() { return static_cast<float>(next() >> 40) * (2.0f / 16777216.0f) - 1.0f; }

private:
  uint64_t state_;
};

/// Integer inputs are uniform in [0, kIntegerRange).
constexpr uint64_t kIntegerRange = 8;

} // namespace

std::map<std::string, Tensor> makeRandomInputs(const Plan &plan, int64_t batch, uint64_t seed) {
  std::map<std::string, Tensor> inputs;
  for (size_t i = 0; i < plan.inputs().size(); ++i) {
    const TensorDesc &input = plan.inputs()[i];
    SplitMix64 generator(seed * 0x100000001b3ULL + i);
    Tensor tensor(resolveShape(input.shape, batch), input.dtype);
    const size_t count = static_cast<size_t>(tensor.numElements());
    if (isFloatElementType(input.dtype)) {
      std::vector<float> values(count);
      for (float &value : values)
        value = generator.nextSymmetric();
      storeFloats(values.data(), count, input.dtype, tensor.rawData());
    } else {
      // Small and non-negative, so that integer inputs make sense as indices
      // or counts; i1 gets 0 and 1. Quantized inputs (i8, u8) take their
      // type's whole range.
      const bool quantized = input.dtype == ElementType::I8 || input.dtype == ElementType::U8;
      const uint64_t range = input.dtype == ElementType::I1 ? 2 : quantized ? 256 : kIntegerRange;
      const int64_t low = input.dtype == ElementType::I8 ? -128 : 0;
      std::vector<int64_t> values(count);
      for (int64_t &value : values)
        value = low + static_cast<int64_t>((generator.next() >> 32) % range);
      storeIntegers(values.data(), count, input.dtype, tensor.rawData());
    }
    inputs.emplace(input.name, std::move(tensor));
  }
  return inputs;
}

} // namespace fusec::runtime
