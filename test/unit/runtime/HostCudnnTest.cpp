//===- HostCudnnTest.cpp - cuDNN variants and the cuDNN double ------------===//
//
// The cuDNN double (HostCudnn.cpp) stands in for the real library in every
// test of the runtime's convolution variants, so it must behave as cuDNN's
// backend API does. These tests run CudnnConvs (runtime/cuda/CudnnConv.h),
// which maps a plan's LibraryConv onto that API, through the double on the
// driver double's memory and streams, and compare each output bit for bit
// with a scalar convolution written here from ONNX's definition; and they
// drive the double directly, as the runtime does not, to see it refuse what
// cuDNN refuses. Inputs are small integers, exact in every type, so that the
// order of the sums cannot matter; memory nothing should read or write is
// NaN.
//
//===----------------------------------------------------------------------===//

#include "HostCudaDriver.h"
#include "TestSupport.h"

#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudnnApi.h"
#include "runtime/cuda/CudnnConv.h"
#include "runtime/cuda/DriverApi.h"
#include "runtime/plan/LibraryCallJson.h"
#include "runtime/plan/PlanContainer.h"
#include "runtime/plan/PlanFormat.h"
#include "support/HalfFloat.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;
using nlohmann::json;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// The double's record, reset (the library the APIs load is this one).
HostCudaState &hostRecord() {
  static HostCudaState *state = [] {
    void *library = dlopen(FUSEC_HOST_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(library);
    auto *accessor = reinterpret_cast<HostCudaState *(*)()>(dlsym(library, "hostCudaState"));
    REQUIRE(accessor);
    return accessor();
  }();
  *state = HostCudaState();
  return *state;
}

size_t bytesOf(ElementType type) { return type == ElementType::F32 ? 4 : 2; }

/// A value's bits in `type` (rounded to nearest even), as the device holds it.
uint32_t bitsIn(ElementType type, float value) {
  if (type == ElementType::F16)
    return floatToHalfBits(value);
  if (type == ElementType::BF16)
    return floatToBfloat16Bits(value);
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::vector<uint8_t> encode(ElementType type, const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * bytesOf(type));
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t bits = bitsIn(type, values[i]);
    std::memcpy(bytes.data() + i * bytesOf(type), &bits, bytesOf(type)); // little-endian
  }
  return bytes;
}

/// One fused convolution: what the plan's library variant says, its
/// element types, and the operands' values in memory order.
struct Case {
  LibraryConv conv;
  ElementType xType = ElementType::F32;
  ElementType yType = ElementType::F32;
  std::vector<float> x, w, bias, residual;
};

/// Offset of logical element (a, b, c, d) of an N, C, H, W (or K, C, R, S)
/// tensor stored in `layout`.
int64_t offsetIn(LibraryConv::Layout layout, const std::array<int64_t, 4> &dims, int64_t a, int64_t b, int64_t c,
                 int64_t d) {
  if (layout == LibraryConv::Layout::Nhwc)
    return ((a * dims[2] + c) * dims[3] + d) * dims[1] + b;
  return ((a * dims[1] + b) * dims[2] + c) * dims[3] + d;
}

/// Small integers, different for neighbouring elements.
std::vector<float> integers(size_t count, int seed) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = float(int((seed * 7 + int(i) * 5 + int(i / 7) * 3) % 9) - 4);
  return values;
}

/// A case with integer operands for `conv`, at `batch` images.
Case makeCase(const LibraryConv &conv, ElementType type, int64_t batch) {
  Case c{conv, type, type, {}, {}, {}, {}};
  const int64_t n = conv.n.at(batch);
  c.x = integers(size_t(n * conv.c * conv.h * conv.w), 1);
  c.w = integers(size_t(conv.k * (conv.c / conv.groups) * conv.r * conv.s), 2);
  if (conv.bias)
    c.bias = integers(size_t(conv.k), 3);
  if (conv.residual)
    c.residual = integers(size_t(n * conv.k * conv.p() * conv.q()), 4);
  return c;
}

/// The reference: ONNX's Conv (cross-correlation, zero padding, groups),
/// then alpha, the bias, beta times the residual and ReLU, in double,
/// rounded once to the output's type; memory order of `layout`.
std::vector<float> reference(const Case &c, int64_t batch) {
  const LibraryConv &v = c.conv;
  const int64_t n = v.n.at(batch), p = v.p(), q = v.q(), cg = v.c / v.groups, kg = v.k / v.groups;
  const std::array<int64_t, 4> xDims{n, v.c, v.h, v.w}, wDims{v.k, cg, v.r, v.s}, yDims{n, v.k, p, q};
  std::vector<float> y(size_t(n * v.k * p * q));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < v.k; ++k)
      for (int64_t oh = 0; oh < p; ++oh)
        for (int64_t ow = 0; ow < q; ++ow) {
          double sum = 0;
          const int64_t group = k / kg;
          for (int64_t ch = 0; ch < cg; ++ch)
            for (int64_t r = 0; r < v.r; ++r)
              for (int64_t s = 0; s < v.s; ++s) {
                const int64_t ih = oh * v.stride[0] - v.padBegin[0] + r * v.dilation[0];
                const int64_t iw = ow * v.stride[1] - v.padBegin[1] + s * v.dilation[1];
                if (ih < 0 || ih >= v.h || iw < 0 || iw >= v.w)
                  continue;
                sum += double(c.x[size_t(offsetIn(v.layout, xDims, i, group * cg + ch, ih, iw))]) *
                       double(c.w[size_t(offsetIn(v.layout, wDims, k, ch, r, s))]);
              }
          const size_t at = size_t(offsetIn(v.layout, yDims, i, k, oh, ow));
          double value = v.alpha * sum;
          if (v.bias)
            value += c.bias[size_t(k)];
          if (v.residual)
            value += v.beta * double(c.residual[at]);
          if (v.activation == LibraryConv::Activation::Relu)
            value = std::max(value, 0.0);
          y[at] = float(value);
        }
  return y;
}

/// A plan of one conv kernel whose variant 1 is `c` on cuDNN. Its operands
/// are graph inputs (x, w, then bias and residual when present) and the
/// output y; its variant 0 points at the host step plan's PTX, which the
/// tests never launch.
std::shared_ptr<const Plan> convPlan(const Case &c) {
  LibraryConv conv = c.conv;
  const bool nhwc = conv.layout == LibraryConv::Layout::Nhwc;
  auto shapeOf = [&](int64_t a, int64_t b, int64_t h, int64_t w) {
    return nhwc ? json::array({a, h, w, b}) : json::array({a, b, h, w});
  };
  struct Operand {
    std::string name;
    ElementType type;
    json shape;
  };
  std::vector<Operand> inputs = {{"x", c.xType, shapeOf(-1, conv.c, conv.h, conv.w)},
                                 {"w", c.xType, shapeOf(conv.k, conv.c / conv.groups, conv.r, conv.s)}};
  conv.input = 0;
  conv.filter = 1;
  if (conv.bias) {
    conv.bias = inputs.size();
    inputs.push_back({"b", c.xType, json::array({conv.k})});
  }
  if (conv.residual) {
    conv.residual = inputs.size();
    inputs.push_back({"r", c.yType, shapeOf(-1, conv.k, conv.p(), conv.q())});
  }
  conv.output = inputs.size();
  const Operand output{"y", c.yType, shapeOf(-1, conv.k, conv.p(), conv.q())};

  json manifest = {{"format_version", plan::formatVersionString()},
                   {"compiler_version", "fusec test"},
                   {"target", "sm_90"},
                   {"source_hash", "0123456789abcdef"},
                   {"batch_buckets", {1, 2, 4}},
                   {"inputs", json::array()},
                   {"outputs", json::array()},
                   {"buffers", json::array()},
                   {"arena", {{"per_batch", 0}, {"fixed", 0}, {"lower_bound", {{"per_batch", 0}, {"fixed", 0}}}}}};
  json values = json::array(), kernelInputs = json::array();
  auto buffer = [&](const Operand &operand, const char *kind) {
    const size_t id = manifest["buffers"].size();
    manifest["buffers"].push_back({{"id", id},
                                   {"name", operand.name},
                                   {"kind", kind},
                                   {"dtype", elementTypeName(operand.type)},
                                   {"shape", operand.shape}});
    manifest[std::string(kind) + "s"].push_back(
        {{"name", operand.name}, {"dtype", elementTypeName(operand.type)}, {"shape", operand.shape}, {"buffer", id}});
    values.push_back({{"dtype", elementTypeName(operand.type)}, {"shape", operand.shape}});
    return id;
  };
  for (const Operand &input : inputs) {
    kernelInputs.push_back(buffer(input, "input"));
  }
  const size_t outputId = buffer(output, "output");
  const size_t result = values.size() - 1;
  LibraryCall call;
  call.library = kCudnnLibrary;
  call.conv = conv;
  // The op the variant computes, for the verifier (the tests never run it).
  json attrs = {{"group", conv.groups},
                {"strides", conv.stride},
                {"dilations", conv.dilation},
                {"pads", {conv.padBegin[0], conv.padBegin[1], conv.padEnd[0], conv.padEnd[1]}}};
  if (nhwc)
    attrs["channels_last"] = 1;
  const size_t ptxSize = std::strlen(test::kHostStepPlanPtx);
  manifest["kernels"] = json::array(
      {{{"name", "k0_conv"},
        {"kind", "conv"},
        {"inputs", kernelInputs},
        {"outputs", {outputId}},
        {"values", values},
        {"ops", {{{"op", "Conv"}, {"name", "conv"}, {"operands", {0, 1}}, {"results", {result}}, {"attrs", attrs}}}},
        {"yields", {result}},
        {"launch",
         {{"block", {64, 1, 1}},
          {"grid",
           {{{"per_batch", 1}, {"fixed", 0}, {"divisor", 1}},
            {{"per_batch", 0}, {"fixed", 1}, {"divisor", 1}},
            {{"per_batch", 0}, {"fixed", 1}, {"divisor", 1}}}}}},
        {"images",
         {{{"format", "ptx"}, {"target", "sm_75"}, {"entry", "fusec_test_mul"}, {"offset", 0}, {"size", ptxSize}}}},
        {"library_variants", {libraryCallToJson(call)}}}});
  const auto *ptx = reinterpret_cast<const uint8_t *>(test::kHostStepPlanPtx);
  const plan::Section images{plan::kKernelImagesSection, {ptx, ptx + ptxSize}};
  return std::make_shared<const Plan>(Plan::fromBytes(plan::encodePlan(manifest, {images}), "conv.plan"));
}

/// The driver double opened as the runtime opens it, entered, with a stream.
class HostDevice {
public:
  HostDevice()
      : record(hostRecord()), driver(cuda::DriverApi::load(FUSEC_HOST_CUDA_DRIVER), 0), saved_(driver.enter()),
        stream(driver.createStream("for a test")) {}
  ~HostDevice() {
    for (gpu::DevicePtr pointer : allocations_)
      driver.free(pointer);
    driver.destroyStream(stream);
    driver.leave(saved_);
  }
  HostDevice(const HostDevice &) = delete;
  HostDevice &operator=(const HostDevice &) = delete;

  gpu::DevicePtr allocate(uint64_t bytes) {
    allocations_.push_back(driver.allocate(bytes, "for a test"));
    return allocations_.back();
  }
  /// Copies `bytes` to new device memory (with `slack` bytes before and
  /// after, NaN-free zeros), and waits; returns the copy's address.
  gpu::DevicePtr upload(const std::vector<uint8_t> &bytes, uint64_t offset = 0) {
    const gpu::DevicePtr base = allocate(bytes.size() + offset);
    driver.copyHostToDevice(base + offset, bytes.data(), bytes.size(), stream, "for a test");
    driver.synchronize(stream, "for a test");
    return base + offset;
  }
  std::vector<uint8_t> download(gpu::DevicePtr pointer, size_t bytes) {
    std::vector<uint8_t> host(bytes);
    driver.copyDeviceToHost(host.data(), pointer, bytes, stream, "for a test");
    driver.synchronize(stream, "for a test");
    return host;
  }

  HostCudaState &record;
  cuda::CudaDevice driver;

private:
  void *saved_;
  std::vector<gpu::DevicePtr> allocations_;

public:
  gpu::Stream stream;
};

/// A case's operands in device memory, in the kernel's buffer order, and
/// its output (NaN until written). `offset` bytes past each allocation's
/// start (a less aligned address).
struct Operands {
  std::vector<gpu::DevicePtr> args;
  gpu::DevicePtr y = 0;
  size_t yBytes = 0;

  Operands(HostDevice &device, const Case &c, int64_t batch, uint64_t offset = 0) {
    args.push_back(device.upload(encode(c.xType, c.x), offset));
    args.push_back(device.upload(encode(c.xType, c.w), offset));
    if (c.conv.bias)
      args.push_back(device.upload(encode(c.xType, c.bias), offset));
    if (c.conv.residual)
      args.push_back(device.upload(encode(c.yType, c.residual), offset));
    const auto outputs = size_t(c.conv.n.at(batch) * c.conv.k * c.conv.p() * c.conv.q());
    yBytes = outputs * bytesOf(c.yType);
    y = device.upload(encode(c.yType, std::vector<float>(outputs, kNaN)), offset);
    args.push_back(y);
  }
};

LaunchStep stepOf(int32_t batch) {
  LaunchStep step;
  step.kernel = 0;
  step.variant = 1;
  step.batch = batch;
  return step;
}

/// The output's bits are the reference's; names the first that is not.
void requireOutput(const Case &c, int64_t batch, const std::vector<uint8_t> &actual) {
  const std::vector<float> expected = reference(c, batch);
  const std::vector<uint8_t> bits = encode(c.yType, expected);
  REQUIRE(actual.size() == bits.size());
  const size_t size = bytesOf(c.yType);
  for (size_t e = 0; e < expected.size(); ++e)
    if (std::memcmp(actual.data() + e * size, bits.data() + e * size, size) != 0) {
      uint32_t got = 0;
      std::memcpy(&got, actual.data() + e * size, size);
      INFO("element " << e << " of y: expected " << expected[e] << " (bits " << bitsIn(c.yType, expected[e])
                      << "), got bits " << got);
      FAIL("y differs from the reference");
    }
}

/// Runs `c` at `batch` through CudnnConvs on the double, checks y.
void runAndCheck(HostDevice &device, const Case &c, int64_t batch) {
  auto plan = convPlan(c);
  cuda::CudnnConvs convs(device.driver, *plan, FUSEC_HOST_CUDA_DRIVER);
  const std::string unsupported = convs.unsupported(0, 1);
  INFO((device.record.cudnnLastRefusal ? device.record.cudnnLastRefusal : "no refusal"));
  REQUIRE(unsupported.empty());
  Operands operands(device, c, batch);
  convs.run(stepOf(int32_t(batch)), operands.args.data(), device.stream, "for kernel 'k0_conv'");
  requireOutput(c, batch, device.download(operands.y, operands.yBytes));
}

LibraryConv basicConv(LibraryConv::Layout layout) {
  LibraryConv conv;
  conv.n = {1, 0};
  conv.c = 4;
  conv.h = 5;
  conv.w = 6;
  conv.k = 6;
  conv.r = 3;
  conv.s = 3;
  conv.padBegin = {1, 1};
  conv.padEnd = {1, 1};
  conv.layout = layout;
  return conv;
}

const char *layoutText(LibraryConv::Layout layout) { return layoutName(layout); }

} // namespace

/// Runs `body` for each layout and element type.
template <typename Body> void forEachForm(Body body) {
  for (auto layout : {LibraryConv::Layout::Nchw, LibraryConv::Layout::Nhwc})
    for (ElementType type : {ElementType::F32, ElementType::F16}) {
      INFO(layoutText(layout) << ", " << elementTypeName(type));
      body(basicConv(layout), type);
    }
}

TEST_CASE("cuDNN convolutions compute ONNX's Conv in NCHW and NHWC, f32 and f16", "[cudnn]") {
  HostDevice device;
  SECTION("padded 3x3") {
    forEachForm([&](LibraryConv conv, ElementType type) { runAndCheck(device, makeCase(conv, type, 2), 2); });
  }
  SECTION("groups, strides, dilations and asymmetric padding") {
    forEachForm([&](LibraryConv conv, ElementType type) {
      conv.groups = 2;
      conv.stride = {2, 1};
      conv.dilation = {1, 2};
      conv.padBegin = {0, 2};
      conv.padEnd = {2, 1};
      runAndCheck(device, makeCase(conv, type, 3), 3);
    });
  }
  SECTION("depthwise, with a bias and ReLU") {
    forEachForm([&](LibraryConv conv, ElementType type) {
      conv.groups = conv.c;
      conv.k = 2 * conv.c;
      conv.r = 2;
      conv.padBegin = {1, 0};
      conv.bias = 2;
      conv.activation = LibraryConv::Activation::Relu;
      runAndCheck(device, makeCase(conv, type, 1), 1);
    });
  }
  SECTION("alpha, a bias, beta times a residual, ReLU") {
    forEachForm([&](LibraryConv conv, ElementType type) {
      conv.alpha = 0.5;
      conv.beta = 2.0;
      conv.bias = 2;
      conv.residual = 3;
      conv.activation = LibraryConv::Activation::Relu;
      runAndCheck(device, makeCase(conv, type, 2), 2);
      conv.activation = LibraryConv::Activation::None;
      conv.bias.reset();
      conv.beta = -1.0;
      runAndCheck(device, makeCase(conv, type, 2), 2);
    });
  }
}

TEST_CASE("a cuDNN convolution is prepared once per batch and replayed by a captured graph", "[cudnn]") {
  HostDevice device;
  LibraryConv conv = basicConv(LibraryConv::Layout::Nhwc);
  conv.bias = 2;
  const Case c = makeCase(conv, ElementType::F32, 2);
  auto plan = convPlan(c);
  cuda::CudnnConvs convs(device.driver, *plan, FUSEC_HOST_CUDA_DRIVER);
  Operands operands(device, c, 2);
  const LaunchStep step = stepOf(2);
  convs.run(step, operands.args.data(), device.stream, "for kernel 'k0_conv'");
  convs.run(step, operands.args.data(), device.stream, "for kernel 'k0_conv'");
  CHECK(device.record.cudnnHeuristicQueries == 1); // mode A had an engine
  CHECK(device.record.cudnnExecutions == 2);
  requireOutput(c, 2, device.download(operands.y, operands.yBytes));
  CHECK(device.record.cudnnExecutionsRun == 2);

  // y back to NaN: the graph's replays must write it again.
  const std::vector<uint8_t> fresh = encode(c.yType, std::vector<float>(operands.yBytes / 4, kNaN));
  device.driver.copyHostToDevice(operands.y, fresh.data(), fresh.size(), device.stream, "for a test");
  device.driver.beginCapture(device.stream, "for a test");
  convs.run(step, operands.args.data(), device.stream, "for kernel 'k0_conv'");
  gpu::Graph graph = device.driver.endCapture(device.stream, "for a test");
  CHECK(device.record.cudnnExecutionsRun == 2);
  device.driver.launchGraph(graph, device.stream, "for a test");
  device.driver.launchGraph(graph, device.stream, "for a test");
  requireOutput(c, 2, device.download(operands.y, operands.yBytes));
  CHECK(device.record.cudnnExecutionsRun == 4);
  device.driver.destroyGraph(graph);
  CHECK(device.record.cudnnHeuristicQueries == 1);

  // Another batch is another plan.
  const Case four = makeCase(conv, ElementType::F32, 4);
  Operands more(device, four, 4);
  convs.run(stepOf(4), more.args.data(), device.stream, "for kernel 'k0_conv'");
  requireOutput(four, 4, device.download(more.y, more.yBytes));
  CHECK(device.record.cudnnHeuristicQueries == 2);
}

TEST_CASE("f32 cuDNN convolutions skip TF32 tensor-core engines unless compute is tf32", "[cudnn]") {
  HostDevice device;
  LibraryConv conv = basicConv(LibraryConv::Layout::Nchw);
  conv.c = 1;
  conv.k = 1;
  conv.r = 1;
  conv.s = 1;
  conv.padBegin = conv.padEnd = {0, 0};
  Case c = makeCase(conv, ElementType::F32, 1);
  // 1 + 2^-12 is a quarter of a TF32 unit above 1: TF32 loses it.
  const float fine = 1.0f + std::ldexp(1.0f, -12);
  std::fill(c.x.begin(), c.x.end(), fine);
  c.w = {1.0f};
  runAndCheck(device, c, 1); // exact f32

  conv.compute = LibraryConv::Compute::Tf32;
  c.conv = conv;
  auto plan = convPlan(c);
  cuda::CudnnConvs convs(device.driver, *plan, FUSEC_HOST_CUDA_DRIVER);
  Operands operands(device, c, 1);
  convs.run(stepOf(1), operands.args.data(), device.stream, "for kernel 'k0_conv'");
  const std::vector<uint8_t> y = device.download(operands.y, operands.yBytes);
  float first;
  std::memcpy(&first, y.data(), sizeof first);
  CHECK(first == 1.0f); // the tensor-core engine, mode A's first, ran
}

TEST_CASE("cuDNN's failures: no engine is a reason, a failed execution an Error", "[cudnn]") {
  HostDevice device;
  LibraryConv conv = basicConv(LibraryConv::Layout::Nchw);
  conv.bias = 2;
  const Case c = makeCase(conv, ElementType::F16, 1);
  auto plan = convPlan(c);

  SECTION("no engine in any mode") {
    device.record.cudnnFailure = HostCudnnFailure::NoEngine;
    cuda::CudnnConvs convs(device.driver, *plan, FUSEC_HOST_CUDA_DRIVER);
    const std::string reason = convs.unsupported(0, 1);
    CHECK_THAT(reason, Contains("cuDNN has no engine for it") &&
                           Contains("heuristics mode A offered no engine config") &&
                           Contains("heuristics mode FALLBACK offered no engine config"));
    CHECK(convs.unsupported(0, 1) == reason); // cached
    CHECK(device.record.cudnnHeuristicQueries == 2);
    Operands operands(device, c, 1);
    CHECK_THROWS_WITH(convs.run(stepOf(1), operands.args.data(), device.stream, "for kernel 'k0_conv'"),
                      Contains("cannot run for kernel 'k0_conv' on cuDNN at batch 1: cuDNN has no engine"));
    CHECK(device.record.cudnnExecutions == 0);
  }
  SECTION("mode A has none, FALLBACK has one") {
    device.record.cudnnFailure = HostCudnnFailure::FallbackOnly;
    runAndCheck(device, c, 1);
    CHECK(device.record.cudnnHeuristicQueries == 2);
  }
  SECTION("every engine needs more workspace than allocated") {
    device.record.cudnnFailure = HostCudnnFailure::HugeWorkspace;
    cuda::CudnnConvs convs(device.driver, *plan, FUSEC_HOST_CUDA_DRIVER);
    CHECK_THAT(convs.unsupported(0, 1), Contains("an engine needs 1099511627776 bytes of workspace, more than the "
                                                 "67108864 allocated"));
  }
  SECTION("f32 under compute f32 with only tensor-core engines") {
    // FALLBACK offers the f32 engine: fine. A TF32-only library would leave
    // none; the double's mode A lists the tensor-core engine first, which is
    // skipped, and the f32 engine second.
    const Case f32 = makeCase(conv, ElementType::F32, 1);
    runAndCheck(device, f32, 1);
  }
  SECTION("a failed execution") {
    device.record.cudnnFailure = HostCudnnFailure::ExecuteFails;
    cuda::CudnnConvs convs(device.driver, *plan, FUSEC_HOST_CUDA_DRIVER);
    CHECK(convs.unsupported(0, 1).empty());
    Operands operands(device, c, 1);
    CHECK_THROWS_WITH(convs.run(stepOf(1), operands.args.data(), device.stream, "for kernel 'k0_conv'"),
                      "cudnnBackendExecute failed for kernel 'k0_conv': CUDNN_STATUS_EXECUTION_FAILED (the GPU "
                      "program failed to execute)");
    CHECK(device.record.cudnnExecutions == 0);
  }
  SECTION("an operand outside live memory") {
    cuda::CudnnConvs convs(device.driver, *plan, FUSEC_HOST_CUDA_DRIVER);
    Operands operands(device, c, 1);
    operands.args[0] += 16; // x's last 16 bytes past its allocation
    CHECK_THROWS_WITH(convs.run(stepOf(1), operands.args.data(), device.stream, "for kernel 'k0_conv'"),
                      Contains("cudnnBackendExecute failed for kernel 'k0_conv': CUDNN_STATUS_EXECUTION_FAILED"));
    CHECK_THAT(device.record.cudnnLastRefusal, Contains("outside live device memory"));
  }
}

TEST_CASE("cuDNN convolutions on less aligned addresses get a plan declared with that alignment", "[cudnn]") {
  HostDevice device;
  LibraryConv conv = basicConv(LibraryConv::Layout::Nhwc);
  conv.residual = 2;
  conv.beta = 1.0;
  const Case c = makeCase(conv, ElementType::F16, 2);
  auto plan = convPlan(c);
  cuda::CudnnConvs convs(device.driver, *plan, FUSEC_HOST_CUDA_DRIVER);
  CHECK(convs.unsupported(0, 1).empty());
  Operands operands(device, c, 2, /*offset=*/2); // every address 2 bytes past a 256-byte boundary
  convs.run(stepOf(2), operands.args.data(), device.stream, "for kernel 'k0_conv'");
  requireOutput(c, 2, device.download(operands.y, operands.yBytes));
  CHECK(device.record.cudnnHeuristicQueries == 2); // batch 1 aligned, batch 2 at 2 bytes
}

TEST_CASE("cuDNN handles and descriptors are released with the convolutions", "[cudnn]") {
  HostDevice device;
  LibraryConv conv = basicConv(LibraryConv::Layout::Nchw);
  conv.bias = 2;
  conv.residual = 3;
  conv.beta = 1.0;
  conv.activation = LibraryConv::Activation::Relu;
  const Case c = makeCase(conv, ElementType::F32, 1);
  auto plan = convPlan(c);
  {
    cuda::CudnnConvs convs(device.driver, *plan, FUSEC_HOST_CUDA_DRIVER);
    CHECK(device.record.cudnnHandlesLive == 1);
    CHECK(convs.unsupported(0, 1).empty());
    CHECK(device.record.cudnnDescriptorsLive > 0);
    Operands operands(device, c, 1);
    convs.run(stepOf(1), operands.args.data(), device.stream, "for kernel 'k0_conv'");
    device.driver.synchronize(device.stream, "for a test");
    CHECK(device.record.cudnnExecutionsRun == 1);
  }
  CHECK(device.record.cudnnHandlesLive == 0);
  CHECK(device.record.cudnnDescriptorsLive == 0);
  {
    device.record.cudnnFailure = HostCudnnFailure::NoEngine;
    cuda::CudnnConvs convs(device.driver, *plan, FUSEC_HOST_CUDA_DRIVER);
    CHECK_FALSE(convs.unsupported(0, 1).empty());
  }
  CHECK(device.record.cudnnDescriptorsLive == 0);
  CHECK(device.record.cudnnHandlesLive == 0);
}

TEST_CASE("a missing cuDNN is named", "[cudnn]") {
  CHECK_THROWS_WITH(cuda::CudnnApi::load("/nonexistent/libcudnn.so.9"),
                    Contains("cannot load cuDNN '/nonexistent/libcudnn.so.9': "));
  auto api = cuda::CudnnApi::load(FUSEC_HOST_CUDA_DRIVER);
  CHECK(api->describe(3002) == "CUDNN_STATUS_NOT_SUPPORTED_SHAPE (not supported: no engine for this problem or "
                               "configuration)");
  CHECK(api->getVersion() == size_t(hostRecord().cudnnVersion));
}

namespace {

/// The double driven directly through CudnnApi, with checked statuses:
/// descriptors it creates are destroyed with it.
class RawGraph {
public:
  RawGraph() : record(hostRecord()) { REQUIRE(api->create(&handle) == cuda::kCudnnSuccess); }
  ~RawGraph() {
    for (auto it = made_.rbegin(); it != made_.rend(); ++it)
      api->backendDestroyDescriptor(*it);
    api->destroy(handle);
  }
  RawGraph(const RawGraph &) = delete;
  RawGraph &operator=(const RawGraph &) = delete;

  cuda::cudnnBackendDescriptor_t make(cuda::cudnnBackendDescriptorType_t type) {
    cuda::cudnnBackendDescriptor_t descriptor = nullptr;
    REQUIRE(api->backendCreateDescriptor(type, &descriptor) == cuda::kCudnnSuccess);
    made_.push_back(descriptor);
    return descriptor;
  }
  template <typename T>
  cuda::cudnnStatus_t set(cuda::cudnnBackendDescriptor_t d, int name, int type, const std::vector<T> &values) {
    return api->backendSetAttribute(d, name, type, int64_t(values.size()), values.data());
  }
  cuda::cudnnStatus_t link(cuda::cudnnBackendDescriptor_t d, int name, cuda::cudnnBackendDescriptor_t value) {
    return api->backendSetAttribute(d, name, cuda::kTypeBackendDescriptor, 1, &value);
  }
  /// A finalized f32 tensor (virtual or not).
  cuda::cudnnBackendDescriptor_t tensor(const std::vector<int64_t> &dims, int64_t uid, bool isVirtual,
                                        bool finalize = true) {
    cuda::cudnnBackendDescriptor_t t = make(cuda::kTensorDescriptor);
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i > 0; --i)
      strides[i - 1] = strides[i] * dims[i];
    REQUIRE(set<int32_t>(t, cuda::kAttrTensorDataType, cuda::kTypeDataType, {cuda::kCudnnDataFloat}) == 0);
    REQUIRE(set(t, cuda::kAttrTensorDimensions, cuda::kTypeInt64, dims) == 0);
    REQUIRE(set(t, cuda::kAttrTensorStrides, cuda::kTypeInt64, strides) == 0);
    REQUIRE(set<int64_t>(t, cuda::kAttrTensorUniqueId, cuda::kTypeInt64, {uid}) == 0);
    REQUIRE(set<int64_t>(t, cuda::kAttrTensorByteAlignment, cuda::kTypeInt64, {16}) == 0);
    REQUIRE(set<uint8_t>(t, cuda::kAttrTensorIsVirtual, cuda::kTypeBoolean, {uint8_t(isVirtual)}) == 0);
    if (finalize)
      REQUIRE(api->backendFinalize(t) == cuda::kCudnnSuccess);
    return t;
  }
  /// A 3x3 convolution with padding 1 (y keeps x's height and width).
  cuda::cudnnBackendDescriptor_t convolution() {
    cuda::cudnnBackendDescriptor_t conv = make(cuda::kConvolutionDescriptor);
    REQUIRE(set<int32_t>(conv, cuda::kAttrConvolutionCompType, cuda::kTypeDataType, {cuda::kCudnnDataFloat}) == 0);
    REQUIRE(set<int32_t>(conv, cuda::kAttrConvolutionConvMode, cuda::kTypeConvolutionMode,
                         {cuda::kCudnnCrossCorrelation}) == 0);
    REQUIRE(set<int64_t>(conv, cuda::kAttrConvolutionSpatialDims, cuda::kTypeInt64, {2}) == 0);
    for (int name : {cuda::kAttrConvolutionPrePaddings, cuda::kAttrConvolutionPostPaddings,
                     cuda::kAttrConvolutionFilterStrides, cuda::kAttrConvolutionDilations})
      REQUIRE(set<int64_t>(conv, name, cuda::kTypeInt64, {1, 1}) == 0);
    REQUIRE(api->backendFinalize(conv) == cuda::kCudnnSuccess);
    return conv;
  }
  cuda::cudnnStatus_t convolutionOp(cuda::cudnnBackendDescriptor_t &op, cuda::cudnnBackendDescriptor_t x,
                                    cuda::cudnnBackendDescriptor_t w, cuda::cudnnBackendDescriptor_t y) {
    op = make(cuda::kOperationConvolutionForwardDescriptor);
    REQUIRE(link(op, cuda::kAttrOperationConvolutionForwardX, x) == 0);
    REQUIRE(link(op, cuda::kAttrOperationConvolutionForwardW, w) == 0);
    REQUIRE(link(op, cuda::kAttrOperationConvolutionForwardY, y) == 0);
    REQUIRE(link(op, cuda::kAttrOperationConvolutionForwardConvDesc, convolution()) == 0);
    return api->backendFinalize(op);
  }
  cuda::cudnnStatus_t add(cuda::cudnnBackendDescriptor_t &op, cuda::cudnnBackendDescriptor_t x,
                          cuda::cudnnBackendDescriptor_t b, cuda::cudnnBackendDescriptor_t y) {
    cuda::cudnnBackendDescriptor_t pointwise = make(cuda::kPointwiseDescriptor);
    REQUIRE(set<int32_t>(pointwise, cuda::kAttrPointwiseMode, cuda::kTypePointwiseMode, {cuda::kPointwiseAdd}) == 0);
    REQUIRE(set<int32_t>(pointwise, cuda::kAttrPointwiseMathPrec, cuda::kTypeDataType, {cuda::kCudnnDataFloat}) == 0);
    REQUIRE(api->backendFinalize(pointwise) == 0);
    op = make(cuda::kOperationPointwiseDescriptor);
    REQUIRE(link(op, cuda::kAttrOperationPointwisePwDescriptor, pointwise) == 0);
    REQUIRE(link(op, cuda::kAttrOperationPointwiseXDesc, x) == 0);
    REQUIRE(link(op, cuda::kAttrOperationPointwiseBDesc, b) == 0);
    REQUIRE(link(op, cuda::kAttrOperationPointwiseYDesc, y) == 0);
    return api->backendFinalize(op);
  }
  cuda::cudnnStatus_t graph(cuda::cudnnBackendDescriptor_t &graph,
                            const std::vector<cuda::cudnnBackendDescriptor_t> &ops) {
    graph = make(cuda::kOperationGraphDescriptor);
    REQUIRE(set(graph, cuda::kAttrOperationGraphOps, cuda::kTypeBackendDescriptor, ops) == 0);
    REQUIRE(set(graph, cuda::kAttrOperationGraphHandle, cuda::kTypeHandle, std::vector{handle}) == 0);
    return api->backendFinalize(graph);
  }

  std::shared_ptr<const cuda::CudnnApi> api = cuda::CudnnApi::load(FUSEC_HOST_CUDA_DRIVER);
  HostCudaState &record;
  cuda::cudnnHandle_t handle = nullptr;

private:
  std::vector<cuda::cudnnBackendDescriptor_t> made_;
};

// cudnn_graph.h's statuses the tests expect (what cuDNN 9.19 returns).
constexpr cuda::cudnnStatus_t kBadParamMisaligned = 2003;
constexpr cuda::cudnnStatus_t kBadParamAttributeType = 2010;
constexpr cuda::cudnnStatus_t kNotSupportedGraphPattern = 3001;

} // namespace

TEST_CASE("the cuDNN double refuses attributes as cuDNN does", "[cudnn]") {
  RawGraph raw;
  cuda::cudnnBackendDescriptor_t t = raw.make(cuda::kTensorDescriptor);
  // The wrong type, count, descriptor; an attribute of the tensor's that the
  // double does not model (TENSOR_VECTOR_COUNT).
  CHECK(raw.set<int64_t>(t, cuda::kAttrTensorDataType, cuda::kTypeInt64, {0}) == kBadParamAttributeType);
  CHECK(raw.set<int32_t>(t, cuda::kAttrTensorDataType, cuda::kTypeDataType, {0, 0}) == cuda::kCudnnBadParam);
  CHECK(raw.set<int32_t>(t, cuda::kAttrConvolutionCompType, cuda::kTypeDataType, {0}) == cuda::kCudnnBadParam);
  CHECK(raw.set<int64_t>(t, 904, cuda::kTypeInt64, {1}) == cuda::kCudnnNotSupported);
  // Incomplete: no byte alignment.
  REQUIRE(raw.set<int32_t>(t, cuda::kAttrTensorDataType, cuda::kTypeDataType, {cuda::kCudnnDataFloat}) == 0);
  REQUIRE(raw.set<int64_t>(t, cuda::kAttrTensorDimensions, cuda::kTypeInt64, {1, 2, 3, 4}) == 0);
  REQUIRE(raw.set<int64_t>(t, cuda::kAttrTensorStrides, cuda::kTypeInt64, {24, 12, 4, 1}) == 0);
  REQUIRE(raw.set<int64_t>(t, cuda::kAttrTensorUniqueId, cuda::kTypeInt64, {1}) == 0);
  int64_t count = 0, value = 0;
  CHECK(raw.api->backendGetAttribute(t, cuda::kAttrTensorUniqueId, cuda::kTypeInt64, 1, &count, &value) ==
        cuda::kCudnnNotInitialized);
  CHECK(raw.api->backendFinalize(t) == cuda::kCudnnBadParam);
  REQUIRE(raw.set<int64_t>(t, cuda::kAttrTensorByteAlignment, cuda::kTypeInt64, {16}) == 0);
  REQUIRE(raw.api->backendFinalize(t) == cuda::kCudnnSuccess);
  CHECK(raw.api->backendFinalize(t) == cuda::kCudnnBadParam);
  CHECK(raw.set<int64_t>(t, cuda::kAttrTensorUniqueId, cuda::kTypeInt64, {2}) == cuda::kCudnnBadParam);
  CHECK(raw.api->backendGetAttribute(t, cuda::kAttrTensorDimensions, cuda::kTypeInt64, 0, &count, nullptr) == 0);
  CHECK(count == 4);
  CHECK(raw.api->backendGetAttribute(t, cuda::kAttrTensorUniqueId, cuda::kTypeInt64, 1, &count, &value) == 0);
  CHECK(value == 1);
}

TEST_CASE("the cuDNN double checks convolution shapes, broadcasts and the graph's pattern", "[cudnn]") {
  RawGraph raw;
  auto x = raw.tensor({1, 4, 5, 5}, 1, false);
  auto w = raw.tensor({8, 4, 3, 3}, 2, false);
  auto y = raw.tensor({1, 8, 5, 5}, 3, true);
  cuda::cudnnBackendDescriptor_t conv = nullptr, op = nullptr, graph = nullptr;

  SECTION("y of the wrong shape, an unfinalized tensor, channels the groups do not divide") {
    CHECK(raw.convolutionOp(op, x, w, raw.tensor({1, 8, 4, 5}, 3, true)) == cuda::kCudnnBadParam);
    CHECK(raw.convolutionOp(op, x, w, raw.tensor({1, 8, 5, 5}, 3, true, false)) == cuda::kCudnnBadParam);
    CHECK(raw.convolutionOp(op, x, raw.tensor({8, 3, 3, 3}, 2, false), y) == cuda::kCudnnBadParam);
    CHECK(raw.convolutionOp(op, x, raw.tensor({8, 2, 3, 3}, 2, false), y) == cuda::kCudnnSuccess); // 2 groups
  }
  SECTION("a bias that does not broadcast") {
    REQUIRE(raw.convolutionOp(conv, x, w, y) == cuda::kCudnnSuccess);
    // cuDNN finalizes the operation and finds no engine later; the double
    // refuses the graph.
    REQUIRE(raw.add(op, y, raw.tensor({1, 3, 1, 1}, 4, false), raw.tensor({1, 8, 5, 5}, 5, false)) == 0);
    CHECK(raw.graph(graph, {conv, op}) == cuda::kCudnnBadParam);
    CHECK_THAT(raw.record.cudnnLastRefusal, Contains("does not broadcast"));
  }
  SECTION("two outputs, a dangling virtual tensor, one id for two tensors") {
    REQUIRE(raw.convolutionOp(conv, x, w, y) == cuda::kCudnnSuccess);
    auto bias = raw.tensor({1, 8, 1, 1}, 4, false);
    cuda::cudnnBackendDescriptor_t first = nullptr, second = nullptr;
    REQUIRE(raw.add(first, y, bias, raw.tensor({1, 8, 5, 5}, 5, false)) == 0);
    REQUIRE(raw.add(second, y, bias, raw.tensor({1, 8, 5, 5}, 6, false)) == 0);
    CHECK(raw.graph(graph, {conv, first, second}) == kNotSupportedGraphPattern);
    CHECK(raw.graph(graph, {conv}) == cuda::kCudnnBadParam); // y is virtual and nothing reads it
    cuda::cudnnBackendDescriptor_t clash = nullptr;
    REQUIRE(raw.add(clash, y, bias, raw.tensor({1, 8, 5, 5}, 1, false)) == 0);
    CHECK(raw.graph(graph, {conv, clash}) == cuda::kCudnnBadParam);
    CHECK(raw.graph(graph, {conv, first}) == cuda::kCudnnSuccess);
  }
  SECTION("an execution plan of an engine config not finalized") {
    REQUIRE(raw.convolutionOp(conv, x, w, raw.tensor({1, 8, 5, 5}, 3, false)) == cuda::kCudnnSuccess);
    REQUIRE(raw.graph(graph, {conv}) == cuda::kCudnnSuccess);
    cuda::cudnnBackendDescriptor_t engine = raw.make(cuda::kEngineDescriptor);
    REQUIRE(raw.link(engine, 1300, graph) == 0); // CUDNN_ATTR_ENGINE_OPERATION_GRAPH
    REQUIRE(raw.set<int64_t>(engine, cuda::kAttrEngineGlobalIndex, cuda::kTypeInt64, {1}) == 0);
    REQUIRE(raw.api->backendFinalize(engine) == cuda::kCudnnSuccess);
    cuda::cudnnBackendDescriptor_t config = raw.make(cuda::kEngineCfgDescriptor);
    REQUIRE(raw.link(config, cuda::kAttrEngineCfgEngine, engine) == 0);
    cuda::cudnnBackendDescriptor_t plan = raw.make(cuda::kExecutionPlanDescriptor);
    REQUIRE(raw.link(plan, cuda::kAttrExecutionPlanEngineConfig, config) == 0);
    CHECK(raw.api->backendFinalize(plan) == cuda::kCudnnBadParamNotFinalized);

    // Finalized, it plans; the variant pack's pointers must be aligned as
    // the tensors say, and lie in live memory.
    REQUIRE(raw.api->backendFinalize(config) == cuda::kCudnnSuccess);
    plan = raw.make(cuda::kExecutionPlanDescriptor);
    REQUIRE(raw.link(plan, cuda::kAttrExecutionPlanEngineConfig, config) == 0);
    REQUIRE(raw.api->backendFinalize(plan) == cuda::kCudnnSuccess);
    int64_t count = 0, workspace = 0;
    REQUIRE(raw.api->backendGetAttribute(plan, cuda::kAttrExecutionPlanWorkspaceSize, cuda::kTypeInt64, 1, &count,
                                         &workspace) == 0);
    CHECK(workspace == 2048);
    HostDevice device; // resets the record
    const gpu::DevicePtr memory = device.allocate(4096);
    REQUIRE(raw.api->setStream(raw.handle, static_cast<cuda::CUstream>(device.stream)) == 0);
    auto execute = [&](std::vector<gpu::DevicePtr> pointers, gpu::DevicePtr space) {
      cuda::cudnnBackendDescriptor_t pack = raw.make(cuda::kVariantPackDescriptor);
      REQUIRE(raw.set<int64_t>(pack, cuda::kAttrVariantPackUniqueIds, cuda::kTypeInt64, {1, 2, 3}) == 0);
      REQUIRE(raw.set(pack, cuda::kAttrVariantPackDataPointers, cuda::kTypeVoidPtr, pointers) == 0);
      REQUIRE(raw.set(pack, cuda::kAttrVariantPackWorkspace, cuda::kTypeVoidPtr, std::vector{space}) == 0);
      REQUIRE(raw.api->backendFinalize(pack) == 0);
      return raw.api->backendExecute(raw.handle, plan, pack);
    };
    const gpu::DevicePtr big = device.allocate(1 << 16);
    CHECK(execute({memory, memory + 512, memory + 1028}, big) == kBadParamMisaligned);
    CHECK(execute({memory, memory + 512, memory + 1024}, 0) == cuda::kCudnnBadParam);          // no workspace
    CHECK(execute({memory, memory + 512, memory + 3840}, big) == cuda::kCudnnExecutionFailed); // y past the end
    CHECK(raw.record.cudnnExecutions == 0);
    CHECK(execute({memory, memory + 512, memory + 1024}, big) == cuda::kCudnnSuccess);
    CHECK(raw.record.cudnnExecutions == 1);
    device.driver.synchronize(device.stream, "for a test");
    CHECK(raw.record.cudnnExecutionsRun == 1);
  }
}
