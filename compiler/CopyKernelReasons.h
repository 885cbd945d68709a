//===- CopyKernelReasons.h - Why a copy kernel stays ------------*- C++ -*-===//
//
// After fusion, a data-movement kernel (a transpose, slice, gather, concat
// or reshape that no neighbour reads or writes in place) moves bytes and
// computes nothing. The fusion report names each one with the reason it
// stays, derived from what the kernel does and what reads its result, so a
// user knows which template or rule would have to change to remove it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_COPYKERNELREASONS_H
#define FUSEC_COMPILER_COPYKERNELREASONS_H

#include "ir/FuseOps.h"

#include <string>

namespace fusec {

/// Why `kernel`, a data-movement superkernel that is not in place, stays a
/// kernel of its own; empty for any other kernel.
std::string copyKernelReason(fuse::SuperkernelOp kernel);

} // namespace fusec

#endif // FUSEC_COMPILER_COPYKERNELREASONS_H
