//===- ByteRange.h - A run of bytes owned elsewhere ---------------*- C++ -*-===//
#ifndef FUSEC_RUNTIME_SUPPORT_BYTERANGE_H
#define FUSEC_RUNTIME_SUPPORT_BYTERANGE_H

#include <cstddef>
#include <cstdint>

namespace fusec::runtime {

/// `size` bytes at `data`, which whoever made the range owns.
struct ByteRange {
  const uint8_t *data = nullptr;
  size_t size = 0;
};

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_SUPPORT_BYTERANGE_H
