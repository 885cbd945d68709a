//===- Event.cpp - A CUDA event for timing work on the session's stream -----===//

#include "runtime/cuda/Event.h"

namespace fusec::runtime::cuda {

Event::Event(const CudaContext &context) : context_(context) {
  const DriverApi &cu = context_.api();
  cu.check(cu.eventCreate(&event_, kEventDefault), "cuEventCreate", "for timing");
}

Event::~Event() { context_.api().eventDestroy(event_); }

void Event::record() {
  const DriverApi &cu = context_.api();
  cu.check(cu.eventRecord(event_, context_.stream()), "cuEventRecord", "for timing");
}

void Event::recordOn(CUstream stream) {
  const DriverApi &cu = context_.api();
  cu.check(cu.eventRecord(event_, stream), "cuEventRecord", "to order the session's stream with the caller's");
}

void Event::makeWait(CUstream stream) const {
  const DriverApi &cu = context_.api();
  cu.check(cu.streamWaitEvent(stream, event_, 0), "cuStreamWaitEvent",
           "to order the session's stream with the caller's");
}

double Event::millisecondsSince(const Event &start) const {
  const DriverApi &cu = context_.api();
  float milliseconds = 0.0f;
  cu.check(cu.eventElapsedTime(&milliseconds, start.event_, event_), "cuEventElapsedTime", "for timing");
  return milliseconds;
}

} // namespace fusec::runtime::cuda
