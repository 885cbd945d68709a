//===- StridedViewTest.cpp - Views of row-major tensors --------------------===//
//
// reshapeView against brute force: for random shapes, a random transpose
// and every reshape to a random factorisation of the element count, a view
// it returns must address exactly the elements that copying in row-major
// order would read; the cases attention's head split and merge depend on
// must be views, batch first and sequence first (strides linear in the
// batch).
//
//===----------------------------------------------------------------------===//
#include "ir/StridedView.h"
#include "ir/ShapeUtils.h"

#include "mlir/IR/BuiltinTypes.h"

#include <catch2/catch.hpp>

#include <numeric>
#include <random>

using fusec::BatchLinear;
using fusec::fuse::contiguousView;
using fusec::fuse::reshapeView;
using fusec::fuse::StridedView;

namespace {

constexpr int64_t kDynamic = mlir::ShapedType::kDynamic;

/// A view whose offset and strides do not depend on the batch.
StridedView fixedView(int64_t offset, std::initializer_list<int64_t> strides) {
  StridedView view;
  view.offset = BatchLinear{0, offset};
  for (int64_t stride : strides)
    view.strides.push_back(BatchLinear{0, stride});
  return view;
}

/// The strides at `batch`.
std::vector<int64_t> stridesAt(const StridedView &view, int64_t batch = 1) {
  std::vector<int64_t> result;
  for (const BatchLinear &stride : view.strides)
    result.push_back(stride.at(batch));
  return result;
}

/// The address of each element of `shape` (the batch's dimensions already
/// given their size) under `view` at `batch`, in row-major order.
std::vector<int64_t> addresses(const StridedView &view, const std::vector<int64_t> &shape, int64_t batch = 1) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  std::vector<int64_t> result;
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t rest = linear, address = view.offset.at(batch);
    for (size_t d = shape.size(); d-- > 0;) {
      address += (rest % shape[d]) * view.strides[d].at(batch);
      rest /= shape[d];
    }
    result.push_back(address);
  }
  return result;
}

/// A random split of `count` into factors (some of them 1).
std::vector<int64_t> randomShape(int64_t count, std::mt19937 &random) {
  std::vector<int64_t> shape;
  while (count > 1) {
    std::vector<int64_t> divisors;
    for (int64_t d = 2; d <= count; ++d)
      if (count % d == 0)
        divisors.push_back(d);
    int64_t factor = divisors[random() % divisors.size()];
    shape.push_back(factor);
    count /= factor;
    if (random() % 4 == 0)
      shape.push_back(1);
  }
  if (shape.empty())
    shape.push_back(1);
  return shape;
}

} // namespace

TEST_CASE("contiguous views: row-major strides, linear in the batch", "[ir][views]") {
  auto view = contiguousView({kDynamic, 7, 24});
  REQUIRE(view);
  CHECK(stridesAt(*view, 5) == std::vector<int64_t>{168, 24, 1});
  CHECK(view->offset == BatchLinear{});
  // Sequence first: the sequence stride is a multiple of the batch.
  auto seqFirst = contiguousView({7, kDynamic, 24});
  REQUIRE(seqFirst);
  CHECK(seqFirst->strides[0] == BatchLinear{24, 0});
  CHECK(stridesAt(*seqFirst, 3) == std::vector<int64_t>{72, 24, 1});
  CHECK_FALSE(contiguousView({2, 0, 3}));
  // A range (another run-time dimension) has no view.
  CHECK_FALSE(contiguousView({*fusec::fuse::symbolDim("views_test_seq"), kDynamic, 4}));
}

TEST_CASE("reshape views: the head split and merge of attention", "[ir][views]") {
  // K = qkv[:, :, 8:16] of a [batch, 7, 24] projection, split into 2 heads of 4.
  StridedView k = fixedView(8, {168, 24, 1});
  auto heads = reshapeView(k, {kDynamic, 7, 8}, {kDynamic, 7, 2, 4});
  REQUIRE(heads);
  CHECK(heads->offset == BatchLinear{0, 8});
  CHECK(stridesAt(*heads) == std::vector<int64_t>{168, 24, 4, 1});
  // Merging the heads of a [batch, 7, 2, 4] tensor back is its inverse.
  auto merged = reshapeView(*heads, {kDynamic, 7, 2, 4}, {kDynamic, 7, 8});
  REQUIRE(merged);
  CHECK(*merged == k);
  // The dynamic (batch) dimension maps to a dynamic dimension alone.
  CHECK_FALSE(reshapeView(fixedView(0, {6, 1}), {kDynamic, 6}, {6, kDynamic}));
  CHECK(reshapeView(fixedView(0, {6, 3, 1}), {kDynamic, 2, 3}, {kDynamic, 6}));
  // Rows of a transposed tensor are strided: merging them is a copy.
  CHECK_FALSE(reshapeView(fixedView(0, {8, 1, 2}), {2, 2, 4}, {2, 8}));
  // Extent-1 dimensions take any stride.
  auto ones = reshapeView(fixedView(0, {6, 1}), {1, 6}, {2, 1, 3});
  REQUIRE(ones);
  CHECK(addresses(*ones, {2, 1, 3}) == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("reshape views address what a row-major copy reads", "[ir][views]") {
  std::mt19937 random(7);
  int views = 0, copies = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t count = std::vector<int64_t>{12, 24, 36, 60, 64}[trial % 5];
    std::vector<int64_t> source = randomShape(count, random);
    // A random transpose of the source: its view and its shape.
    std::vector<size_t> perm(source.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), random);
    auto contiguous = contiguousView(source);
    REQUIRE(contiguous);
    StridedView from;
    from.offset = BatchLinear{0, static_cast<int64_t>(random() % 5)};
    std::vector<int64_t> fromShape;
    for (size_t axis : perm) {
      from.strides.push_back(contiguous->strides[axis]);
      fromShape.push_back(source[axis]);
    }
    const std::vector<int64_t> expected = addresses(from, fromShape);
    for (int target = 0; target < 4; ++target) {
      std::vector<int64_t> to = randomShape(count, random);
      auto view = reshapeView(from, fromShape, to);
      if (!view) {
        ++copies;
        continue;
      }
      ++views;
      INFO("trial " << trial << " target " << target);
      REQUIRE(view->strides.size() == to.size());
      CHECK(addresses(*view, to) == expected);
    }
  }
  // Both outcomes occur, so the brute force checked real views.
  CHECK(views > 100);
  CHECK(copies > 100);
}

TEST_CASE("sequence-first head splits are views whose strides grow with the batch", "[ir][views]") {
  // nn.MultiheadAttention's key: k = qkv[1] of [3, seq 5, batch, 8] viewed
  // as [seq, batch * 2 heads, 4] and transposed to [batch, 2, seq, 4] (the
  // batch split from the heads at import).
  const std::vector<int64_t> packed = {3, 5, kDynamic, 8};
  auto view = contiguousView(packed);
  REQUIRE(view);
  StridedView key = *view;
  key.offset = key.strides[0]; // index 1 of the leading axis
  key.strides.erase(key.strides.begin());
  auto heads = reshapeView(key, {5, kDynamic, 8}, {5, kDynamic, 2, 4});
  REQUIRE(heads);
  StridedView transposed;
  transposed.offset = heads->offset;
  for (size_t axis : {1, 2, 0, 3})
    transposed.strides.push_back(heads->strides[axis]);
  CHECK(transposed.hasContiguousRows());
  for (int64_t batch : {1, 2, 3}) {
    // Brute force: element [b, h, s, d] of the transposed key is element
    // [1, s, b, h * 4 + d] of the packed tensor.
    std::vector<int64_t> expected;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t s = 0; s < 5; ++s)
          for (int64_t d = 0; d < 4; ++d)
            expected.push_back(((1 * 5 + s) * batch + b) * 8 + h * 4 + d);
    INFO("batch " << batch);
    CHECK(addresses(transposed, {batch, 2, 5, 4}, batch) == expected);
  }
  // The batch merged with a size it is not contiguous with is no view.
  CHECK_FALSE(reshapeView(transposed, {kDynamic, 2, 5, 4}, {kDynamic, 10, 4}));
}
