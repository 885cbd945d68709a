//===- StreamObjects.h - A session's stream and events, owned ---------------===//
#ifndef FUSEC_RUNTIME_GPU_STREAMOBJECTS_H
#define FUSEC_RUNTIME_GPU_STREAMOBJECTS_H

#include "runtime/gpu/GpuDevice.h"

namespace fusec::runtime::gpu {

/// A stream of the driver's device, destroyed with its owner.
class OwnedStream {
public:
  explicit OwnedStream(const GpuDevice &driver)
      : driver_(driver), stream_(driver.createStream("for the session's stream")) {}
  ~OwnedStream() { driver_.destroyStream(stream_); }
  OwnedStream(const OwnedStream &) = delete;
  OwnedStream &operator=(const OwnedStream &) = delete;

  Stream get() const { return stream_; }

private:
  const GpuDevice &driver_;
  Stream stream_;
};

/// An event: timing, and ordering between streams.
class OwnedEvent {
public:
  explicit OwnedEvent(const GpuDevice &driver) : driver_(driver), event_(driver.createEvent("for an event")) {}
  ~OwnedEvent() { driver_.destroyEvent(event_); }
  OwnedEvent(const OwnedEvent &) = delete;
  OwnedEvent &operator=(const OwnedEvent &) = delete;

  void record(Stream stream) const { driver_.recordEvent(event_, stream, "for timing"); }
  /// Makes `stream`'s later work wait for the work before the last record.
  void makeWait(Stream stream) const {
    driver_.waitEvent(stream, event_, "to order the session's stream with the caller's");
  }
  /// Milliseconds from `start` to this event; both must have completed.
  double millisecondsSince(const OwnedEvent &start) const {
    return driver_.elapsedMilliseconds(start.event_, event_, "for timing");
  }
  /// Records on a stream the session does not own (a caller's).
  void recordOn(Stream stream) const {
    driver_.recordEvent(event_, stream, "to order the session's stream with the caller's");
  }

private:
  const GpuDevice &driver_;
  Event event_;
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_STREAMOBJECTS_H
