//===- GuardedMemory.h - Host memory that traps stray accesses --*- C++ -*-===//
//
// Emulated kernels read and write plain host memory, where an access past a
// buffer's end finds its neighbour instead of faulting. Here a buffer sits
// between inaccessible guard pages: an access that reaches a guard page
// faults, and a SIGSEGV handler records it, opens the page so that the
// thread can go on (reading zeros), and lets the launch finish; the owner
// then reports the fault as an error naming the buffer and the offset.
// The bytes between a buffer's end and its guard page (the page is whole,
// the buffer need not be) hold 0xff canaries: reads there give NaN, and
// writes there are found when the canaries are checked.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_CODEGEN_GUARDEDMEMORY_H
#define FUSEC_TEST_UNIT_CODEGEN_GUARDEDMEMORY_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace fusec::test {

/// `bytes` of memory between two guard pages, filled with `fill`, starting
/// at an address whose remainder modulo 16 is `phase` (so that a copy of a
/// buffer keeps the alignment vector accesses see), ending as close to the
/// trailing guard page as that allows: at it when bytes + phase is a
/// multiple of 16, else at most 12 bytes (canaries) before it.
class GuardedBuffer {
public:
  GuardedBuffer(size_t bytes, uint8_t fill, size_t phase = 0);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer &) = delete;
  GuardedBuffer &operator=(const GuardedBuffer &) = delete;

  uint8_t *data() const { return data_; }
  size_t bytes() const { return bytes_; }

  /// "" if nothing touched the guard pages or the canaries since the
  /// buffer was made; otherwise what happened, with offsets relative to
  /// the buffer's start, prefixed by `name`.
  std::string faults(const std::string &name) const;

private:
  uint8_t *mapping_ = nullptr;
  size_t mappingBytes_ = 0;
  uint8_t *data_ = nullptr;
  size_t bytes_ = 0;
  size_t slot_ = 0;
};

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_CODEGEN_GUARDEDMEMORY_H
