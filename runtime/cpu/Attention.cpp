//===- Attention.cpp - fused scaled dot-product attention -------------------===//
//
// The reference for fuse.attention: softmax(scale * Q Kt + mask) V per batch
// matrix, one query row at a time. It computes what the unfused MatMul ->
// Mul -> Add -> Softmax -> MatMul chain computes (in float32, with the
// largest score subtracted before exp), which is what the plan tests compare
// the fused kernels against.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/OpRegistry.h"
#include "support/OpRules.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fusec::runtime::cpu {

namespace {

void attention(const OpContext &context) {
  const ConstView &q = context.operand(0), &k = context.operand(1), &v = context.operand(2);
  const bool causal = context.flagAttr("causal");
  const float scale = context.floatAttr("scale");
  context.check(rules::checkAttention(q.shape, k.shape, v.shape, causal, scale));
  const size_t rank = q.shape.size();
  const int64_t seq = q.shape[rank - 2], headDim = q.shape[rank - 1];
  const int64_t keySeq = k.shape[rank - 2], valueDim = v.shape[rank - 1];
  Shape scores(q.shape.begin(), q.shape.end() - 1);
  scores.push_back(keySeq);
  std::vector<float> mask;
  if (context.numOperands() == 4) {
    const ConstView &m = context.operand(3);
    if (broadcastShapes(m.shape, scores) != scores)
      context.fail("mask " + formatShape(m.shape) + " does not broadcast to the scores " + formatShape(scores));
    mask = expandTo(m, scores);
  }
  Shape shape(q.shape.begin(), q.shape.end() - 1);
  shape.push_back(valueDim);
  context.expectResultShape(shape);

  const int64_t matrices = numElements(Shape(q.shape.begin(), q.shape.end() - 2));
  std::vector<float> row(static_cast<size_t>(keySeq));
  for (int64_t b = 0; b < matrices; ++b) {
    const float *qb = q.data + b * seq * headDim, *kb = k.data + b * keySeq * headDim;
    const float *vb = v.data + b * keySeq * valueDim;
    for (int64_t i = 0; i < seq; ++i) {
      // Causal: keys past i + (Sk - S) are not attended to at all.
      const int64_t keys = causal ? i + keySeq - seq + 1 : keySeq;
      float largest = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < keys; ++j) {
        float dot = 0.0f;
        for (int64_t d = 0; d < headDim; ++d)
          dot += qb[i * headDim + d] * kb[j * headDim + d];
        row[j] = dot * scale + (mask.empty() ? 0.0f : mask[(b * seq + i) * keySeq + j]);
        largest = std::max(largest, row[j]);
      }
      float sum = 0.0f;
      for (int64_t j = 0; j < keys; ++j)
        sum += row[j] = std::exp(row[j] - largest);
      float *out = context.result().data + (b * seq + i) * valueDim;
      std::fill(out, out + valueDim, 0.0f);
      for (int64_t j = 0; j < keys; ++j)
        for (int64_t c = 0; c < valueDim; ++c)
          out[c] += row[j] / sum * vb[j * valueDim + c];
    }
  }
}

} // namespace

void registerAttentionOps(OpRegistry &registry) { registry.add("Attention", OpInfo{attention, 3, 4}); }

} // namespace fusec::runtime::cpu
