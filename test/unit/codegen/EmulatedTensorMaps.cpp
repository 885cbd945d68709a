//===- EmulatedTensorMaps.cpp - Tensor maps for emulated launches ---------===//

#include "EmulatedTensorMaps.h"

#include "fusec_tensor_map_emulation.h"

namespace fusec::test {

EmulatedTensorMaps::EmulatedTensorMaps(const std::vector<TensorMapDesc> &maps, const std::vector<void *> &buffers,
                                       int64_t batch)
    : encoded_(maps.size()) {
  namespace tma = fusec_emulation::tma;
  for (size_t i = 0; i < maps.size(); ++i) {
    const TensorMapDesc::Encoding encoding = maps[i].encodingAt(batch);
    tma::encodeTiled(encoded_[i].bytes, uint32_t(TensorMapDesc::kElementBytes), encoding.rank,
                     buffers.at(maps[i].buffer), encoding.dims, encoding.strides, encoding.box,
                     maps[i].swizzleBytes == 0 ? tma::Swizzle::None : tma::Swizzle::Bytes128, encoding.elementStrides);
  }
}

void EmulatedTensorMaps::appendTo(std::vector<void *> &args) {
  for (Encoded &map : encoded_)
    args.push_back(map.bytes);
}

} // namespace fusec::test
