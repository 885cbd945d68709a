//===- TensorMapVerifierTest.cpp - The rules a launch's tensor maps follow -===//

#include "runtime/plan/TensorMapVerifier.h"

#include <catch2/catch.hpp>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Matchers::Contains;

namespace {

/// A GEMM's buffers: A [batch * 128, 768] f16, B [768, 2304] f16, C
/// [batch * 128, 2304] bf16, the kernel reading A and B and writing C.
struct Fixture {
  PlanManifest manifest;
  KernelDesc kernel;

  Fixture() {
    auto buffer = [](ElementType type, Shape shape) {
      BufferDesc desc;
      desc.dtype = type;
      desc.shape = std::move(shape);
      return desc;
    };
    manifest.buffers = {buffer(ElementType::F16, {plan::kBatchDim, 128, 768}), buffer(ElementType::F16, {768, 2304}),
                        buffer(ElementType::BF16, {plan::kBatchDim, 128, 2304})};
    kernel.inputs = {0, 1};
    kernel.outputs = {2};
  }

  std::string check(const TensorMapDesc &map, int64_t largestBatch = 16) const {
    return checkTensorMap(manifest, kernel, map, largestBatch);
  }
};

TensorMapDesc mapOf(uint32_t buffer, BatchLinear rows, int64_t columns, uint32_t boxRows = 128, bool bf16 = false) {
  return TensorMapDesc::matrix(buffer, bf16, rows, columns, boxRows);
}

} // namespace

TEST_CASE("tensor maps that fit their buffers pass", "[plan][tensormap]") {
  const Fixture f;
  CHECK(f.check(mapOf(0, {128, 0}, 768)).empty());             // A: batch * 128 rows of K
  CHECK(f.check(mapOf(1, {0, 768}, 2304, 64)).empty());        // B stored K x N
  CHECK(f.check(mapOf(1, {0, 2304}, 768)).empty());            // the same bytes viewed N x K
  CHECK(f.check(mapOf(2, {128, 0}, 2304, 256, true)).empty()); // an output
}

TEST_CASE("tensor maps are refused where TMA or the buffer cannot hold them", "[plan][tensormap]") {
  const Fixture f;
  CHECK_THAT(f.check(mapOf(3, {128, 0}, 768)), Contains("names buffer 3, but the kernel has 3"));
  CHECK_THAT(f.check(mapOf(2, {128, 0}, 2304)), Contains("reads f16 from a buffer of dtype bf16"));
  CHECK_THAT(f.check(mapOf(0, {128, 0}, 764)), Contains("764 columns; TMA needs a positive multiple of 8"));
  CHECK_THAT(f.check(mapOf(0, {128, 0}, 768, 512)),
             Contains("512 elements along dimension 1; TMA boxes take 1 to 256"));
  TensorMapDesc narrowBox = mapOf(0, {128, 0}, 768);
  narrowBox.box[0] = 32;
  CHECK_THAT(f.check(narrowBox), Contains("box is 32 columns wide"));
  CHECK_THAT(f.check(mapOf(0, {0, 0}, 768)), Contains("0 rows at batch 1"));
  // One row too many at batch 1, and rows growing faster than the buffer,
  // which only the largest bucket shows.
  CHECK_THAT(f.check(mapOf(0, {128, 1}, 768)), Contains("reach past its buffer at batch 1"));
  CHECK_THAT(f.check(mapOf(0, {129, -1}, 768)), Contains("reach past its buffer at batch 16"));
  CHECK(f.check(mapOf(0, {129, -1}, 768), 1).empty());
}

TEST_CASE("image and weight maps of a conv are checked dimension by dimension", "[plan][tensormap]") {
  // A conv's NHWC input [batch, 9, 11, 64] and OHWI weights [128, 3, 3, 64].
  PlanManifest manifest;
  BufferDesc image, weights;
  image.dtype = weights.dtype = ElementType::F16;
  image.shape = {plan::kBatchDim, 9, 11, 64};
  weights.shape = {128, 3, 3, 64};
  manifest.buffers = {image, weights};
  KernelDesc kernel;
  kernel.inputs = {0, 1};
  auto check = [&](const TensorMapDesc &map) { return checkTensorMap(manifest, kernel, map, 16); };
  TensorMapDesc input;
  input.rows = {1, 0};
  input.columns = 64;
  input.middle = {11, 9};
  input.box = {64, 16, 8, 1};
  input.elementStrides = {1, 2, 2, 1};
  TensorMapDesc filter;
  filter.buffer = 1;
  filter.rows = {0, 128};
  filter.columns = 64;
  filter.middle = {9};
  filter.box = {64, 1, 128};
  CHECK(check(input).empty());
  CHECK(check(filter).empty());
  CHECK(input.boxBytes() == 64 * 8 * 4 * 2);
  const TensorMapDesc::Encoding encoding = input.encodingAt(3);
  CHECK(encoding.rank == 4);
  CHECK(encoding.dims[3] == 3);
  CHECK(encoding.strides[0] == 128);
  CHECK(encoding.strides[2] == 64 * 11 * 9 * 2);
  CHECK(encoding.elementStrides[1] == 2);

  TensorMapDesc wrong = input;
  wrong.middle = {12, 9};
  CHECK_THAT(check(wrong), Contains("reach past its buffer at batch 1"));
  wrong = input;
  wrong.elementStrides = {1, 9, 1, 1};
  CHECK_THAT(check(wrong), Contains("element stride of 9"));
  wrong = input;
  wrong.elementStrides = {2, 1, 1, 1};
  CHECK_THAT(check(wrong), Contains("the innermost 1"));
  wrong = input;
  wrong.box = {64, 16, 8};
  CHECK_THAT(check(wrong), Contains("rank 4 and 3 box sizes"));
  wrong = filter;
  wrong.middle = {0};
  CHECK_THAT(check(wrong), Contains("middle dimension of 0"));
  // Without swizzle a box is 8 columns: one tap's 16 bytes of 8 channels.
  TensorMapDesc narrow = input;
  narrow.swizzleBytes = 0;
  narrow.box[0] = 8;
  CHECK(check(narrow).empty());
  CHECK(narrow.boxBytes() == 8 * 8 * 4 * 2);
  wrong = narrow;
  wrong.box[0] = 64;
  CHECK_THAT(check(wrong), Contains("64 columns (the 128-byte swizzle) or 8 without swizzle"));
  wrong = narrow;
  wrong.swizzleBytes = 64;
  CHECK_THAT(check(wrong), Contains("swizzle 128 or none"));
}
