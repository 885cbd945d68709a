//===- GuardedMemory.cpp - Host memory that traps stray accesses ----------===//

#include "GuardedMemory.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

namespace fusec::test {

namespace {

constexpr size_t kCanary = 0xff;
constexpr size_t kMaxBuffers = 256;

/// One live buffer's guard pages, readable from the signal handler: the
/// leading page [lead, lead + page), the trailing one [trail, trail + page).
struct GuardSlot {
  std::atomic<uintptr_t> lead{0};
  std::atomic<uintptr_t> trail{0};
  /// The first faulting address in either guard page, and whether a write.
  std::atomic<uintptr_t> fault{0};
  std::atomic<bool> write{false};
};

GuardSlot slots[kMaxBuffers];
std::mutex slotsMutex; // taking and freeing slots, never in the handler
struct sigaction previousAction;
size_t pageBytes() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

void onSegfault(int signal, siginfo_t *info, void *context) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  const uintptr_t page = pageBytes();
  for (GuardSlot &slot : slots)
    for (uintptr_t guard : {slot.lead.load(), slot.trail.load()})
      if (guard && address >= guard && address < guard + page) {
        uintptr_t none = 0;
        if (slot.fault.compare_exchange_strong(none, address)) {
#if defined(__x86_64__)
          // Bit 1 of the page-fault error code: the access was a write.
          slot.write = (static_cast<ucontext_t *>(context)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
          (void)context;
#endif
        }
        ::mprotect(reinterpret_cast<void *>(guard), page, PROT_READ | PROT_WRITE);
        return; // the access runs again, now on an open page
      }
  // Not a guard page: whoever handled SIGSEGV before handles it.
  if (previousAction.sa_flags & SA_SIGINFO) {
    previousAction.sa_sigaction(signal, info, context);
  } else if (previousAction.sa_handler != SIG_IGN && previousAction.sa_handler != SIG_DFL) {
    previousAction.sa_handler(signal);
  } else {
    ::signal(SIGSEGV, SIG_DFL); // the access faults again and ends the process
  }
}

/// Installs the handler unless it is the current one: a test framework may
/// have put its own back since (Catch2 does, after every test case).
void installHandler() {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  struct sigaction current = {};
  ::sigaction(SIGSEGV, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == onSegfault)
    return;
  struct sigaction action = {};
  action.sa_sigaction = onSegfault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  if (::sigaction(SIGSEGV, &action, &previousAction) != 0)
    throw std::runtime_error("cannot install the SIGSEGV handler of the guard pages");
}

} // namespace

GuardedBuffer::GuardedBuffer(size_t bytes, uint8_t fill, size_t phase) : bytes_(bytes) {
  installHandler();
  const size_t page = pageBytes();
  phase %= 16;
  // Room for the data and the slack its alignment may leave.
  const size_t dataPages = (bytes + 16 + page - 1) / page;
  mappingBytes_ = (dataPages + 2) * page;
  void *mapping = ::mmap(nullptr, mappingBytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED)
    throw std::runtime_error("cannot map " + std::to_string(mappingBytes_) + " bytes of guarded memory");
  mapping_ = static_cast<uint8_t *>(mapping);
  uint8_t *const trail = mapping_ + (dataPages + 1) * page;
  // As late as the phase allows: the end at most 12 bytes before the page.
  uintptr_t start = reinterpret_cast<uintptr_t>(trail) - bytes;
  start = (start - phase) / 16 * 16 + phase;
  data_ = reinterpret_cast<uint8_t *>(start);
  std::memset(mapping_ + page, kCanary, dataPages * page);
  std::memset(data_, fill, bytes);
  ::mprotect(mapping_, page, PROT_NONE);
  ::mprotect(trail, page, PROT_NONE);

  std::lock_guard<std::mutex> lock(slotsMutex);
  for (slot_ = 0; slot_ < kMaxBuffers && slots[slot_].lead.load(); ++slot_)
    ;
  if (slot_ == kMaxBuffers)
    throw std::runtime_error("more than " + std::to_string(kMaxBuffers) + " guarded buffers at once");
  slots[slot_].fault = 0;
  slots[slot_].write = false;
  slots[slot_].trail = reinterpret_cast<uintptr_t>(trail);
  slots[slot_].lead = reinterpret_cast<uintptr_t>(mapping_);
}

GuardedBuffer::~GuardedBuffer() {
  {
    std::lock_guard<std::mutex> lock(slotsMutex);
    slots[slot_].lead = 0;
    slots[slot_].trail = 0;
  }
  ::munmap(mapping_, mappingBytes_);
}

std::string GuardedBuffer::faults(const std::string &name) const {
  const GuardSlot &slot = slots[slot_];
  auto offset = [&](uintptr_t address) {
    const long long relative =
        static_cast<long long>(address) - static_cast<long long>(reinterpret_cast<uintptr_t>(data_));
    return relative >= 0 ? "byte " + std::to_string(relative) + " (" + std::to_string(relative - (long long)bytes_) +
                               " past the end of its " + std::to_string(bytes_) + ")"
                         : std::to_string(-relative) + " bytes before its start";
  };
  if (const uintptr_t fault = slot.fault.load())
    return name + ": out-of-bounds " + (slot.write ? "write" : "access") + " at " + offset(fault);
  const size_t page = pageBytes();
  for (const uint8_t *byte = mapping_ + page; byte < mapping_ + mappingBytes_ - page; ++byte)
    if ((byte < data_ || byte >= data_ + bytes_) && *byte != kCanary)
      return name + ": out-of-bounds write at " + offset(reinterpret_cast<uintptr_t>(byte));
  return "";
}

} // namespace fusec::test
