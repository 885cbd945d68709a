//===- BatchGroupTest.cpp - The batch merged with other dimensions --------===//
#include "compiler/import/BatchGroup.h"
#include "compiler/import/Graph.h"

#include <catch2/catch.hpp>

using namespace fusec::import;

namespace {

const DimExpr batch = DimExpr::symbol("batch");

DimExpr times(int64_t c) { return *DimExpr::mul(batch, c); }

} // namespace

TEST_CASE("reshapes resolve 0 and -1 on symbolic shapes", "[onnx][batchgroup]") {
  std::string error;
  // MultiheadAttention: [10, batch, 32] -> [10, -1, 8] is [10, 4*batch, 8].
  auto heads = resolveReshape({10, batch, 32}, {10, -1, 8}, false, error);
  REQUIRE(heads);
  CHECK(*heads == std::vector<DimExpr>{10, times(4), 8});
  // 0 copies unless allowzero; allowzero makes it a size of 0, which the
  // element count then refuses.
  auto copied = resolveReshape({batch, 6}, {0, 2, 3}, false, error);
  REQUIRE(copied);
  CHECK(*copied == std::vector<DimExpr>{batch, 2, 3});
  CHECK(!resolveReshape({batch, 6}, {0, 2, 3}, true, error));
  CHECK(!resolveReshape({batch, 6}, {-1, -1}, false, error));
  CHECK(error.find("more than one") != std::string::npos);
  // batch * 6 elements do not fill [-1, 4] with whole rows.
  CHECK(!resolveReshape({batch, 6}, {-1, 4}, false, error));
  CHECK(!resolveReshape({batch, 6}, {batch, 7}, false, error));
}

TEST_CASE("a dimension merging the batch expands around it in memory order", "[onnx][batchgroup]") {
  std::string error;
  // [seq, batch*heads, head_dim] of a [seq, batch, embed] tensor: nothing
  // but seq before the batch, the heads after it.
  auto attention = expandShape({10, times(4), 8}, "batch", 10, error);
  REQUIRE(attention);
  CHECK(attention->dims == std::vector<int64_t>{10, kBatchDim, 4, 8});
  REQUIRE(attention->group);
  CHECK(*attention->group == BatchGroup{1, 2});
  // [seq*batch, embed] of [seq, batch, embed]: seq before the batch, inside
  // the merged dimension.
  auto rows = expandShape({times(10), 32}, "batch", 10, error);
  REQUIRE(rows);
  CHECK(rows->dims == std::vector<int64_t>{10, kBatchDim, 32});
  CHECK(*rows->group == BatchGroup{0, 2});
  // [seq*batch*heads] with both sides.
  auto both = expandShape({times(40), 8}, "batch", 10, error);
  REQUIRE(both);
  CHECK(both->dims == std::vector<int64_t>{10, kBatchDim, 4, 8});
  CHECK(*both->group == BatchGroup{0, 3});
  // The batch alone needs no group.
  auto alone = expandShape({batch, 32}, "batch", 1, error);
  REQUIRE(alone);
  CHECK(!alone->group);
  // What cannot be: 10 elements before the batch but a 4 in front of it.
  CHECK(!expandShape({4, times(10)}, "batch", 10, error));
  CHECK(!expandShape({batch, batch}, "batch", 1, error));
  CHECK(!expandShape({*DimExpr::add(batch, 1)}, "batch", 1, error));
}

TEST_CASE("permutations and axes map onto the expanded tensor", "[onnx][batchgroup]") {
  const std::optional<BatchGroup> group = BatchGroup{1, 2}; // [seq, batch*heads, d] as [seq, batch, heads, d]
  CHECK(expandedAxis(group, 0) == 0);
  CHECK(expandedAxis(group, 1) == 1);
  CHECK(expandedAxis(group, 2) == 3);
  // transpose(0, 1): [batch*heads, seq, d] is [batch, heads, seq, d].
  auto [perm, moved] = expandPermutation({1, 0, 2}, group);
  CHECK(perm == std::vector<int64_t>{1, 2, 0, 3});
  REQUIRE(moved);
  CHECK(*moved == BatchGroup{0, 2});
  CHECK(logicalShape({10, kBatchDim, 4, 8}, group, "batch") == std::vector<DimExpr>{10, times(4), 8});
  CHECK(reshapeTargetFor({10, kBatchDim, 32}, {10, kBatchDim, 4, 8}) == std::vector<int64_t>{10, 0, 4, 8});
  CHECK(reshapeTargetFor({10, kBatchDim, 32}, {kBatchDim, 320}) == std::vector<int64_t>{-1, 320});
}
