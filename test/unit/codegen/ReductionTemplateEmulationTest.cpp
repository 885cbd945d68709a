//===- ReductionTemplateEmulationTest.cpp - fusec_reduction.h under emulation -===//
//
// The row reductions of FusecRowReduction (softmax, LayerNorm, ArgMax and
// ArgMin, the Reduce* ops) instantiated as the generated kernels do — one
// 256-thread block per row, load/output/store functors, the Reduce*
// arithmetic and the arg choice written by support/Reductions.h's
// expression generators — on ragged row lengths (1, fewer than a warp, one
// short of a block, a block, one past it, several blocks' worth), rows
// strided by `inner` and contiguous, and checked element by element against
// scalar float64 references written from the definitions (Reductions.h's
// combine/contribution/finish and argPrefers, the CPU backend's). Max, Min
// and the arg choices must match exactly, NaN and ties included; sums hold
// to a few float ulps of the sum of magnitudes.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"
#include "support/Reductions.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace fusec::test;
namespace reductions = fusec::reductions;

namespace {

constexpr int kThreads = 256;

/// Row lengths: a single element, fewer than a warp, a warp, one short of a
/// block, a block, one past, several blocks' worth and ragged.
const std::vector<long long> kLengths = {1, 5, 32, 255, 256, 257, 1000};

const std::vector<reductions::Kind> kKinds = {
    reductions::Kind::Sum, reductions::Kind::Mean, reductions::Kind::Max,
    reductions::Kind::Min, reductions::Kind::Prod, reductions::Kind::SumSquare,
    reductions::Kind::L1,  reductions::Kind::L2,   reductions::Kind::LogSum};

std::string kindName(reductions::Kind kind) { return "reduce" + std::to_string(static_cast<int>(kind)); }

std::string argName(bool largest, bool last) {
  return std::string(largest ? "argMax" : "argMin") + (last ? "Last" : "First");
}

/// The thunk unpacking (in, out, length, inner).
std::string thunk(const std::string &name, const std::string &outType) {
  return "#ifdef FUSEC_EMULATION\nextern \"C\" void " + name + "__emulated(void **args) { " + name +
         "(static_cast<const float *>(args[0]), static_cast<" + outType +
         " *>(args[1]), *static_cast<long long *>(args[2]), *static_cast<long long *>(args[3])); }\n#endif\n";
}

/// One kernel per template entry point (and per Reduce* kind and arg
/// choice), each a block per row of `length` elements `inner` apart, as
/// ReductionKernels.cpp emits them.
std::string kernelSource() {
  std::string source = "#include \"fusec_cuda_prelude.h\"\n#include \"fusec_reduction.h\"\n"
                       "using Rows = FusecRowReduction<" +
                       std::to_string(kThreads) + ">;\n";
  source += R"cuda(
extern "C" __global__ void softmax(const float *in, float *out, long long length, long long inner) {
  __shared__ float scratch[Rows::kScratchFloats];
  const long long base = Rows::rowBase(blockIdx.x, length, inner);
  auto load = [&](long long l) { return in[base + l * inner]; };
  auto output = [&](long long l, const Rows::SoftmaxNormalizer &normalize) { out[base + l * inner] = normalize(in[base + l * inner]); };
  Rows::softmax(length, scratch, load, output);
}

// LayerNorm with a scale and bias as the generated kernels apply them.
extern "C" __global__ void layerNorm(const float *in, float *out, long long length, long long inner) {
  __shared__ float scratch[Rows::kScratchFloats];
  const long long base = Rows::rowBase(blockIdx.x, length, inner);
  auto load = [&](long long l) { return in[base + l * inner]; };
  auto output = [&](long long l, const Rows::LayerNormNormalizer &normalize) {
    out[base + l * inner] = normalize(in[base + l * inner]) * 1.5f + 0.25f;
  };
  Rows::layerNorm(length, 1e-5f, scratch, load, output);
}

// The same with each element loaded once into registers (conv-into-norm's
// kernels): 4 per thread cover rows of up to 1024.
extern "C" __global__ void layerNormCached(const float *in, float *out, long long length, long long inner) {
  __shared__ float scratch[Rows::kScratchFloats];
  const long long base = Rows::rowBase(blockIdx.x, length, inner);
  auto load = [&](long long l) { return in[base + l * inner]; };
  auto output = [&](long long l, const Rows::LayerNormNormalizer &normalize, float x) {
    out[base + l * inner] = normalize(x) * 1.5f + 0.25f;
  };
  Rows::layerNormCached<4>(length, 1e-5f, scratch, load, output);
}
)cuda";
  source += thunk("softmax", "float") + thunk("layerNorm", "float") + thunk("layerNormCached", "float");
  for (bool largest : {false, true})
    for (bool last : {false, true}) {
      const std::string name = argName(largest, last);
      source += "extern \"C\" __global__ void " + name +
                "(const float *in, long long *out, long long length, long long inner) {\n"
                "  __shared__ float choiceValue[Rows::kThreads];\n"
                "  __shared__ long long choiceIndex[Rows::kThreads];\n"
                "  struct Choice {\n"
                "    __device__ static bool prefers(float value, long long index, float current, long long "
                "currentIndex) { return " +
                reductions::argPrefersExpression(largest, last, "value", "index", "current", "currentIndex") +
                "; }\n  };\n"
                "  const long long base = Rows::rowBase(blockIdx.x, length, inner);\n"
                "  auto load = [&](long long l) { return in[base + l * inner]; };\n"
                "  auto store = [&](long long result) { out[blockIdx.x] = result; };\n"
                "  Rows::argReduce<Choice>(length, choiceValue, choiceIndex, load, store);\n}\n" +
                thunk(name, "long long");
    }
  for (reductions::Kind kind : kKinds) {
    const std::string name = kindName(kind);
    source += "extern \"C\" __global__ void " + name +
              "(const float *in, float *out, long long length, long long inner) {\n"
              "  __shared__ float scratch[Rows::kScratchFloats];\n"
              "  struct Op {\n"
              "    __device__ static float identity() { return " +
              reductions::initialExpression(kind) +
              "; }\n"
              "    __device__ static float contribution(float x) { return " +
              reductions::contributionExpression(kind, "x") +
              "; }\n"
              "    __device__ static float combine(float a, float b) { return " +
              reductions::combineExpression(kind, "a", "b") +
              "; }\n"
              "    __device__ static float finish(float v, [[maybe_unused]] long long count) { return " +
              reductions::finishExpression(kind, "v", "count") +
              "; }\n  };\n"
              "  const long long base = Rows::rowBase(blockIdx.x, length, inner);\n"
              "  auto load = [&](long long r) { return in[base + r * inner]; };\n"
              "  auto store = [&](float result) { out[blockIdx.x] = result; };\n"
              "  Rows::reduce<Op>(length, scratch, load, store);\n}\n" +
              thunk(name, "float");
  }
  return source;
}

const EmulatedModule &kernels() {
  static const EmulatedModule module = EmulatedModule::compile(kernelSource(), "", {FUSEC_PRELUDE_DIR});
  return module;
}

/// A [outer, length, inner] tensor reduced over its middle axis: the rows
/// are (o, i), row index o * inner + i, as rowBase numbers them.
struct Rows {
  long long outer, length, inner;
  long long count() const { return outer * inner; }
  long long size() const { return outer * length * inner; }
  long long at(long long row, long long l) const { return (row / inner) * length * inner + row % inner + l * inner; }
};

/// The row shapes of every case: each length contiguous (inner 1) and
/// strided (inner 3).
std::vector<Rows> rowShapes() {
  std::vector<Rows> shapes;
  for (long long length : kLengths) {
    shapes.push_back({3, length, 1});
    shapes.push_back({2, length, 3});
  }
  return shapes;
}

std::vector<float> randomValues(long long size, unsigned seed, float low, float high) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  std::vector<float> values(size);
  for (float &value : values)
    value = uniform(random);
  return values;
}

template <typename Out>
std::vector<Out> launchRows(const std::string &kernel, const Rows &shape, const std::vector<float> &in,
                            long long outSize, Out untouched) {
  std::vector<Out> out(outSize, untouched);
  long long length = shape.length, inner = shape.inner;
  kernels().launch(kernel, {unsigned(shape.count())}, {kThreads},
                   {const_cast<float *>(in.data()), out.data(), &length, &inner},
                   {in.size() * sizeof(float), out.size() * sizeof(Out)});
  return out;
}

} // namespace

TEST_CASE("fusec_reduction.h softmax matches a float64 softmax on ragged and strided rows",
          "[codegen][emul][reduction]") {
  unsigned seed = 0;
  for (const Rows &shape : rowShapes()) {
    const std::vector<float> in = randomValues(shape.size(), ++seed, -8.0f, 8.0f);
    const std::vector<float> out = launchRows<float>("softmax", shape, in, shape.size(), NAN);
    for (long long row = 0; row < shape.count(); ++row) {
      double maximum = -INFINITY, sum = 0.0;
      for (long long l = 0; l < shape.length; ++l)
        maximum = std::max(maximum, double(in[shape.at(row, l)]));
      for (long long l = 0; l < shape.length; ++l)
        sum += std::exp(double(in[shape.at(row, l)]) - maximum);
      for (long long l = 0; l < shape.length; ++l) {
        const double expected = std::exp(double(in[shape.at(row, l)]) - maximum) / sum;
        INFO("length " << shape.length << ", inner " << shape.inner << ", row " << row << ", element " << l);
        REQUIRE(out[shape.at(row, l)] == Approx(expected).epsilon(1e-5).margin(1e-7));
      }
    }
  }
}

TEST_CASE("fusec_reduction.h layer norm matches a float64 layer norm on ragged and strided rows",
          "[codegen][emul][reduction]") {
  unsigned seed = 100;
  for (const Rows &shape : rowShapes()) {
    // An offset mean: a one-pass E[x^2] - mean^2 would lose digits here.
    const std::vector<float> in = randomValues(shape.size(), ++seed, 9.0f, 11.0f);
    const std::vector<float> out = launchRows<float>("layerNorm", shape, in, shape.size(), NAN);
    for (long long row = 0; row < shape.count(); ++row) {
      double mean = 0.0, variance = 0.0;
      for (long long l = 0; l < shape.length; ++l)
        mean += in[shape.at(row, l)];
      mean /= double(shape.length);
      for (long long l = 0; l < shape.length; ++l)
        variance += (in[shape.at(row, l)] - mean) * (in[shape.at(row, l)] - mean);
      variance /= double(shape.length);
      for (long long l = 0; l < shape.length; ++l) {
        const double expected = (in[shape.at(row, l)] - mean) / std::sqrt(variance + 1e-5) * 1.5 + 0.25;
        INFO("length " << shape.length << ", inner " << shape.inner << ", row " << row << ", element " << l);
        REQUIRE(out[shape.at(row, l)] == Approx(expected).epsilon(1e-4).margin(1e-4));
      }
    }
  }
}

TEST_CASE("fusec_reduction.h layer norm with the row in registers equals the layer norm that loads it thrice",
          "[codegen][emul][reduction]") {
  unsigned seed = 200;
  for (const Rows &shape : rowShapes()) {
    const std::vector<float> in = randomValues(shape.size(), ++seed, 9.0f, 11.0f);
    const std::vector<float> cached = launchRows<float>("layerNormCached", shape, in, shape.size(), NAN);
    const std::vector<float> loaded = launchRows<float>("layerNorm", shape, in, shape.size(), NAN);
    for (long long i = 0; i < shape.size(); ++i) {
      INFO("length " << shape.length << ", inner " << shape.inner << ", element " << i);
      REQUIRE(cached[i] == loaded[i]); // the same sums in the same order
    }
  }
}

TEST_CASE("fusec_reduction.h arg reductions choose exactly as argPrefers, ties and NaN included",
          "[codegen][emul][reduction]") {
  unsigned seed = 200;
  for (const Rows &shape : rowShapes()) {
    // Few distinct values, so rows tie; a NaN or two in some rows.
    std::vector<float> in = randomValues(shape.size(), ++seed, -2.0f, 2.0f);
    for (float &value : in)
      value = std::round(value * 2.0f) / 2.0f;
    std::mt19937 random(seed);
    for (long long row = 0; row < shape.count(); row += 2)
      for (int n = 0; n < 2; ++n)
        in[shape.at(row, random() % shape.length)] = NAN;
    for (bool largest : {false, true})
      for (bool last : {false, true}) {
        const std::vector<long long> out = launchRows<long long>(argName(largest, last), shape, in, shape.count(), -7);
        for (long long row = 0; row < shape.count(); ++row) {
          double best = 0.0;
          int64_t bestIndex = -1;
          for (long long l = 0; l < shape.length; ++l)
            if (reductions::argPrefers(largest, last, in[shape.at(row, l)], l, best, bestIndex)) {
              best = in[shape.at(row, l)];
              bestIndex = l;
            }
          INFO(argName(largest, last) << ", length " << shape.length << ", inner " << shape.inner << ", row " << row);
          REQUIRE(out[row] == bestIndex);
        }
      }
  }
}

TEST_CASE("fusec_reduction.h Reduce* ops match Reductions.h's definitions on ragged and strided rows",
          "[codegen][emul][reduction]") {
  unsigned seed = 300;
  for (const Rows &shape : rowShapes())
    for (reductions::Kind kind : kKinds) {
      ++seed;
      // Products near 1 (no underflow), logs of positive sums; Max and Min
      // over negative values only (an identity of 0 would win), with a NaN
      // in some rows.
      const bool product = kind == reductions::Kind::Prod, logSum = kind == reductions::Kind::LogSum;
      const bool ordered = kind == reductions::Kind::Max || kind == reductions::Kind::Min;
      std::vector<float> in = randomValues(shape.size(), seed,
                                           product   ? 0.99f
                                           : logSum  ? 0.0f
                                           : ordered ? -5.0f
                                                     : -1.0f,
                                           product   ? 1.01f
                                           : ordered ? -0.5f
                                                     : 1.0f);
      if (kind == reductions::Kind::Min)
        for (float &value : in)
          value = -value;
      if (ordered)
        for (long long row = 1; row < shape.count(); row += 3)
          in[shape.at(row, shape.length / 2)] = NAN;
      const std::vector<float> out = launchRows<float>(kindName(kind), shape, in, shape.count(), 12345.0f);
      for (long long row = 0; row < shape.count(); ++row) {
        double value = reductions::initial(kind), magnitude = 0.0;
        for (long long l = 0; l < shape.length; ++l) {
          const double contribution = reductions::contribution(kind, in[shape.at(row, l)]);
          value = reductions::combine(kind, value, contribution);
          magnitude += std::fabs(contribution);
        }
        const double expected = reductions::finish(kind, value, double(shape.length));
        INFO(kindName(kind) << ", length " << shape.length << ", inner " << shape.inner << ", row " << row << ": got "
                            << out[row] << ", expected " << expected);
        if (ordered) {
          // Exact: the result is one of the elements (or NaN).
          REQUIRE((std::isnan(expected) ? std::isnan(out[row]) : double(out[row]) == expected));
        } else {
          // A few float ulps of what was added up: of the product itself,
          // of the sum's log (an absolute error), of the magnitudes' sum.
          const double scale = kind == reductions::Kind::Prod ? std::fabs(expected)
                               : kind == reductions::Kind::LogSum
                                   ? 1.0
                                   : reductions::finish(kind, magnitude, double(shape.length));
          REQUIRE(std::fabs(out[row] - expected) <= 1e-5 * scale + 1e-6);
        }
      }
    }
}
