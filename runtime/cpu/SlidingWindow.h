//===- SlidingWindow.h - 2-D window geometry of Conv and pooling ops --------===//
//
// Conv, MaxPool and AveragePool slide a kernel over the two spatial
// dimensions of an NCHW tensor with strides, dilations and begin/end padding.
// This computes output sizes the way ONNX and PyTorch do and which output
// positions see real (unpadded) input.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CPU_SLIDINGWINDOW_H
#define FUSEC_RUNTIME_CPU_SLIDINGWINDOW_H

#include "runtime/cpu/OpContext.h"
#include "support/OpRules.h"

#include <cstdint>
#include <utility>

namespace fusec::runtime::cpu {

struct SlidingWindow {
  int64_t kernel[2];
  int64_t stride[2];
  int64_t dilation[2];
  int64_t padBegin[2];
  int64_t padEnd[2];

  /// The geometry along spatial dimension `dim` for an input extent `input`.
  rules::WindowAxis axis(int dim, int64_t input) const;

  /// Reads `strides`, `pads` and (if `hasDilations`; else 1) `dilations` of a
  /// window of the given kernel size, and checks that they are positive
  /// (pads non-negative).
  static SlidingWindow read(const OpContext &context, int64_t kernelH, int64_t kernelW, bool hasDilations);

  /// The output extent along spatial dimension `dim` for an input extent
  /// `input` (rules::windowOutputSize, overflow-checked). With `ceilMode`, a
  /// last window that would start in the end padding is dropped (as ONNX and
  /// PyTorch do).
  int64_t outputSize(const OpContext &context, int dim, int64_t input, bool ceilMode) const;

  /// The first input index window position `out` covers along `dim`.
  int64_t inputStart(int dim, int64_t out) const { return out * stride[dim] - padBegin[dim]; }

  /// The output positions [begin, end) whose kernel tap `tap` along `dim`
  /// reads a real input element, i.e. 0 <= inputStart(out) + tap*dilation <
  /// input.
  std::pair<int64_t, int64_t> validOutputs(int dim, int64_t tap, int64_t input, int64_t outputs) const;
};

} // namespace fusec::runtime::cpu

#endif // FUSEC_RUNTIME_CPU_SLIDINGWINDOW_H
