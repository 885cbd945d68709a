//===- NpyFuzzer.cpp - libFuzzer harness: the .npy reader -------------------===//
//
// decodeNpy must reject every malformed file with an Error; a decoded tensor
// must round-trip through encodeNpy: same shape, element type and bytes.
//
//===----------------------------------------------------------------------===//

#include "runtime/Error.h"
#include "runtime/Npy.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace fusec::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Tensor tensor;
  try {
    tensor = decodeNpy(std::vector<uint8_t>(data, data + size), "fuzz.npy");
  } catch (const Error &) {
    return 0;
  }
  const Tensor again = decodeNpy(encodeNpy(tensor), "round-trip.npy");
  if (again.shape() != tensor.shape() || again.elementType() != tensor.elementType() ||
      again.byteSize() != tensor.byteSize() ||
      (tensor.byteSize() > 0 && std::memcmp(again.rawData(), tensor.rawData(), tensor.byteSize()) != 0))
    std::abort();
  return 0;
}
