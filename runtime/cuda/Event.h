//===- Event.h - A CUDA event for timing work on the session's stream -------===//
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
  /// Milliseconds from `start` to this event; both must have completed
  /// (the stream was synchronized after recording them).
  double millisecondsSince(const Event &start) const;

private:
  const CudaContext &context_;
  CUevent event_ = nullptr;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_EVENT_H
