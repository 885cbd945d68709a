//===- NpyFuzzer.cpp - libFuzzer harness: the .npy reader -------------------===//
//
// decodeNpy must reject every malformed file with an Error; a decoded tensor
// must round-trip through encodeNpy.
//
//===----------------------------------------------------------------------===//

#include "runtime/Error.h"
#include "runtime/Npy.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace fusec::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Tensor tensor;
  try {
    tensor = decodeNpy(std::vector<uint8_t>(data, data + size), "fuzz.npy");
  } catch (const Error &) {
    return 0;
  }
  const Tensor again = decodeNpy(encodeNpy(tensor), "round-trip.npy");
  if (again.shape() != tensor.shape() || again.values().size() != tensor.values().size())
    std::abort();
  return 0;
}
