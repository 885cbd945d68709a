//===- Event.h - A CUDA event: timing, and ordering between streams ---------===//
#ifndef FUSEC_RUNTIME_CUDA_EVENT_H
#define FUSEC_RUNTIME_CUDA_EVENT_H

#include "runtime/cuda/CudaContext.h"

namespace fusec::runtime::cuda {

class Event {
public:
  explicit Event(const CudaContext &context);
  ~Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  /// Records the event on the session's stream.
  void record();
  /// Records the event on `stream` (another stream of the same context).
  void recordOn(CUstream stream);
  /// Makes `stream`'s later work wait until the event's recorded work has
  /// completed, without blocking the host.
  void makeWait(CUstream stream) const;
  /// Milliseconds from `start` to this event; both must have completed
  /// (the stream was synchronized after recording them).
  double millisecondsSince(const Event &start) const;

private:
  const CudaContext &context_;
  CUevent event_ = nullptr;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_EVENT_H
