//===- fusec_tensor_map_emulation.h - TMA descriptors on the host -*- C++ -*-===//
//
// A CUtensorMap is 128 opaque bytes that cuTensorMapEncodeTiled fills and
// the TMA unit reads. Under the emulation (fusec_sm90_emulation.h) the same
// 128 bytes hold the encoding parameters in plain fields, written by
// encodeTiled below, which checks what the driver's encoder checks (CUDA
// Driver API, "Tensor Map Object Management", cuTensorMapEncodeTiled):
//
//  * rank 1..5; every global dimension in [1, 2^32];
//  * the global address 16-byte aligned and every global stride (rank - 1
//    of them, in bytes, for dimensions 1..rank-1) a multiple of 16 below 2^40;
//  * every box dimension in [1, 256]; the box's inner dimension in bytes a
//    multiple of 16 and, with a swizzle, at most the swizzle's span
//    (32, 64 or 128 bytes);
//  * element strides (the traversal stride of each dimension) in [1, 8],
//    the innermost one ignored as the driver ignores it; no interleave:
//    the tile mode fusec uses. With a stride s the box loads
//    ceil(box / s) elements along that dimension, s apart.
//
// Plain C++ without CUDA's keywords: test programs include it to encode the
// maps they pass to emulated kernels.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CODEGEN_EMULATION_FUSEC_TENSOR_MAP_EMULATION_H
#define FUSEC_CODEGEN_EMULATION_FUSEC_TENSOR_MAP_EMULATION_H

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace fusec_emulation::tma {

/// The swizzle a map applies to the box in shared memory, by its span in
/// bytes (CU_TENSOR_MAP_SWIZZLE_NONE, _32B, _64B, _128B).
enum class Swizzle : uint32_t { None = 0, Bytes32 = 32, Bytes64 = 64, Bytes128 = 128 };

constexpr uint32_t kMagic = 0x544d4150; // "TMAP": an encoded map, not poison or zeros
constexpr uint32_t kMaxRank = 5;

/// What the 128 bytes of an emulated CUtensorMap hold.
struct TiledMap {
  uint32_t magic;
  uint32_t rank;
  uint32_t elementBytes;
  Swizzle swizzle;
  uint64_t global;                  // address of element (0, ..., 0)
  uint64_t dims[kMaxRank];          // innermost first
  uint64_t strides[kMaxRank - 1];   // bytes between steps of dimensions 1..rank-1
  uint16_t box[kMaxRank];           // innermost first, in [1, 256]
  uint8_t elementStrides[kMaxRank]; // traversal strides in [1, 8]; the innermost is 1
};
static_assert(sizeof(TiledMap) <= 128, "an emulated tensor map fits in a CUtensorMap's 128 bytes");

/// Fills the 128 bytes at `map` (64-byte aligned, as CUtensorMap is) the way
/// cuTensorMapEncodeTiled would with no interleave and zero fill out of
/// bounds; `elementStrides` null means all 1. Throws std::invalid_argument
/// naming the parameter the driver would reject.
inline void encodeTiled(void *map, uint32_t elementBytes, uint32_t rank, const void *global, const uint64_t *dims,
                        const uint64_t *strides, const uint32_t *box, Swizzle swizzle,
                        const uint32_t *elementStrides = nullptr) {
  auto reject = [](const std::string &why) { throw std::invalid_argument("cuTensorMapEncodeTiled: " + why); };
  if (reinterpret_cast<uintptr_t>(map) % 64 != 0)
    reject("the map must be 64-byte aligned");
  if (rank < 1 || rank > kMaxRank)
    reject("rank " + std::to_string(rank) + " is outside [1, 5]");
  if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4 && elementBytes != 8)
    reject("element size " + std::to_string(elementBytes) + " is not 1, 2, 4 or 8 bytes");
  if (reinterpret_cast<uintptr_t>(global) % 16 != 0)
    reject("the global address must be 16-byte aligned");
  TiledMap encoded{};
  encoded.magic = kMagic;
  encoded.rank = rank;
  encoded.elementBytes = elementBytes;
  encoded.swizzle = swizzle;
  encoded.global = reinterpret_cast<uintptr_t>(global);
  for (uint32_t d = 0; d < rank; ++d) {
    if (dims[d] < 1 || dims[d] > (uint64_t(1) << 32))
      reject("global dimension " + std::to_string(d) + " is outside [1, 2^32]");
    if (box[d] < 1 || box[d] > 256)
      reject("box dimension " + std::to_string(d) + " is outside [1, 256]");
    encoded.dims[d] = dims[d];
    encoded.box[d] = uint16_t(box[d]);
    const uint32_t step = elementStrides ? elementStrides[d] : 1;
    if (step < 1 || step > 8)
      reject("element stride " + std::to_string(d) + " is " + std::to_string(step) + ", outside [1, 8]");
    // "the first element of this array is ignored since TMA doesn't
    // support the stride for dimension zero"
    encoded.elementStrides[d] = uint8_t(d == 0 ? 1 : step);
    if (d > 0) {
      if (strides[d - 1] % 16 != 0 || strides[d - 1] >= (uint64_t(1) << 40))
        reject("global stride " + std::to_string(d - 1) + " is not a multiple of 16 below 2^40");
      encoded.strides[d - 1] = strides[d - 1];
    }
  }
  const uint64_t innerBytes = uint64_t(box[0]) * elementBytes;
  if (innerBytes % 16 != 0)
    reject("the box's inner dimension is " + std::to_string(innerBytes) + " bytes, not a multiple of 16");
  if (swizzle != Swizzle::None && innerBytes > uint64_t(swizzle))
    reject("the box's inner dimension (" + std::to_string(innerBytes) + " bytes) exceeds the " +
           std::to_string(uint32_t(swizzle)) + "-byte swizzle span");
  std::memset(map, 0, 128);
  std::memcpy(map, &encoded, sizeof encoded);
}

/// The elements a box of `map` holds along dimension `d`: ceil(box /
/// element stride), what lands in shared memory.
inline uint32_t boxElements(const TiledMap &map, uint32_t d) {
  return (uint32_t(map.box[d]) + map.elementStrides[d] - 1) / map.elementStrides[d];
}

} // namespace fusec_emulation::tma

#endif // FUSEC_CODEGEN_EMULATION_FUSEC_TENSOR_MAP_EMULATION_H
