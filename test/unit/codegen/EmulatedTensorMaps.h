//===- EmulatedTensorMaps.h - Tensor maps for emulated launches -*- C++ -*-===//
//
// What the CUDA runtime does for a launch with tensor maps
// (runtime/cuda/KernelModules.cpp), for the emulation tests: each map
// encoded for its buffer's host address at the launch's batch, by the
// emulation's encoder (codegen/emulation/fusec_tensor_map_emulation.h),
// passed after the kernel's other parameters.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_CODEGEN_EMULATEDTENSORMAPS_H
#define FUSEC_TEST_UNIT_CODEGEN_EMULATEDTENSORMAPS_H

#include "support/TensorMapDesc.h"

#include <vector>

namespace fusec::test {

class EmulatedTensorMaps {
public:
  /// Encodes `maps` over `buffers` (the kernel's inputs, then outputs, as
  /// host addresses) at `batch`.
  EmulatedTensorMaps(const std::vector<TensorMapDesc> &maps, const std::vector<void *> &buffers, int64_t batch);

  /// Appends a pointer to each encoded map to a launch's `args`.
  void appendTo(std::vector<void *> &args);

private:
  struct alignas(128) Encoded {
    unsigned char bytes[128];
  };
  std::vector<Encoded> encoded_;
};

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_CODEGEN_EMULATEDTENSORMAPS_H
