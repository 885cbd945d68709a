//===- ChannelsLast.h - NHWC forms of the CPU image ops ---------*- C++ -*-===//
//
// fuse-convert-to-channels-last gives Conv, MaxPool and AveragePool NHWC
// images (and OHWI weights) so GPU kernels read channels contiguously. The
// CPU reference keeps one implementation per op, on NCHW: a channels_last
// op runs it on channels-first copies of its rank-4 operands and writes the
// result back channels-last. The copies cost a few passes over the tensors,
// small beside a convolution's work, and keep the reference single.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CPU_CHANNELSLAST_H
#define FUSEC_RUNTIME_CPU_CHANNELSLAST_H

#include "runtime/cpu/OpContext.h"

namespace fusec::runtime::cpu {

/// Whether the op's images are NHWC (`channels_last`; absent means NCHW).
bool isChannelsLast(const OpContext &context);

/// Runs `channelsFirst`, an implementation on NCHW images and OIHW weights,
/// for a channels_last op: its rank-4 operands are permuted NHWC -> NCHW
/// (OHWI -> OIHW is the same permutation), the result back.
void runChannelsFirst(const OpContext &context, void (*channelsFirst)(const OpContext &));

} // namespace fusec::runtime::cpu

#endif // FUSEC_RUNTIME_CPU_CHANNELSLAST_H
