//===- SimtTemplateEmulationTest.cpp - fusec_simt.h under emulation -------===//
//
// The SIMT templates of fusec_simt.h instantiated as the generated kernels
// do (GemmKernels.cpp, ConvKernels.cpp: a tile description by name, the
// tiles declared by the kernel, addressing and epilogue as functors), on ragged
// shapes, against scalar float64 references written from the definitions:
//
//  * FusecSimtGemm, tiles 16 and 8, every transpose of A and B, M, N and K
//    below, at and past the tile;
//  * FusecSimtConv, NCHW and NHWC (OHWI weights), 1x1, padded 3x3, strided,
//    dilated and asymmetrically padded windows, ragged pixel and channel
//    counts;
//  * FusecDirectConv: depthwise (MobileNet's 3x3 stride 2, and stride 1),
//    grouped with dilation, group 1, both layouts, on grids smaller than
//    the output (the grid-stride loop).
//
// Each element must be within the f32 accumulation bound of the float64
// sum, and equal, bit for bit, to the f32 sum in the order the generated
// kernels always summed (k = 0, 1, ... for the tiled loops: (c, kh, kw), or
// (kh, kw, c) channels-last; c, kh, kw for the direct loop, padding
// skipped). Every buffer sits between guard pages, outputs start as NaN.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace fusec::test;

namespace {

/// A convolution case: sizes, window, groups, layout, and for the tiled
/// template its tile (0: the direct template).
struct ConvCase {
  long long n, c, h, w, co, kh, kw;
  int strideH, strideW, padTop, padLeft, padBottom, padRight, dilationH, dilationW, group;
  bool channelsLast;
  int tile;

  long long ho() const { return (h + padTop + padBottom - dilationH * (kh - 1) - 1) / strideH + 1; }
  long long wo() const { return (w + padLeft + padRight - dilationW * (kw - 1) - 1) / strideW + 1; }
  long long perGroup() const { return c / group; }
  std::string name(size_t index) const { return (tile ? "simtConv" : "directConv") + std::to_string(index); }
};

const std::vector<ConvCase> kConvs = {
    // The tiled implicit GEMM: pointwise, padded 3x3, strided + dilated +
    // asymmetric pads; both layouts; tiles 16 and 8.
    {2, 5, 6, 6, 7, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, false, 16},
    {3, 4, 7, 5, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, false, 16},
    {2, 3, 9, 9, 20, 3, 3, 2, 2, 0, 1, 1, 0, 2, 1, 1, false, 8},
    {1, 6, 5, 7, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, 16},
    {2, 3, 9, 9, 9, 3, 2, 2, 1, 0, 1, 1, 0, 2, 1, 1, true, 8},
    // The direct loop: depthwise 3x3 stride 2 pad 1 (MobileNet), depthwise
    // stride 1, grouped and dilated, group 1; both layouts.
    {2, 8, 9, 9, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 8, false, 0},
    {3, 5, 6, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5, true, 0},
    {2, 6, 8, 7, 4, 3, 2, 1, 2, 2, 0, 1, 1, 2, 1, 2, false, 0},
    {1, 3, 5, 5, 7, 2, 3, 1, 1, 0, 1, 0, 1, 1, 1, 1, true, 0},
    {2, 8, 9, 9, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 8, true, 0},
};

/// Matrix-product shapes (M, N, K): below, at and past the tiles.
const std::vector<std::vector<long long>> kProducts = {{1, 1, 1},   {7, 5, 3},   {16, 16, 16}, {17, 19, 17},
                                                       {33, 8, 45}, {5, 40, 24}, {50, 3, 9},   {8, 8, 8}};

std::string boolText(bool value) { return value ? "true" : "false"; }

/// `struct <name>_tile`: the members of a SIMT tile description the
/// templates read, named as TileDescription (codegen/KernelBuilder.h)
/// renders them: the square tile T x T x T.
std::string tileMembers(int tile) {
  const std::string t = std::to_string(tile);
  return "  static constexpr int kBlockM = " + t + ";\n  static constexpr int kBlockN = " + t +
         ";\n  static constexpr int kBlockK = " + t + ";\n";
}

/// The description of conv case `c`: the tile (the tiled template only),
/// the groups and the window.
std::string convTile(const ConvCase &c, const std::string &name) {
  std::string text = "struct " + name + "_tile {\n" + (c.tile ? tileMembers(c.tile) : std::string());
  const std::pair<const char *, int> window[] = {
      {"kGroup", c.group},     {"kStrideH", c.strideH},     {"kStrideW", c.strideW},    {"kPadTop", c.padTop},
      {"kPadLeft", c.padLeft}, {"kDilationH", c.dilationH}, {"kDilationW", c.dilationW}};
  for (const auto &[member, value] : window)
    text += "  static constexpr int " + std::string(member) + " = " + std::to_string(value) + ";\n";
  return text + "  static constexpr bool kChannelsLast = " + boolText(c.channelsLast) + ";\n};\n";
}

/// The input's and output's addressing as ConvKernels.cpp writes it
/// (sizes from `sizes`), for the case's layout.
std::string inputIndex(const ConvCase &c) {
  return c.channelsLast ? "((on * sizes.h + ih) * sizes.w + iw) * sizes.c + c"
                        : "((on * sizes.c + c) * sizes.h + ih) * sizes.w + iw";
}
std::string outputIndex(const ConvCase &c) {
  return c.channelsLast ? "((on * sizes.ho + oh) * sizes.wo + ow) * sizes.co + co"
                        : "((on * sizes.co + co) * sizes.ho + oh) * sizes.wo + ow";
}

/// One kernel per conv case, (x, w, out, dims) with dims the FusecConvSizes.
std::string convKernel(const ConvCase &c, size_t index) {
  const std::string name = c.name(index);
  std::string text = convTile(c, name) + "extern \"C\" __global__ void " + name +
                     "(const float *x, const float *wt, float *out, const long long *dims) {\n"
                     "  const FusecConvSizes sizes{dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], dims[6], "
                     "dims[7], dims[8]};\n"
                     "  auto input = [&](long long on, long long c, long long ih, long long iw) { return fusec_ld(&x[" +
                     inputIndex(c) + "]); };\n";
  text += "  auto epilogue = [&](long long on, long long co, long long oh, long long ow, float acc) { out[" +
          outputIndex(c) + "] = acc; };\n";
  if (c.tile) {
    text += "  using Conv = FusecSimtConv<" + name + "_tile>;\n" +
            "  __shared__ Conv::Tile tileA, tileB;\n"
            "  static_assert(Conv::kSmemBytes == " +
            std::to_string(8 * c.tile * (c.tile + 1)) +
            ", \"KernelConfig::sharedBytes\");\n"
            "  const long long K = sizes.taps();\n"
            "  auto weight = [&](long long co, long long k) { return fusec_ld(&wt[co * K + k]); };\n"
            "  Conv::run(sizes, (long long)blockIdx.x * Conv::kTile, (long long)blockIdx.y * Conv::kTile, tileA, "
            "tileB, input, weight, epilogue);\n";
  } else {
    const std::string weightIndex = c.channelsLast ? "((co * sizes.kh + kh) * sizes.kw + kw) * perGroupIn + c"
                                                   : "((co * perGroupIn + c) * sizes.kh + kh) * sizes.kw + kw";
    text += "  using Conv = FusecDirectConv<" + name + "_tile>;\n" +
            "  const long long perGroupIn = Conv::inputChannelsPerGroup(sizes);\n"
            "  auto weight = [&](long long co, long long c, long long kh, long long kw) { return fusec_ld(&wt[" +
            weightIndex +
            "]); };\n"
            "  Conv::run(sizes, input, weight, epilogue);\n";
  }
  return text + "}\n#ifdef FUSEC_EMULATION\nextern \"C\" void " + name + "__emulated(void **args) { " + name +
         "(static_cast<const float *>(args[0]), static_cast<const float *>(args[1]), static_cast<float *>(args[2]), "
         "static_cast<const long long *>(args[3])); }\n#endif\n";
}

/// FusecSimtGemm at tiles 16 and 8, the transposes as arguments (the
/// generated kernels write one addressing each).
std::string gemmKernel(int tile) {
  const std::string name = "simtGemm" + std::to_string(tile);
  return "struct " + name + "_tile {\n" + tileMembers(tile) + "};\nextern \"C\" __global__ void " + name +
         "(const float *A, const float *B, float *C, const long long *dims) {\n"
         "  using Gemm = FusecSimtGemm<" +
         name +
         "_tile>;\n"
         "  __shared__ Gemm::Tile tileA, tileB;\n"
         "  static_assert(Gemm::kSmemBytes == " +
         std::to_string(8 * tile * (tile + 1)) +
         ", \"KernelConfig::sharedBytes\");\n"
         "  const long long M = dims[0], N = dims[1], K = dims[2];\n"
         "  const bool transA = dims[3] != 0, transB = dims[4] != 0;\n"
         "  auto loadA = [&](long long row, long long k) { return fusec_ld(&A[transA ? k * M + row : row * K + k]); "
         "};\n"
         "  auto loadB = [&](long long k, long long col) { return fusec_ld(&B[transB ? col * K + k : k * N + col]); "
         "};\n"
         "  auto epilogue = [&](long long row, long long col, float acc) { C[row * N + col] = acc; };\n"
         "  Gemm::run(M, N, K, (long long)blockIdx.y * Gemm::kTile, (long long)blockIdx.x * Gemm::kTile, tileA, "
         "tileB, loadA, loadB, epilogue);\n}\n"
         "#ifdef FUSEC_EMULATION\nextern \"C\" void " +
         name + "__emulated(void **args) { " + name +
         "(static_cast<const float *>(args[0]), static_cast<const float *>(args[1]), static_cast<float *>(args[2]), "
         "static_cast<const long long *>(args[3])); }\n#endif\n";
}

const EmulatedModule &kernels() {
  static const EmulatedModule module = [] {
    std::string source = "#include \"fusec_cuda_prelude.h\"\n#include \"fusec_simt.h\"\n";
    source += gemmKernel(16) + gemmKernel(8);
    for (size_t i = 0; i < kConvs.size(); ++i)
      source += convKernel(kConvs[i], i);
    return EmulatedModule::compile(source, "", {FUSEC_PRELUDE_DIR});
  }();
  return module;
}

std::vector<float> randomValues(size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(size);
  for (float &value : values)
    value = uniform(random);
  return values;
}

/// A sum of products, in float64 and as the kernels sum in f32 (one
/// rounding per product and per addition, in the order given: the product
/// is stored first so that the compiler contracts nothing).
struct Sums {
  double exact = 0.0, magnitude = 0.0;
  float ordered = 0.0f;
  long long terms = 0;

  void add(float a, float b) {
    exact += double(a) * double(b);
    magnitude += std::fabs(double(a) * double(b));
    volatile float product = a * b;
    ordered += product;
    ++terms;
  }
  /// `got` is the ordered f32 sum, and within its bound of the exact one.
  void check(float got) const {
    INFO(std::setprecision(9) << "got " << got << ", f32 in order " << ordered << ", float64 " << exact);
    REQUIRE(std::fabs(double(got) - exact) <= double(terms + 1) * 0x1p-24 * magnitude + 1e-30);
    REQUIRE(got == ordered);
  }
};

} // namespace

TEST_CASE("fusec_simt.h FusecSimtGemm sums in k order on ragged shapes, every transpose", "[codegen][emul][simt]") {
  unsigned seed = 0;
  for (int tile : {16, 8})
    for (const auto &shape : kProducts)
      for (bool transA : {false, true})
        for (bool transB : {false, true}) {
          const long long M = shape[0], N = shape[1], K = shape[2];
          const std::vector<float> a = randomValues(size_t(M * K), ++seed), b = randomValues(size_t(K * N), ++seed);
          std::vector<float> c(size_t(M * N), NAN);
          std::vector<long long> dims = {M, N, K, transA, transB};
          kernels().launch("simtGemm" + std::to_string(tile),
                           {unsigned((N + tile - 1) / tile), unsigned((M + tile - 1) / tile)},
                           {unsigned(tile), unsigned(tile)},
                           {const_cast<float *>(a.data()), const_cast<float *>(b.data()), c.data(), dims.data()},
                           {a.size() * sizeof(float), b.size() * sizeof(float), c.size() * sizeof(float),
                            dims.size() * sizeof(long long)});
          for (long long row = 0; row < M; ++row)
            for (long long col = 0; col < N; ++col) {
              Sums sums;
              for (long long k = 0; k < K; ++k)
                sums.add(a[size_t(transA ? k * M + row : row * K + k)], b[size_t(transB ? col * K + k : k * N + col)]);
              INFO("tile " << tile << ", " << M << " x " << N << " x " << K << (transA ? ", A^T" : "")
                           << (transB ? ", B^T" : "") << ", element (" << row << ", " << col << ")");
              sums.check(c[size_t(row * N + col)]);
            }
        }
}

TEST_CASE("fusec_simt.h convolutions (tiled and direct, depthwise included) match float64 on ragged shapes",
          "[codegen][emul][simt]") {
  unsigned seed = 100;
  for (size_t index = 0; index < kConvs.size(); ++index) {
    const ConvCase &t = kConvs[index];
    const long long ho = t.ho(), wo = t.wo(), perGroup = t.perGroup(), outPerGroup = t.co / t.group;
    const std::vector<float> x = randomValues(size_t(t.n * t.c * t.h * t.w), ++seed);
    const std::vector<float> w = randomValues(size_t(t.co * perGroup * t.kh * t.kw), ++seed);
    std::vector<float> out(size_t(t.n * t.co * ho * wo), NAN);
    std::vector<long long> dims = {t.n, t.c, t.h, t.w, t.co, ho, wo, t.kh, t.kw};
    Dim3 grid, block;
    if (t.tile) {
      grid = {unsigned((t.n * ho * wo + t.tile - 1) / t.tile), unsigned((t.co + t.tile - 1) / t.tile)};
      block = {unsigned(t.tile), unsigned(t.tile)};
    } else {
      // Fewer blocks than outputs / 64: each thread strides over several.
      block = {64};
      grid = {unsigned(std::min<long long>(3, (t.n * t.co * ho * wo + 63) / 64))};
    }
    kernels().launch(t.name(index), grid, block,
                     {const_cast<float *>(x.data()), const_cast<float *>(w.data()), out.data(), dims.data()},
                     {x.size() * sizeof(float), w.size() * sizeof(float), out.size() * sizeof(float),
                      dims.size() * sizeof(long long)});
    auto inputAt = [&](long long on, long long ch, long long ih, long long iw) {
      return x[size_t(t.channelsLast ? ((on * t.h + ih) * t.w + iw) * t.c + ch
                                     : ((on * t.c + ch) * t.h + ih) * t.w + iw)];
    };
    auto weightAt = [&](long long co, long long ch, long long i, long long j) {
      return w[size_t(t.channelsLast ? ((co * t.kh + i) * t.kw + j) * perGroup + ch
                                     : ((co * perGroup + ch) * t.kh + i) * t.kw + j)];
    };
    for (long long on = 0; on < t.n; ++on)
      for (long long co = 0; co < t.co; ++co)
        for (long long oh = 0; oh < ho; ++oh)
          for (long long ow = 0; ow < wo; ++ow) {
            // The taps in the template's order: (c, kh, kw), (kh, kw, c)
            // for the tiled channels-last reduction.
            Sums sums;
            auto tap = [&](long long ch, long long i, long long j) {
              const long long ih = oh * t.strideH - t.padTop + i * t.dilationH;
              const long long iw = ow * t.strideW - t.padLeft + j * t.dilationW;
              if (ih >= 0 && ih < t.h && iw >= 0 && iw < t.w)
                sums.add(inputAt(on, (co / outPerGroup) * perGroup + ch, ih, iw), weightAt(co, ch, i, j));
            };
            if (t.tile && t.channelsLast) {
              for (long long i = 0; i < t.kh; ++i)
                for (long long j = 0; j < t.kw; ++j)
                  for (long long ch = 0; ch < perGroup; ++ch)
                    tap(ch, i, j);
            } else {
              for (long long ch = 0; ch < perGroup; ++ch)
                for (long long i = 0; i < t.kh; ++i)
                  for (long long j = 0; j < t.kw; ++j)
                    tap(ch, i, j);
            }
            const long long at =
                t.channelsLast ? ((on * ho + oh) * wo + ow) * t.co + co : ((on * t.co + co) * ho + oh) * wo + ow;
            INFO(t.name(index) << (t.channelsLast ? " NHWC" : " NCHW") << ", group " << t.group << ", output (" << on
                               << ", " << co << ", " << oh << ", " << ow << ")");
            sums.check(out[size_t(at)]);
          }
  }
}
