//===- Hash.h - Content hashes for plans and kernel caches ------*- C++ -*-===//
//
// One non-cryptographic 64-bit hash for everything fusec keys by content:
// plan section and manifest checksums (which the plan format fixes, so it
// must never change), kernel cache keys and source-model hashes.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SUPPORT_HASH_H
#define FUSEC_RUNTIME_SUPPORT_HASH_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace fusec {

/// FNV-1a, 64 bit; `hash` continues an earlier call's result.
inline uint64_t fnv1a64(const void *data, size_t size, uint64_t hash = 0xcbf29ce484222325ULL) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

/// `value` as 16 lowercase hex digits (how the plan manifest spells checksums).
inline std::string toHex64(uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4)
    out[i] = digits[value & 0xf];
  return out;
}

} // namespace fusec

#endif // FUSEC_RUNTIME_SUPPORT_HASH_H
