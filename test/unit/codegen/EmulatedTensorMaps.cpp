//===- EmulatedTensorMaps.cpp - Tensor maps for emulated launches ---------===//

#include "EmulatedTensorMaps.h"

#include "fusec_tensor_map_emulation.h"

namespace fusec::test {

EmulatedTensorMaps::EmulatedTensorMaps(const std::vector<TensorMapDesc> &maps, const std::vector<void *> &buffers,
                                       int64_t batch)
    : encoded_(maps.size()) {
  namespace tma = fusec_emulation::tma;
  for (size_t i = 0; i < maps.size(); ++i) {
    const TensorMapDesc &map = maps[i];
    const uint64_t dims[2] = {uint64_t(map.columns), uint64_t(map.rows.at(batch))};
    const uint64_t strides[1] = {uint64_t(map.columns * TensorMapDesc::kElementBytes)};
    const uint32_t box[2] = {map.box[0], map.box[1]};
    tma::encodeTiled(encoded_[i].bytes, uint32_t(TensorMapDesc::kElementBytes), 2, buffers.at(map.buffer), dims,
                     strides, box, tma::Swizzle::Bytes128);
  }
}

void EmulatedTensorMaps::appendTo(std::vector<void *> &args) {
  for (Encoded &map : encoded_)
    args.push_back(map.bytes);
}

} // namespace fusec::test
