//===- ModelGenerators.h - Synthetic models for tests and benchmarks -*- C++ -*-===//
//
// Builds graphs in memory (compiler/import/Graph.h), with deterministic
// pseudo-random weights: ResNet-50 (torchvision's layout: BasicBlock-free,
// Bottleneck x [3, 4, 6, 3], stride on the 3x3 conv), BERT- and GPT-2-style
// transformer layers, and large synthetic graphs for measuring how the
// compiler scales.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_BENCH_MODELGENERATORS_H
#define FUSEC_BENCH_MODELGENERATORS_H

#include "compiler/import/Graph.h"

namespace fusec::bench {

/// ResNet-50 for [batch, 3, imageSize, imageSize] inputs, 1000 classes.
import::Graph makeResNet50(int64_t imageSize = 224);

/// A transformer layer as PyTorch exports one, for [batch, seq, embed]
/// inputs: a fused QKV projection split into heads, scaled dot-product
/// attention, the output projection, an erf-GELU feed-forward, two
/// LayerNorms and two residual adds. `causal` makes it a GPT-2 block
/// (pre-norm, the causal mask added to the scores); otherwise it is a
/// BERT/nn.TransformerEncoderLayer one (post-norm, no mask), as
/// examples/encoder_layer.py writes it.
struct TransformerLayerSpec {
  int64_t embed = 768, heads = 12, ffn = 3072, seq = 128;
  bool causal = false;
};
import::Graph makeTransformerLayer(const TransformerLayerSpec &spec);

/// About `nodes` elementwise nodes (Mul, Add, Relu, Sigmoid, ...) in one long
/// chain over a [batch, 64] tensor.
import::Graph makeElementwiseChain(int64_t nodes);

/// About `nodes` nodes of ResNet-like blocks (conv-bn-relu-conv-bn-add-relu)
/// on [batch, 8, 8, 8] tensors with 1x1 convolutions.
import::Graph makeResidualBlocks(int64_t nodes);

} // namespace fusec::bench

#endif // FUSEC_BENCH_MODELGENERATORS_H
