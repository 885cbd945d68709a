//===- AttentionSelection.h - The loop fusec compiles attention with -*- C++ -*-===//
//
// Which of fuse.attention's two main loops (ir/AttentionConfig.h describes
// both and what each takes) fusec compiles an attention op with, and its
// tile. The split of the key sequence is TileSelection's, as for products.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CONFIG_ATTENTIONSELECTION_H
#define FUSEC_CONFIG_ATTENTIONSELECTION_H

#include "ir/AttentionConfig.h"

namespace fusec::config {

/// The config fusec uses for `attention`: a tensor-core loop where it takes
/// the op and its rows are 16-byte aligned (f32 heads in 3xTF32, or tf32
/// with `precision` Tf32), else the SIMT loop; unsplit.
fuse::KernelConfig chooseAttentionConfig(fuse::AttentionOp attention, fuse::ProductPrecision precision);

} // namespace fusec::config

#endif // FUSEC_CONFIG_ATTENTIONSELECTION_H
