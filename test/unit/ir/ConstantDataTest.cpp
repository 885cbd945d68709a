//===- ConstantDataTest.cpp - Constants' data: copied, filled, in place ----===//
//
// Large constants are blobs: copied into (or filled in) 2 MiB-aligned
// memory advised as huge pages from 2 MiB on, or viewed where their owner
// keeps them. Each way must hold exactly the values given, on both sides of
// the huge-page threshold, and an in-place blob must keep its owner alive
// until the context drops it.
//
//===----------------------------------------------------------------------===//
#include "ir/ConstantData.h"
#include "ir/FuseDialect.h"
#include "ir/FuseOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

using namespace mlir;
using namespace fusec::fuse;

namespace {

std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  fusec::registerDialects(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

std::vector<float> ramp(size_t count) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = float(i % 1000003) * 0.25f - 7.0f;
  return values;
}

} // namespace

TEST_CASE("large constants hold their values, below and above the huge-page size") {
  auto context = makeContext();
  OpBuilder builder(context.get());
  Location loc = builder.getUnknownLoc();
  // 1 MiB (ordinary heap blob), exactly 2 MiB and 3 MiB + 12 bytes (huge pages).
  for (size_t count : {size_t(1) << 18, size_t(1) << 19, (size_t(3) << 18) + 3}) {
    INFO(count << " floats");
    const std::vector<float> values = ramp(count);
    auto type = RankedTensorType::get({int64_t(count)}, builder.getF32Type());
    std::optional<ArrayRef<float>> copied = viewConstantData(makeConstantData(type, "copied", values));
    REQUIRE(copied);
    CHECK(std::vector<float>(copied->begin(), copied->end()) == values);

    Value filled = createConstant(builder, loc, "filled", {int64_t(count)}, [&](MutableArrayRef<float> data) {
      REQUIRE(data.size() == count);
      std::copy(values.begin(), values.end(), data.begin());
    });
    CHECK(getConstantData(filled) == values);
    filled.getDefiningOp()->erase();
  }
}

TEST_CASE("a constant made in place views its owner's values and keeps the owner until the context drops it") {
  auto owner = std::make_shared<std::vector<float>>(ramp(5000));
  std::weak_ptr<std::vector<float>> watch = owner;
  {
    auto context = makeContext();
    auto type = RankedTensorType::get({5000}, Float32Type::get(context.get()));
    std::optional<ArrayRef<float>> view = viewConstantData(makeConstantDataInPlace(type, "in_place", *owner, owner));
    REQUIRE(view);
    CHECK(view->data() == owner->data()); // not a copy
    std::vector<float> expected = *owner;
    owner.reset();
    CHECK_FALSE(watch.expired()); // the blob holds it
    CHECK(std::vector<float>(view->begin(), view->end()) == expected);

    // Small tensors are inline attributes: copied, the owner not kept.
    auto small = std::make_shared<std::vector<float>>(ramp(4));
    std::weak_ptr<std::vector<float>> smallWatch = small;
    auto smallType = RankedTensorType::get({4}, Float32Type::get(context.get()));
    CHECK(getConstantData(makeConstantDataInPlace(smallType, "small", *small, small)) == ramp(4));
    small.reset();
    CHECK(smallWatch.expired());
  }
  CHECK(watch.expired());
}
