//===- ModelGenerators.h - Synthetic models for tests and benchmarks -*- C++ -*-===//
//
// Builds graphs in memory (compiler/import/Graph.h), with deterministic
// pseudo-random weights: ResNet-50 (torchvision's layout: BasicBlock-free,
// Bottleneck x [3, 4, 6, 3], stride on the 3x3 conv) and large synthetic
// graphs for measuring how the compiler scales.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_BENCH_MODELGENERATORS_H
#define FUSEC_BENCH_MODELGENERATORS_H

#include "compiler/import/Graph.h"

namespace fusec::bench {

/// ResNet-50 for [batch, 3, imageSize, imageSize] inputs, 1000 classes.
import::Graph makeResNet50(int64_t imageSize = 224);

/// About `nodes` elementwise nodes (Mul, Add, Relu, Sigmoid, ...) in one long
/// chain over a [batch, 64] tensor.
import::Graph makeElementwiseChain(int64_t nodes);

/// About `nodes` nodes of ResNet-like blocks (conv-bn-relu-conv-bn-add-relu)
/// on [batch, 8, 8, 8] tensors with 1x1 convolutions.
import::Graph makeResidualBlocks(int64_t nodes);

} // namespace fusec::bench

#endif // FUSEC_BENCH_MODELGENERATORS_H
